"""``engram bench retrieval``: conversational evidence recall under token budgets.

Each conversation goes into a fresh store of every system, turn by turn at its
own time; each question is asked at its time with the systems' clocks set there.
A question's evidence turns count as retrieved when an item in the packed
context is that turn, or a fact extracted from it; a gist counts for nothing.
Systems never see evidence or answers: only turns and the question text.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np

from engram_bench import conversations as data
from engram_bench.baselines import PLAIN_RETRIEVERS, System, Turn, all_systems
from engram_bench.common import (
    CachingEmbedder, Figure, Report, Series, Table, bench_embedder, current_embedder_name, emit, machine_notes,
    output_options, parse_budgets, progress, require_plotting,
)
from engram_core.cli.common import handle_errors

DEFAULT_BUDGETS = "256,512,1024,2048"
OVERALL = "overall"


@dataclass(frozen=True)
class Outcome:
    """One question asked of one system at one budget."""

    conversation: str
    system: str
    budget: int
    category: str
    recall: float
    complete: bool
    tokens: int
    ms: float = 0.0  # the recall's wall time (the question's vector comes from the embedder's cache)


def conversation_turns(conv: data.ConversationIn) -> list[Turn]:
    turns = [Turn(t.id, s.id, t.speaker, t.text, data.turn_time(s, i, t))
             for s in conv.sessions for i, t in enumerate(s.turns)]
    return sorted(turns, key=lambda t: t.at)


def _ingest(systems: list[System], turns: list[Turn], label: str) -> None:
    for turn in progress(turns, f"{label} ingest", unit="turn"):
        for system in systems:
            system.add(turn)


def _ask(systems: list[System], conv: data.ConversationIn, budgets: tuple[int, ...]) -> list[Outcome]:
    outcomes = []
    asked = [q for q in conv.questions if q.evidence]
    for question in progress(asked, f"{conv.id} questions", unit="q"):
        at, evidence = data.question_time(conv, question), set(question.evidence)
        for system in systems:
            for budget in budgets:
                started = time.perf_counter()
                context = system.recall(question.text, budget, at)
                ms = (time.perf_counter() - started) * 1000.0
                hits = len(evidence & context.source_turns())
                outcomes.append(Outcome(conv.id, system.name, budget, question.category, hits / len(evidence),
                                        hits == len(evidence), context.tokens_used, ms))
    return outcomes


def run_conversation(conv: data.ConversationIn, budgets: tuple[int, ...], embedder: CachingEmbedder,
                     nightly_sleep: bool = False) -> list[Outcome]:
    turns = conversation_turns(conv)
    embedder.warm([t.line_text for t in turns] + [q.text for q in conv.questions], f"{conv.id} embed")
    systems = all_systems(embedder, turns[0].at if turns else data.utc(conv.sessions[0].at),
                          nightly_sleep=nightly_sleep)
    try:
        _ingest(systems, turns, conv.id)
        return _ask(systems, conv, budgets)
    finally:
        for system in systems:
            system.close()


# -- aggregation ----------------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    recall: float
    complete: float
    tokens: float
    questions: int


# Per system, budget and category ("all" too): the questions and their evidence recall.
Aggregate = dict[str, dict[int, dict[str, Cell]]]


def _cell(outcomes: list[Outcome]) -> Cell | None:
    if not outcomes:
        return None
    n = len(outcomes)
    return Cell(sum(o.recall for o in outcomes) / n, sum(o.complete for o in outcomes) / n,
                sum(o.tokens for o in outcomes) / n, n)


def aggregate(outcomes: list[Outcome], apart: tuple[str, ...]) -> Aggregate:
    """system -> budget -> category (and ``overall`` for the headline categories) -> figures."""
    groups: dict[tuple[str, int, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[(o.system, o.budget, o.category)].append(o)
        if o.category not in apart:
            groups[(o.system, o.budget, OVERALL)].append(o)
    result: dict[str, dict[int, dict[str, Cell]]] = defaultdict(lambda: defaultdict(dict))
    for (system, budget, category), members in groups.items():
        result[system][budget][category] = _cell(members)
    return result


def _metric_table(title: str, agg: Aggregate, systems: list[str], budgets: tuple[int, ...], category: str,
                  metric: str) -> Table:
    rows = []
    for system in systems:
        cells = [agg[system][b].get(category) for b in budgets]
        rows.append((system, *[getattr(c, metric) if c else None for c in cells]))
    return Table(title, ("system", *[f"{b} tok" for b in budgets]), tuple(rows))


def _category_table(agg: Aggregate, systems: list[str], budget: int, categories: list[str]) -> Table:
    rows = [(s, *[getattr(agg[s][budget].get(c), "recall", None) for c in categories]) for s in systems]
    counts = [agg[systems[0]][budget][c].questions for c in categories]
    columns = ("system", *[f"{c} (n={n})" for c, n in zip(categories, counts, strict=False)])
    return Table(f"Evidence recall by category at {budget} tokens", columns, tuple(rows))


def _margin_table(agg: Aggregate, systems: list[str], budgets: tuple[int, ...]) -> Table | None:
    """Each Engram row against the best plain retriever (B2, B2L, B2H) at the same budget."""
    plain = [s for s in systems if s in PLAIN_RETRIEVERS]
    engrams = [s for s in systems if s.startswith("B3")]
    if not plain or not engrams:
        return None
    rows = []
    for budget in budgets:
        best = max(plain, key=lambda s: agg[s][budget][OVERALL].recall if OVERALL in agg[s][budget] else -1.0)
        base = agg[best][budget].get(OVERALL)
        if base is None:
            continue
        for system in engrams:
            mine = agg[system][budget].get(OVERALL)
            rows.append((budget, system, best, base.recall, mine.recall if mine else None,
                         mine.recall - base.recall if mine else None))
    return Table("Engram against the best plain retriever (B2, B2L, B2H) at each budget",
                 ("budget", "system", "best plain", "its recall", "Engram recall", "margin"), tuple(rows))


def _latency_table(outcomes: list[Outcome], systems: list[str]) -> Table:
    """Each system's recall wall time over every question and budget: the latency of a LoCoMo-sized store."""
    rows = []
    for system in systems:
        times = np.array([o.ms for o in outcomes if o.system == system])
        rows.append((system, len(times), float(np.percentile(times, 50)), float(np.percentile(times, 95))))
    return Table("Recall wall time per question and budget (ms; the machine's load is in the notes)",
                 ("system", "recalls", "p50 ms", "p95 ms"), tuple(rows))


