"""Shared bench plumbing: cached embeddings, tables, JSON reports, PNG plots, progress bars."""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click
import numpy as np
from pydantic import BaseModel, ValidationError as PydanticError
from tqdm import tqdm

from engram_core.core.errors import ConfigurationError, ValidationError
from engram_core.core.ports import Embedder

if TYPE_CHECKING:
    from engram_core.settings import Settings

T = TypeVar("T")
Cell = str | int | float | None
BENCH_START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
PLOT_HINT = "pip install 'engram[bench]'"


class CachingEmbedder:
    """The Embedder port over another one: each distinct text is embedded once per run,
    so every system in a suite sees the very same vector for the same text."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._cache: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self._store(missing, self.inner.embed(missing))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    def _store(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, np.asarray(vectors, dtype=np.float32), strict=True):
            self._cache[text] = vector

    def warm(self, texts: Iterable[str], desc: str = "embed", batch: int = 256) -> None:
        """Embed many texts up front, in batches, with a progress bar."""
        pending = [t for t in dict.fromkeys(texts) if t not in self._cache]
        with progress(None, desc, total=len(pending), unit="text") as bar:
            for start in range(0, len(pending), batch):
                chunk = pending[start:start + batch]
                self._store(chunk, self.inner.embed(chunk))
                bar.update(len(chunk))


def progress(iterable: Iterable[T] | None, desc: str, total: int | None = None, unit: str = "it") -> tqdm:
    """A progress bar on stderr, shown only on a terminal."""
    return tqdm(iterable, desc=desc, total=total, unit=unit, disable=None, leave=False, file=sys.stderr)


def bench_embedder(name: str) -> CachingEmbedder:
    from engram_core import default_embedder

    return CachingEmbedder(default_embedder(name))


def current_embedder_name() -> str:
    """The ``engram --embedder`` choice (MiniLM unless told otherwise)."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx else None
    return getattr(obj, "embedder", None) or "minilm"


def bench_settings() -> Settings:
    """The settings ``engram`` read once for this command (each suite runs as ``engram bench NAME``);
    a suite run some other way is its own entry point and reads them here."""
    from engram_core.cli.common import Context

    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx else None
    if isinstance(obj, Context):
        return obj.settings
    from engram_core.settings import load_settings

    return load_settings()


def parse_budgets(text: str, field_name: str = "budgets") -> tuple[int, ...]:
    try:
        budgets = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ValidationError(f"budgets must be whole numbers separated by commas, got {text!r}",
                              field=field_name) from exc
    if not budgets or min(budgets) <= 0:
        raise ValidationError(f"budgets must be positive whole numbers, got {text!r}", field=field_name)
    return tuple(sorted(set(budgets)))


# -- tables and reports -------------------------------------------------------------

def _cell(value: Cell) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def render(self) -> str:
        text = [self.columns] + [tuple(_cell(v) for v in row) for row in self.rows]
        widths = [max(len(r[i]) for r in text) for i in range(len(self.columns))]
        lines = [self.title, "  ".join(c.ljust(w) for c, w in zip(self.columns, widths, strict=False))]
        lines.append("  ".join("-" * w for w in widths))
        for row in text[1:]:
            first, rest = row[0].ljust(widths[0]), [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=False)]
            lines.append("  ".join([first, *rest]))
        return "\n".join(lines)

    def markdown(self) -> str:
        head = "| " + " | ".join(self.columns) + " |"
        rule = "| " + " | ".join("---" for _ in self.columns) + " |"
        body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in self.rows]
        return "\n".join([f"**{self.title}**", "", head, rule, *body])


@dataclass(frozen=True)
class Series:
    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    log_x: bool = False
    log_y: bool = False
    log_base: int = 2


@dataclass
class Report:
    suite: str
    settings: dict[str, Cell]
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    results: dict[str, object] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"suite": self.suite, "settings": self.settings, "machine": machine_notes(),
                "tables": [asdict(t) for t in self.tables], "results": self.results, "notes": self.notes}


def machine_notes() -> dict[str, Cell]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {"python": platform.python_version(), "platform": platform.platform(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "numpy": np.__version__, "load_1min": round(load[0], 2)}


# -- output -----------------------------------------------------------------------------

def output_options(command: Callable) -> Callable:
    command = click.option("--plot", "plot_dir", type=click.Path(file_okay=False, path_type=Path),
                           help=f"Write PNG plots into this directory (needs matplotlib: {PLOT_HINT}).")(command)
    return click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
                        help="Write the full results as JSON to this file.")(command)


def require_plotting(plot_dir: Path | None) -> None:
    """Checked before any long work, so a missing extra fails in a second, not after an hour."""
    if plot_dir is None:
        return
    try:
        import matplotlib  # noqa: F401 - only whether it imports
    except ImportError as exc:
        raise ConfigurationError(f"--plot needs matplotlib: {PLOT_HINT}", field="plot") from exc


def emit(report: Report, json_path: Path | None, plot_dir: Path | None) -> None:
    click.echo(f"engram bench {report.suite}: " + ", ".join(f"{k}={_cell(v)}" for k, v in report.settings.items()))
    for table in report.tables:
        click.echo("")
        click.echo(table.render())
    for note in report.notes:
        click.echo(f"\nnote: {note}")
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report.as_dict(), indent=2, default=str) + "\n", encoding="utf-8")
        click.echo(f"\nwrote {json_path}")
    if plot_dir is not None:
        for path in write_plots(report, plot_dir):
            click.echo(f"wrote {path}")


def write_plots(report: Report, plot_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    plot_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for figure in report.figures:
        fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=80)
        for series in figure.series:
            ax.plot(series.x, series.y, marker="o" if len(series.x) <= 12 else None, markersize=3,
                    linewidth=1.4, label=series.label)
        if figure.log_x:
            ax.set_xscale("log", base=figure.log_base)
        if figure.log_y:
            ax.set_yscale("log", base=figure.log_base)
        ax.set(title=figure.title, xlabel=figure.x_label, ylabel=figure.y_label)
        ax.grid(alpha=0.3)
        if len(figure.series) > 1:
            ax.legend(fontsize=7)
        fig.tight_layout()
        path = plot_dir / f"{report.suite}-{figure.name}.png"
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    return paths


Model = TypeVar("Model", bound=BaseModel)


def read_json_model(path: Path, model: type[Model]) -> Model:
    """A JSON file read into ``model``; what is wrong with it is one ValidationError naming the place."""
    try:
        return model.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValidationError(f"{path}: not a readable JSON file ({exc})", field="file") from exc
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "top level"
        raise ValidationError(f"{path}: {where}: {first['msg']}", field="file") from exc
