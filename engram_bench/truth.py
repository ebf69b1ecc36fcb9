"""``engram bench truth``: does the ledger hold on ordinary phrasing?

The cases (``data/truth-cases.json``, see ``truth_cases``) are short conversations a
user might have: moves, new jobs, renames, diets, family news, preferences given up,
corrections, facts that coexist, and talk that must change nothing (chatter, questions,
wishes, the past, what others said). Each case runs in fresh stores of every system;
Engram's ledger is judged after the last message and every system's context at the
probe. The cases are split once, by id, into a development half (the one to tune on)
and a held-out half; both are reported, per kind.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import click

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.adapters.tokens import default_token_counter
from engram_bench.baselines import ENGRAM, CosineTopK, LexicalTopK, Turn
from engram_bench.common import (
    BENCH_START, CachingEmbedder, bench_embedder, bench_settings, current_embedder_name, emit, output_options,
    parse_budgets, progress, require_plotting,
)
from engram_bench.scenario import PROBE_DELAY, timed_sessions
from engram_bench.truth_cases import (
    CaseIn, CaseRun, PackedItem, ProbeOutcome, found, judge_ledger, load_cases, stale,
)
from engram_bench.truth_report import build_report, failure_lines
from engram_core.cli.common import handle_errors
from engram_core.core.config import EngineConfig
from engram_core.usecases.engine import Engine
from engram_core.core.errors import ConfigurationError
from engram_core.core.model import Belief, MemoryKind
from engram_core.core.ports import LLM, Embedder, TokenCounter
from engram_core.providers.settings import ProviderSettings

DEFAULT_BUDGETS = "64,256"
SPLITS = ("dev", "heldout")


class EngramUnderTest:
    """Engram through its public API, with the bookkeeper under test; items keep their beliefs."""

    name = ENGRAM

    def __init__(self, embedder: Embedder, llm: LLM, tokens: TokenCounter, start: datetime) -> None:
        self.clock = FixedClock(start)
        self.engine = Engine(SqliteStore(":memory:"), embedder=embedder, llm=llm, tokens=tokens, clock=self.clock,
                             config=EngineConfig())
        self.message_number: dict[str, int] = {}

    def _advance(self, moment: datetime) -> None:
        if moment > self.clock.now():
            self.clock.set(moment)

    def add(self, turn: Turn, number: int) -> None:
        self._advance(turn.at)
        result = self.engine.observe(turn.text, session_id=turn.session_id, message_id=turn.id, occurred_at=turn.at)
        if result.message is not None:
            self.message_number[result.message.id] = number

    def packed(self, query: str, budget: int, at: datetime) -> tuple[list[PackedItem], str, int]:
        self._advance(at)
        result = self.engine.recall(query, budget, reinforce=False)
        beliefs = {b.memory_id: b for b in self.engine.store.all_beliefs() if b.memory_id}
        items = [self._item(i.memory_id, i.kind, i.line, i.source_message_ids, beliefs) for i in result.items]
        return items, result.block, result.tokens_used

    def _item(self, memory_id: str, kind: MemoryKind, line: str, sources: Sequence[str],
              beliefs: dict[str, Belief]) -> PackedItem:
        if memory_id in beliefs:
            return PackedItem(line, (), beliefs[memory_id])
        raw = tuple(self.message_number[m] for m in sources if m in self.message_number)
        return PackedItem(line, raw if kind is MemoryKind.EPISODE else ())

    def beliefs(self) -> list[Belief]:
        return self.engine.store.all_beliefs()

    def close(self) -> None:
        self.engine.close()


def _baseline_items(system: CosineTopK | LexicalTopK, query: str, budget: int, at: datetime,
                    numbers: dict[str, int]) -> tuple[list[PackedItem], str, int]:
    context = system.recall(query, budget, at)
    items = [PackedItem(i.line, tuple(numbers[s] for s in i.sources if s in numbers)) for i in context.items]
    return items, context.block, context.tokens_used


def run_case(case: CaseIn, embedder: CachingEmbedder, llm: LLM, budgets: tuple[int, ...]) -> CaseRun:
    turns, ended = timed_sessions(case.sessions, BENCH_START, prefix=f"{case.id}-s")
    numbers = {t.id: n for n, t in enumerate(turns, start=1)}
    tokens = default_token_counter()
    full_from = EngineConfig().full_block_from_tokens
    baselines = [CosineTopK(tokens, embedder, full_from), LexicalTopK(tokens, full_from)]
    engram = EngramUnderTest(embedder, llm, tokens, BENCH_START)
    try:
        for turn in turns:
            for baseline in baselines:
                baseline.add(turn)
            engram.add(turn, numbers[turn.id])
        ask_at = ended + PROBE_DELAY
        probes = []
        for budget in budgets:
            answers = [(b.name, _baseline_items(b, case.probe.query, budget, ask_at, numbers)) for b in baselines]
            answers.append((engram.name, engram.packed(case.probe.query, budget, ask_at)))
            probes += [ProbeOutcome(case.id, name, budget, found(block, case.probe), stale(case, items), used)
                       for name, (items, block, used) in answers]
        return CaseRun(case, judge_ledger(case, engram.beliefs()), tuple(probes))
    finally:
        engram.close()
        for baseline in baselines:
            baseline.close()


def bookkeeper(name: str, embedder: Embedder, settings: ProviderSettings) -> LLM:
    """The offline heuristics, or Qwen's bookkeeping model when a key is set (a clear refusal otherwise)."""
    if name == "offline":
        from engram_core.adapters.offline.llm import OfflineLLM

        return OfflineLLM()
    from engram_core.providers import build_providers
    from engram_core.providers.settings import KEY_VARIABLES

    if not settings.qwen_active:
        raise ConfigurationError(f"--llm qwen needs a Qwen Cloud key: set {' or '.join(KEY_VARIABLES)} "
                                 "(and not ENGRAM_PROVIDER=offline)", field="llm")
    return build_providers(settings, embedder=embedder).llm


