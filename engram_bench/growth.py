"""``engram bench growth``: a simulated year of daily use; does storage level off?

Every day the user sends a few messages (recurring topics with varying details,
and one-off events); each message is one Engram chat turn (decay sweep, recall
under the budget with reinforcement, reply, write) with the clock at that moment;
the sleep cycle runs every night. The raw-turn baselines store every turn and
recall under the same budget. Per day: active, archived and all memories ever
stored, the snapshot size (SQLite pages) and the mean tokens recall packed.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import click

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.adapters.tokens import default_token_counter
from engram_bench.baselines import CosineTopK, FullHistory, LexicalTopK, System, Turn
from engram_bench.common import (
    BENCH_START, Figure, Report, Series, Table, bench_embedder, current_embedder_name, emit, output_options, progress,
    require_plotting,
)
from engram_core.cli.common import handle_errors
from engram_core.core.config import EngineConfig
from engram_core.usecases.engine import Engine
from engram_core.core.model import MemoryStatus
from engram_core.core.ports import Embedder

RECURRING = (
    "I ran {n} km along the river this morning.", "I cooked {dish} for dinner tonight.",
    "Worked on the {project} migration today, {status}.", "Took Biscuit the dog to {place} this afternoon.",
    "I'm reading {book} before bed these days.", "Had my Spanish lesson today, we practised {grammar}.",
)
ONE_OFF = (
    "My cousin {name} visited from {city} for the weekend.", "The boiler broke and a plumber named {name} fixed it.",
    "I went to a {genre} concert downtown with {name}.", "I booked a dentist appointment for {day}.",
    "I lost my umbrella on the bus to {city}.", "We had a surprise party for {name} at the office.",
    "I tried a new {dish} recipe from a magazine.", "My neighbour {name} lent me a ladder.",
)
FILL = {
    "n": ("5", "7", "10", "12", "3"), "dish": ("risotto", "curry", "paella", "lentil soup", "tacos", "ramen"),
    "project": ("billing", "search", "payments", "reporting"), "status": ("slow going", "good progress", "blocked"),
    "place": ("the beach", "the park", "the vet", "the lake"), "book": ("Dune", "Middlemarch", "Piranesi", "Beloved"),
    "grammar": ("the subjunctive", "past tenses", "ser and estar"), "genre": ("jazz", "folk", "techno", "opera"),
    "name": ("Ana", "Tomas", "Priya", "Kenji", "Lena", "Omar", "Rosa", "Felix"),
    "city": ("Porto", "Lyon", "Ghent", "Bergen", "Krakow"), "day": ("Tuesday", "next Friday", "the 14th"),
}
ENGRAM_SYSTEMS = ("B3 Engram", "B3 Engram, no forgetting")


def daily_messages(rng: random.Random, turns: int) -> list[str]:
    """Mostly recurring topics, now and then a one-off event."""
    texts = []
    for _ in range(turns):
        template = rng.choice(ONE_OFF if rng.random() < 0.3 else RECURRING)
        texts.append(template.format(**{k: rng.choice(v) for k, v in FILL.items()}))
    return texts


@dataclass(frozen=True)
class Day:
    system: str
    day: int
    active: int
    archived: int
    total: int
    snapshot_bytes: int
    recall_tokens: float


class EngramUser:
    """One Engram store used through chat turns, with a nightly sleep cycle."""

    def __init__(self, name: str, embedder: Embedder, config: EngineConfig, budget: int) -> None:
        self.name, self.budget, self.clock = name, budget, FixedClock(BENCH_START)
        self.engine = Engine(SqliteStore(":memory:"), embedder=embedder, llm=OfflineLLM(),
                             tokens=default_token_counter(), clock=self.clock, config=config)

    def turn(self, text: str, at: datetime, session: str) -> int:
        self.clock.set(at)
        return self.engine.chat(text, session_id=session, budget_tokens=self.budget).recall.tokens_used

    def night(self, at: datetime) -> None:
        self.clock.set(at)
        self.engine.sleep()

    def day(self, day: int, tokens: list[int]) -> Day:
        counts = self.engine.memory_counts()
        size = self.engine.working_file.file_bytes()
        return Day(self.name, day, counts.get(MemoryStatus.ACTIVE.value, 0), counts.get(MemoryStatus.ARCHIVED.value, 0),
                   sum(counts.values()), int(size), sum(tokens) / len(tokens) if tokens else 0.0)


class TurnStoreUser:
    """A raw-turn baseline: every message is kept and nothing is ever retired."""

    def __init__(self, system: System, budget: int) -> None:
        self.system, self.name, self.budget, self.count = system, system.name, budget, 0

    def turn(self, text: str, at: datetime, session: str) -> int:
        tokens = self.system.recall(text, self.budget, at).tokens_used
        self.count += 1
        self.system.add(Turn(f"t{self.count}", session, None, text, at))
        return tokens

    def night(self, at: datetime) -> None:
        return None

    def day(self, day: int, tokens: list[int]) -> Day:
        return Day(self.name, day, self.count, 0, self.count, 0, sum(tokens) / len(tokens) if tokens else 0.0)


def make_users(embedder: Embedder, budget: int) -> list[EngramUser | TurnStoreUser]:
    tokens, config = default_token_counter(), EngineConfig()
    return [
        TurnStoreUser(FullHistory(tokens), budget), TurnStoreUser(CosineTopK(tokens, embedder), budget),
        TurnStoreUser(LexicalTopK(tokens), budget),
        EngramUser(ENGRAM_SYSTEMS[0], embedder, config, budget),
        EngramUser(ENGRAM_SYSTEMS[1], embedder, config.model_copy(update={"forgetting": False}), budget),
    ]


def simulate(days: int, turns: int, budget: int, seed: int, embedder: Embedder) -> list[Day]:
    rng, users, record = random.Random(seed), make_users(embedder, budget), []
    for day in progress(range(1, days + 1), "days", unit="day"):
        morning = BENCH_START + timedelta(days=day - 1)
        texts = daily_messages(rng, rng.randint(max(1, turns - 1), turns + 1))
        spent: dict[str, list[int]] = {u.name: [] for u in users}
        for index, text in enumerate(texts):
            at = morning + timedelta(hours=2 * index + rng.random())
            for user in users:
                spent[user.name].append(user.turn(text, at, f"day-{day}"))
        for user in users:
            user.night(morning + timedelta(hours=23))
            record.append(user.day(day, spent[user.name]))
    return record


# -- report --------------------------------------------------------------------------------

def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _monthly_rows(record: list[Day], system: str, days: int) -> list[tuple]:
    mine = {d.day: d for d in record if d.system == system}
    rows = []
    for month_end in sorted({min(days, m * 30) for m in range(1, days // 30 + 1)} | {days}):
        d = mine[month_end]
        month = [mine[x].recall_tokens for x in range(max(1, month_end - 29), month_end + 1)]
        share = d.active / d.total if d.total else 0.0
        rows.append((f"{system} day {month_end}", d.active, d.archived, d.total, share,
                     round(d.snapshot_bytes / 1024), _mean(month)))
    return rows


def flatness(record: list[Day], system: str, days: int) -> float | None:
    """Largest monthly mean of recall tokens over the smallest, months 2 to 12."""
    by_day = {d.day: d.recall_tokens for d in record if d.system == system}
    months = [_mean([by_day[x] for x in range(s, min(s + 30, days + 1))]) for s in range(31, days + 1, 30)]
    months = [m for m in months if m > 0]
    return max(months) / min(months) if months else None


def build_report(record: list[Day], days: int, settings: dict) -> Report:
    report = Report("growth", settings)
    rows = [r for s in ENGRAM_SYSTEMS for r in _monthly_rows(record, s, days)]
    report.tables.append(Table("Engram by month (memories; snapshot KB; mean recall tokens that month)",
                               ("system, day", "active", "archived", "ever stored", "active share", "snapshot KB",
                                "recall tokens"), tuple(rows)))
    last = [d for d in record if d.day == days]
    report.tables.append(Table(f"After {days} days", ("system", "active (stored)", "ever stored", "active share",
                                                      "recall tokens last day", "tokens max/min month 2+"),
                               tuple((d.system, d.active, d.total, d.active / d.total if d.total else None,
                                      d.recall_tokens, flatness(record, d.system, days)) for d in last)))
    report.figures += _figures(record)
    report.results = {"days": [vars(d) for d in record]}
    return report


def _figures(record: list[Day]) -> list[Figure]:
    systems = list(dict.fromkeys(d.system for d in record))

    def series(metric: str, only: tuple[str, ...] | None = None) -> tuple[Series, ...]:
        chosen = [s for s in systems if only is None or s in only]
        return tuple(Series(s, tuple(float(d.day) for d in record if d.system == s),
                            tuple(float(getattr(d, metric)) for d in record if d.system == s)) for s in chosen)

    return [Figure("active", "Active (recallable) memories per day", "day", "memories", series("active")),
            Figure("archived", "Archived memories per day", "day", "memories", series("archived", ENGRAM_SYSTEMS)),
            Figure("snapshot", "Snapshot size per day", "day", "bytes", series("snapshot_bytes", ENGRAM_SYSTEMS)),
            Figure("tokens", "Mean recall tokens per day", "day", "tokens", series("recall_tokens"))]


@click.command(name="growth")
@click.option("--days", default=365, show_default=True, type=click.IntRange(min=1), help="Simulated days.")
@click.option("--turns", default=4, show_default=True, type=click.IntRange(min=1),
              help="Messages a day (varies by one either way).")
@click.option("--budget", default=1024, show_default=True, type=click.IntRange(min=1), help="Recall budget.")
@click.option("--seed", default=7, show_default=True, type=int)
@output_options
@handle_errors
def command(days: int, turns: int, budget: int, seed: int, json_path: Path | None, plot_dir: Path | None) -> None:
    """A year of daily use: active vs archived memories, snapshot bytes, recall tokens."""
    require_plotting(plot_dir)
    embedder = bench_embedder(current_embedder_name())
    started = time.perf_counter()
    record = simulate(days, turns, budget, seed, embedder)
    settings = {"days": days, "turns": turns, "budget": budget, "seed": seed, "embedder": embedder.model_id}
    report = build_report(record, days, settings)
    report.notes.append(f"wall time {time.perf_counter() - started:.1f} s")
    emit(report, json_path, plot_dir)