def build_report(outcomes: list[Outcome], dataset: data.Dataset, budgets: tuple[int, ...],
                 settings: dict) -> Report:
    agg = aggregate(outcomes, dataset.apart)
    systems = list(dict.fromkeys(o.system for o in outcomes))
    categories = sorted({o.category for o in outcomes})
    head = "categories " + ", ".join(c for c in categories if c not in dataset.apart) if dataset.apart else "all"
    report = Report("retrieval", settings)
    report.tables += [
        _metric_table(f"Evidence recall ({head})", agg, systems, budgets, OVERALL, "recall"),
        _metric_table(f"Questions with all evidence present ({head})", agg, systems, budgets, OVERALL, "complete"),
        _metric_table(f"Mean context tokens used ({head})", agg, systems, budgets, OVERALL, "tokens"),
    ]
    margins = _margin_table(agg, systems, budgets)
    report.tables += [margins] if margins is not None else []
    report.tables += [_category_table(agg, systems, b, categories) for b in budgets]
    report.tables.append(_latency_table(outcomes, systems))
    report.results = {s: {str(b): {c: vars(cell) for c, cell in agg[s][b].items()} for b in budgets} for s in systems}
    report.figures.append(Figure("recall", f"Evidence recall vs budget ({dataset.name})", "token budget",
                                 "evidence recall", _series(agg, systems, budgets, "recall"), log_x=True))
    report.figures.append(Figure("tokens", "Context tokens used vs budget", "token budget", "mean tokens used",
                                 _series(agg, systems, budgets, "tokens"), log_x=True))
    return report


def _series(agg: Aggregate, systems: list[str], budgets: tuple[int, ...], metric: str) -> tuple[Series, ...]:
    return tuple(Series(s, tuple(float(b) for b in budgets),
                        tuple(getattr(agg[s][b].get(OVERALL), metric, 0.0) for b in budgets)) for s in systems)


def select(dataset: data.Dataset, skip: int, limit: int | None) -> list[data.ConversationIn]:
    chosen = dataset.conversations[skip:]
    return chosen[:limit] if limit is not None else chosen


@click.command(name="retrieval")
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="LoCoMo's JSON or the generic conversation format (see docs/benchmarks.md).")
@click.option("--budgets", default=DEFAULT_BUDGETS, show_default=True, help="Token budgets, comma-separated.")
@click.option("--conversations", "limit", type=click.IntRange(min=1), help="Only the first N conversations.")
@click.option("--skip", default=0, show_default=True, type=click.IntRange(min=0),
              help="Leave out the first N conversations (with --conversations: a held-out split).")
@click.option("--sleep", "nightly_sleep", is_flag=True,
              help="Also run Engram with its sleep cycle once a day (B3 Engram, nightly sleep), as a deployment "
                   "with timed consolidation does.")
@output_options
@handle_errors
def command(data_path: Path, budgets: str, limit: int | None, skip: int, nightly_sleep: bool,
            json_path: Path | None, plot_dir: Path | None) -> None:
    """Evidence recall of every system under token budgets, on conversations with questions."""
    require_plotting(plot_dir)
    chosen_budgets = parse_budgets(budgets)
    dataset = data.load_dataset(data_path)
    chosen = select(dataset, skip, limit)
    embedder = bench_embedder(current_embedder_name())
    started, outcomes = time.perf_counter(), []
    for conv in chosen:
        outcomes += run_conversation(conv, chosen_budgets, embedder, nightly_sleep)
    settings = {"data": dataset.name, "conversations": ",".join(c.id for c in chosen), "embedder": embedder.model_id,
                "nightly_sleep": nightly_sleep,
                "questions": sum(1 for c in chosen for q in c.questions if q.evidence)}
    report = build_report(outcomes, dataset, chosen_budgets, settings)
    skipped = sum(1 for c in chosen for q in c.questions if not q.evidence)
    report.notes.append(f"{skipped} questions without usable evidence were not asked; "
                        f"{dataset.dropped_evidence} evidence ids in the file name no turn and were dropped")
    report.notes.append(f"wall time {time.perf_counter() - started:.1f} s; machine load (1 min) at the end "
                        f"{machine_notes()['load_1min']} on {machine_notes()['cpus']} CPUs")
    emit(report, json_path, plot_dir)
