"""Tables of ``engram bench truth``: the ledger per split and kind, every system's context."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING

from engram_bench.baselines import ENGRAM
from engram_bench.common import Cell, Figure, Report, Series, Table

if TYPE_CHECKING:
    from engram_bench.truth import CaseRun

SPLITS = ("dev", "heldout")


def _rate(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _per_100(count: int, messages: int) -> float | None:
    return 100.0 * count / messages if messages else None


def _ledger_cells(runs: Sequence[CaseRun]) -> tuple[Cell, ...]:
    messages = sum(len(r.case.messages()) for r in runs)
    false = sum(len(r.ledger.false_beliefs) for r in runs)
    retired = sum(len(r.ledger.false_supersessions) for r in runs)
    updates = [r.ledger.update_caught for r in runs if r.ledger.update_caught is not None]
    return (len(runs), messages, false, _per_100(false, messages), retired, len(updates), _rate(updates))


def _probe_rate(runs: Sequence[CaseRun], system: str, budget: int, stale: bool) -> float | None:
    outcomes = [p for r in runs for p in r.probes if p.system == system and p.budget == budget]
    if stale:
        return _rate([p.stale for p in outcomes if p.stale is not None])
    return _rate([p.found for p in outcomes])


def _systems(runs: Sequence[CaseRun]) -> list[str]:
    return list(dict.fromkeys(p.system for r in runs for p in r.probes))


def ledger_table(by_split: dict[str, list[CaseRun]]) -> Table:
    rows = tuple((split, *_ledger_cells(runs)) for split, runs in by_split.items())
    return Table("Engram's ledger after each case", ("split", "cases", "messages", "false beliefs",
                                                     "per 100 messages", "false supersessions", "update cases",
                                                     "update recall"), rows)


def kind_table(split: str, runs: Sequence[CaseRun], budgets: tuple[int, ...]) -> Table:
    rows = []
    for kind in dict.fromkeys(r.case.kind for r in runs):
        mine = [r for r in runs if r.case.kind == kind]
        cases, messages, false, per_100, retired, _, recall = _ledger_cells(mine)
        stale = [_probe_rate(mine, ENGRAM, b, stale=True) for b in budgets]
        rows.append((kind, cases, messages, per_100, retired, recall, *stale))
    columns = ("kind", "cases", "messages", "false beliefs /100 msg", "false supersessions", "update recall",
               *[f"stale @{b}" for b in budgets])
    return Table(f"Per kind ({split}; staleness of Engram's context)", columns, tuple(rows))


def context_table(split: str, runs: Sequence[CaseRun], budgets: tuple[int, ...]) -> Table:
    rows = tuple((s, *[_probe_rate(runs, s, b, stale=False) for b in budgets],
                  *[_probe_rate(runs, s, b, stale=True) for b in budgets]) for s in _systems(runs))
    columns = ("system", *[f"found @{b}" for b in budgets], *[f"stale @{b}" for b in budgets])
    return Table(f"Context at the probe ({split}; found: every expected string; stale: an item stating "
                 "a replaced value, over the cases that change something)", columns, rows)


def _staleness_figure(split: str, runs: Sequence[CaseRun], budgets: tuple[int, ...]) -> Figure:
    xs = tuple(float(b) for b in budgets)
    series = tuple(Series(s, xs, tuple(_probe_rate(runs, s, b, stale=True) or 0.0 for b in budgets))
                   for s in _systems(runs))
    return Figure(f"staleness-{split}", f"Stale context ({split})", "token budget", "staleness", series, True)


def build_report(runs: Sequence[CaseRun], budgets: tuple[int, ...], settings: dict) -> Report:
    by_split = {s: [r for r in runs if r.case.split == s] for s in SPLITS}
    by_split = {s: mine for s, mine in by_split.items() if mine}
    report = Report("truth", settings)
    report.tables.append(ledger_table(by_split))
    for split, mine in by_split.items():
        report.tables += [kind_table(split, mine, budgets), context_table(split, mine, budgets)]
        report.figures.append(_staleness_figure(split, mine, budgets))
    report.results = {"cases": [{"id": r.case.id, "kind": r.case.kind, "split": r.case.split,
                                 "ledger": asdict(r.ledger), "probes": [asdict(p) for p in r.probes]} for r in runs]}
    return report


def failure_lines(runs: Sequence[CaseRun], budget: int) -> list[str]:
    """One line per case that went wrong: what the ledger got wrong, and stale Engram context."""
    lines = []
    for run in runs:
        wrong = [f"false belief {b!r}" for b in run.ledger.false_beliefs]
        wrong += [f"retired {v!r}" for v in run.ledger.false_supersessions]
        if run.ledger.update_caught is False:
            wrong.append("update missed")
        engram = [p for p in run.probes if p.system == ENGRAM and p.budget == budget]
        if any(p.stale for p in engram):
            wrong.append(f"stale context @{budget}")
        if engram and not engram[0].found:
            wrong.append(f"expected value not in context @{budget}")
        if wrong:
            lines.append(f"{run.case.id} ({run.case.split}): " + "; ".join(wrong))
    return lines