def select(cases: list[CaseIn], split: str, kinds: tuple[str, ...], limit: int | None) -> list[CaseIn]:
    chosen = [c for c in cases if (split == "both" or c.split == split) and (not kinds or c.kind in kinds)]
    if limit is not None:  # the first ``limit`` of each kind and split, for a quick look
        counts: dict[tuple[str, str], int] = {}
        kept = []
        for case in chosen:
            key = (case.kind, case.split)
            counts[key] = counts.get(key, 0) + 1
            if counts[key] <= limit:
                kept.append(case)
        chosen = kept
    return chosen


@click.command(name="truth")
@click.option("--file", "path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A case file; default: the cases shipped with Engram.")
@click.option("--split", type=click.Choice(["dev", "heldout", "both"]), default="both", show_default=True,
              help="Which half to run: dev (tune on it), heldout (report it), or both.")
@click.option("--kind", "kinds", multiple=True, help="Only cases of this kind (repeatable).")
@click.option("--per-kind", "per_kind", type=click.IntRange(min=1),
              help="Only the first N cases of each kind and split (a quick look).")
@click.option("--budgets", default=DEFAULT_BUDGETS, show_default=True, help="Token budgets, comma-separated.")
@click.option("--llm", "llm_name", type=click.Choice(["offline", "qwen"]), default="offline", show_default=True,
              help="The bookkeeper: the offline heuristics, or Qwen (needs a Qwen Cloud key; makes paid calls).")
@click.option("--failures", is_flag=True, help="List every case that went wrong, with what went wrong.")
@output_options
@handle_errors
def command(path: Path | None, split: str, kinds: tuple[str, ...], per_kind: int | None, budgets: str,
            llm_name: str, failures: bool, json_path: Path | None, plot_dir: Path | None) -> None:
    """False beliefs, false supersessions, updates caught and stale context on user-style conversations."""
    require_plotting(plot_dir)
    chosen_budgets = parse_budgets(budgets)
    cases = select(load_cases(path), split, kinds, per_kind)
    if not cases:
        raise click.UsageError("no case matches the --split/--kind choice")
    embedder = bench_embedder(current_embedder_name())
    llm = bookkeeper(llm_name, embedder, bench_settings().providers)
    embedder.warm([m for c in cases for m in c.messages()] + [c.probe.query for c in cases])
    started = time.perf_counter()
    runs = [run_case(c, embedder, llm, chosen_budgets) for c in progress(cases, "cases", unit="case")]
    settings = {"cases": len(runs), "messages": sum(len(r.case.messages()) for r in runs), "split": split,
                "llm": llm.model_id, "embedder": embedder.model_id}
    report = build_report(runs, chosen_budgets, settings)
    if failures:
        wrong = failure_lines(runs, max(chosen_budgets))
        report.notes.append(f"{len(wrong)} cases went wrong" + "".join(f"\n  {line}" for line in wrong))
    report.notes.append(f"wall time {time.perf_counter() - started:.1f} s")
    emit(report, json_path, plot_dir)
