"""``engram bench scenario``: scripted belief-revision stories, probe by probe.

Scenario file (documented in docs/benchmarks.md)::

    {"name": str optional,
     "sessions": [{"gap_hours": number, "messages": [str]}],
     "probes": [{"query": str, "budget": int, "expect": [str], "forbid": [str]}]}

Each session starts ``gap_hours`` after the previous one ended; its messages are
observed a minute apart. A session with no messages is time passing: the next
session, or the probes, come that much later. Probes are asked an hour after the
last session. A probe passes when every ``expect`` string and no ``forbid`` string
occurs in the rendered memory block (case-insensitive).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Protocol

import click
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engram_bench.baselines import Turn, all_systems
from engram_bench.common import (
    read_json_model,
    BENCH_START, CachingEmbedder, Report, Table, bench_embedder, current_embedder_name, emit, output_options,
    require_plotting,
)
from engram_core.cli.common import handle_errors
from engram_core.core.errors import ValidationError

MESSAGE_SPACING = timedelta(minutes=1)
PROBE_DELAY = timedelta(hours=1)


class SessionIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gap_hours: float = Field(ge=0)
    messages: list[str] = []  # none: time passes


class ProbeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1)
    budget: int = Field(gt=0)
    expect: list[str] = []
    forbid: list[str] = []


class ScenarioIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None
    sessions: list[SessionIn] = Field(min_length=1)
    probes: list[ProbeIn] = Field(min_length=1)

    @model_validator(mode="after")
    def _some_message(self) -> ScenarioIn:
        if not any(s.messages for s in self.sessions):
            raise ValueError("no session has a message")
        return self


def shipped_scenarios() -> list[Path]:
    folder = resources.files("engram_bench") / "scenarios"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json"))


def load_scenario(path: Path) -> ScenarioIn:
    return read_json_model(path, ScenarioIn)


class SessionLike(Protocol):
    gap_hours: float
    messages: list[str]


def timed_sessions(sessions: Sequence[SessionLike], start: datetime, prefix: str = "s") -> tuple[list[Turn], datetime]:
    """Every message as a turn at its time, and the moment the last session ended: an empty
    session moves that moment on by its gap, so what comes next comes that much later."""
    turns, at = [], start
    for number, session in enumerate(sessions, start=1):
        at += timedelta(hours=session.gap_hours)
        for index, text in enumerate(session.messages):
            turns.append(Turn(f"{prefix}{number}-m{index + 1}", f"session-{number}", None, text, at))
            at += MESSAGE_SPACING
    return turns, at - MESSAGE_SPACING if sessions[-1].messages else at


def scenario_turns(scenario: ScenarioIn, start: datetime) -> list[Turn]:
    return timed_sessions(scenario.sessions, start)[0]


def probe_time(scenario: ScenarioIn, start: datetime) -> datetime:
    """An hour after the last message, or after the time that passed in trailing empty sessions."""
    return timed_sessions(scenario.sessions, start)[1] + PROBE_DELAY


@dataclass(frozen=True)
class ProbeResult:
    system: str
    probe: int
    passed: bool
    missing: tuple[str, ...]
    forbidden: tuple[str, ...]
    tokens: int


def judge(block: str, probe: ProbeIn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(expected strings missing, forbidden strings present), case-insensitive."""
    text = block.lower()
    missing = tuple(e for e in probe.expect if e.lower() not in text)
    forbidden = tuple(f for f in probe.forbid if f.lower() in text)
    return missing, forbidden


def run_scenario(scenario: ScenarioIn, embedder: CachingEmbedder) -> list[ProbeResult]:
    turns = scenario_turns(scenario, BENCH_START)
    systems = all_systems(embedder, BENCH_START)
    ask_at = probe_time(scenario, BENCH_START)
    results = []
    try:
        for turn in turns:
            for system in systems:
                system.add(turn)
        for number, probe in enumerate(scenario.probes, start=1):
            for system in systems:
                context = system.recall(probe.query, probe.budget, ask_at)
                missing, forbidden = judge(context.block, probe)
                results.append(ProbeResult(system.name, number, not missing and not forbidden, missing, forbidden,
                                           context.tokens_used))
    finally:
        for system in systems:
            system.close()
    return results


def _probe_label(number: int, probe: ProbeIn) -> str:
    return f"{number}. {probe.query[:40]} @{probe.budget}"


def scenario_table(name: str, scenario: ScenarioIn, results: list[ProbeResult]) -> Table:
    systems = list(dict.fromkeys(r.system for r in results))
    by_key = {(r.system, r.probe): r for r in results}
    rows = []
    for number, probe in enumerate(scenario.probes, start=1):
        cells = [_verdict(by_key[(s, number)]) for s in systems]
        rows.append((_probe_label(number, probe), *cells))
    totals = [sum(by_key[(s, n)].passed for n in range(1, len(scenario.probes) + 1)) for s in systems]
    rows.append(("passed", *[f"{t}/{len(scenario.probes)}" for t in totals]))
    return Table(f"Scenario: {name}", ("probe", *systems), tuple(rows))


def _verdict(result: ProbeResult) -> str:
    if result.passed:
        return "pass"
    reasons = [f"-{m}" for m in result.missing] + [f"+{f}" for f in result.forbidden]
    return "FAIL " + " ".join(reasons)


@click.command(name="scenario")
@click.option("--file", "files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A scenario file (repeatable); default: the scenarios shipped with Engram.")
@output_options
@handle_errors
def command(files: tuple[Path, ...], json_path: Path | None, plot_dir: Path | None) -> None:
    """Scripted belief-revision stories: expected strings in context, forbidden ones out."""
    require_plotting(plot_dir)
    paths = list(files) or shipped_scenarios()
    scenarios = [(p, load_scenario(p)) for p in paths]  # all validated before any run
    embedder = bench_embedder(current_embedder_name())
    report = Report("scenario", {"scenarios": len(scenarios), "embedder": embedder.model_id})
    for path, scenario in scenarios:
        results = run_scenario(scenario, embedder)
        name = scenario.name or path.stem
        report.tables.append(scenario_table(name, scenario, results))
        report.results[name] = [vars(r) for r in results]
    emit(report, json_path, plot_dir)
