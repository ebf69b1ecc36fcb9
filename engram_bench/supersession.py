"""``engram bench supersession``: is the current value in context, and is a superseded one?

Synthetic personas (``personas.py``, fixed seed) state facts, change some of them
in other words and talk about other things; probes ask for the current value.
Context recall: the current value is in the rendered context. Staleness: a value
the persona has since replaced is in it (over the probes on changed facts).
False supersessions: a still-true fact that Engram's ledger retired.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import click

from engram_bench.baselines import EngramSystem, System, Turn, all_systems
from engram_bench.common import (
    BENCH_START, CachingEmbedder, Figure, Report, Series, Table, bench_embedder, current_embedder_name, emit,
    output_options, parse_budgets, progress, require_plotting,
)
from engram_bench.personas import Persona, make_personas
from engram_core.cli.common import handle_errors

DEFAULT_BUDGETS = "8,16,32,64,256"


@dataclass(frozen=True)
class ProbeOutcome:
    system: str
    budget: int
    changed: bool
    current_in: bool
    stale_in: bool
    tokens: int


@dataclass(frozen=True)
class LedgerCheck:
    """What Engram's belief ledger did to one persona's facts."""

    system: str
    still_true: int
    falsely_retired: int
    superseded: int
    missed: int  # a replaced value that is still a current belief


def _turns(persona: Persona) -> list[Turn]:
    return [Turn(f"{persona.id}-m{i + 1}", line.session, None, line.text, line.at)
            for i, line in enumerate(persona.lines)]


def _probe(systems: list[System], persona: Persona, budgets: tuple[int, ...]) -> list[ProbeOutcome]:
    outcomes = []
    for probe in persona.probes:
        for system in systems:
            for budget in budgets:
                context = system.recall(probe.query, budget, probe.at)
                block = context.block.lower()
                stale = any(old.lower() in block for old in probe.superseded)
                outcomes.append(ProbeOutcome(system.name, budget, bool(probe.superseded),
                                             probe.current.lower() in block, stale, context.tokens_used))
    return outcomes


def _mentions(objects: list[str], value: str) -> bool:
    return any(value.lower() in o.lower() for o in objects)


def check_ledger(system: EngramSystem, persona: Persona) -> LedgerCheck:
    beliefs = system.engine.store.all_beliefs()
    current = [f"{b.object} {b.statement}" for b in beliefs if b.is_current()]
    retired = [f"{b.object} {b.statement}" for b in beliefs if not b.is_current()]
    true_values = persona.still_true()
    falsely = sum(1 for v in true_values if _mentions(retired, v) and not _mentions(current, v))
    replaced = [old for p in persona.probes for old in p.superseded]
    missed = sum(1 for v in replaced if _mentions(current, v))
    return LedgerCheck(system.name, len(true_values), falsely, len(replaced), missed)


def run_persona(persona: Persona, budgets: tuple[int, ...], embedder: CachingEmbedder,
                nightly_sleep: bool = False) -> tuple[list[ProbeOutcome], list[LedgerCheck]]:
    turns = _turns(persona)
    systems = all_systems(embedder, turns[0].at, nightly_sleep=nightly_sleep)
    try:
        for turn in turns:
            for system in systems:
                system.add(turn)
        outcomes = _probe(systems, persona, budgets)
        checks = [check_ledger(s, persona) for s in systems if isinstance(s, EngramSystem)]
        return outcomes, checks
    finally:
        for system in systems:
            system.close()


# -- report ---------------------------------------------------------------------------------

def _rate(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _by_system(outcomes: list[ProbeOutcome]) -> dict[str, dict[int, list[ProbeOutcome]]]:
    grouped: dict[str, dict[int, list[ProbeOutcome]]] = defaultdict(lambda: defaultdict(list))
    for o in outcomes:
        grouped[o.system][o.budget].append(o)
    return grouped


def _figures(grouped, budgets: tuple[int, ...]) -> list[Figure]:  # noqa: ANN001
    xs = tuple(float(b) for b in budgets)
    recall = tuple(Series(s, xs, tuple(_rate([o.current_in for o in g[b]]) or 0.0 for b in budgets))
                   for s, g in grouped.items())
    stale = tuple(Series(s, xs, tuple(_rate([o.stale_in for o in g[b] if o.changed]) or 0.0 for b in budgets))
                  for s, g in grouped.items())
    return [Figure("recall", "Context recall of the current value", "token budget", "context recall", recall, True),
            Figure("staleness", "Superseded value in context", "token budget", "staleness", stale, True)]


def _ledger_table(checks: list[LedgerCheck]) -> Table:
    rows = []
    for name in dict.fromkeys(c.system for c in checks):
        mine = [c for c in checks if c.system == name]
        true, falsely = sum(c.still_true for c in mine), sum(c.falsely_retired for c in mine)
        replaced, missed = sum(c.superseded for c in mine), sum(c.missed for c in mine)
        rows.append((name, true, falsely, replaced, missed))
    return Table("Engram's ledger after the last session", ("system", "still-true facts", "false supersessions",
                                                             "replaced values", "replaced but still current"),
                 tuple(rows))


def build_report(outcomes: list[ProbeOutcome], checks: list[LedgerCheck], budgets: tuple[int, ...],
                 settings: dict) -> Report:
    grouped = _by_system(outcomes)
    columns = ("system", *[f"{b} tok" for b in budgets])
    recall = [(s, *[_rate([o.current_in for o in g[b]]) for b in budgets]) for s, g in grouped.items()]
    stale = [(s, *[_rate([o.stale_in for o in g[b] if o.changed]) for b in budgets]) for s, g in grouped.items()]
    tokens = [(s, *[sum(o.tokens for o in g[b]) / len(g[b]) for b in budgets]) for s, g in grouped.items()]
    report = Report("supersession", settings)
    report.tables += [
        Table("Context recall (current value in context; all probes)", columns, tuple(recall)),
        Table("Staleness (a replaced value in context; probes on changed facts)", columns, tuple(stale)),
        Table("Mean context tokens used", columns, tuple(tokens)),
        _ledger_table(checks),
    ]
    report.figures += _figures(grouped, budgets)
    report.results = {"recall": {r[0]: dict(zip(map(str, budgets), r[1:])) for r in recall},
                      "staleness": {r[0]: dict(zip(map(str, budgets), r[1:])) for r in stale},
                      "ledger": [vars(c) for c in checks]}
    return report


@click.command(name="supersession")
@click.option("--personas", "count", default=24, show_default=True, type=click.IntRange(min=1),
              help="How many synthetic personas (five probes each).")
@click.option("--seed", default=7, show_default=True, type=int, help="Seed of the persona generator.")
@click.option("--budgets", default=DEFAULT_BUDGETS, show_default=True, help="Token budgets, comma-separated.")
@click.option("--sleep", "nightly_sleep", is_flag=True,
              help="Also run Engram with its sleep cycle once a day (B3 Engram, nightly sleep).")
@output_options
@handle_errors
def command(count: int, seed: int, budgets: str, nightly_sleep: bool, json_path: Path | None,
            plot_dir: Path | None) -> None:
    """Current vs superseded values in context, for every system, under tiny budgets."""
    require_plotting(plot_dir)
    chosen_budgets = parse_budgets(budgets)
    personas = make_personas(seed, count, BENCH_START)
    embedder = bench_embedder(current_embedder_name())
    embedder.warm([line.text for p in personas for line in p.lines] + [q.query for p in personas for q in p.probes])
    started, outcomes, checks = time.perf_counter(), [], []
    for persona in progress(personas, "personas", unit="persona"):
        found, ledger = run_persona(persona, chosen_budgets, embedder, nightly_sleep)
        outcomes += found
        checks += ledger
    probes = sum(len(p.probes) for p in personas)
    changed = sum(1 for p in personas for q in p.probes if q.superseded)
    settings = {"personas": count, "seed": seed, "probes": probes, "changed": changed, "embedder": embedder.model_id,
                "nightly_sleep": nightly_sleep}
    report = build_report(outcomes, checks, chosen_budgets, settings)
    report.notes.append(f"wall time {time.perf_counter() - started:.1f} s")
    emit(report, json_path, plot_dir)
