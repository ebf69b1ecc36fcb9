"""``engram bench answers``: answer-level accuracy with a model, LoCoMo's "J" protocol.

For each question, every system packs its context under the budget (as in
``engram bench retrieval``), the answering model (the reply model, temperature 0)
answers from that context alone, and the judge (the bookkeeping model, temperature
0) grades the answer against the gold answer as CORRECT or WRONG, generous on
wording and date format, strict on the fact. It needs a Qwen Cloud key: the
figures are for users with one, never for CI (a smoke test drives it against a
local OpenAI-compatible server).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import click

from engram_bench import conversations as data
from engram_bench.baselines import PLAIN_RETRIEVERS, System, all_systems
from engram_bench.common import (
    Report, Table, bench_embedder, bench_settings, current_embedder_name, emit, output_options, progress,
)
from engram_bench.retrieval import OVERALL, conversation_turns, select
from engram_core.cli.common import handle_errors
from engram_core.core.errors import ConfigurationError
from engram_core.core.model import CallPurpose
from engram_core.providers.qwen import completion_from_response
from engram_core.providers.settings import KEY_VARIABLES, ProviderSettings
from engram_core.providers.transport import Transport
from engram_core.providers.usage import UsageMeter

ANSWER_SYSTEM = ("You answer questions about a long conversation between two people, using only the memories "
                 "given. Answer in a few words (a name, a date, a short phrase). If the memories do not say, "
                 "answer: not known.")
JUDGE_SYSTEM = ("You grade an answer against the gold answer to a question about a conversation. Be generous: "
                "the same fact in other words, a longer answer that contains it, or the same date in another "
                "format is CORRECT. An answer that misses or contradicts the gold answer, or says it is not "
                "known, is WRONG. Reply with JSON only: {\"label\": \"CORRECT\"} or {\"label\": \"WRONG\"}.")
DEFAULT_SYSTEMS = (*PLAIN_RETRIEVERS, "B3 Engram")


@dataclass(frozen=True)
class Graded:
    system: str
    category: str
    correct: bool
    context_tokens: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


class Grader:
    """The answering model and the judge, both at temperature 0, metered call by call."""

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings
        self.meter = UsageMeter(settings.prices)
        self.transport = Transport(settings, self.meter)

    def _ask(self, purpose: CallPurpose, model: str, system: str, user: str, as_json: bool) -> str:
        options: dict = {"temperature": 0, "extra_body": {"enable_thinking": False}}
        if as_json and self.settings.llm_json_mode:
            options["response_format"] = {"type": "json_object"}
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        create = self.transport.client.chat.completions.create
        sent = self.transport.send(purpose, model, lambda: completion_from_response(
            create(model=model, messages=messages, **options)))
        reply = sent.value
        self.meter.record(purpose, model, latency_ms=sent.latency_ms, attempts=sent.attempts,
                          prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens)
        return (reply.content or "").strip()

    def answer(self, context: str, question: str) -> str:
        memories = context or "(no memories)"
        return self._ask(CallPurpose.REPLY, self.settings.llm_strong_model, ANSWER_SYSTEM,
                         f"{memories}\n\nQuestion: {question}\nAnswer:", as_json=False)

    def judge(self, question: str, gold: str, answer: str) -> bool:
        verdict = self._ask(CallPurpose.ADJUDICATE, self.settings.llm_cheap_model, JUDGE_SYSTEM,
                            f"Question: {question}\nGold answer: {gold}\nAnswer to grade: {answer}", as_json=True)
        return _label(verdict) == "CORRECT"

    def spent(self) -> tuple[int, int, float]:
        calls = self.meter.drain_usage()
        return (sum(c.prompt_tokens for c in calls), sum(c.completion_tokens for c in calls),
                sum(c.cost_usd for c in calls))


def _label(verdict: str) -> str:
    """The judge's label; anything unreadable counts as WRONG."""
    try:
        label = json.loads(verdict).get("label", "")
    except (json.JSONDecodeError, AttributeError):
        label = "CORRECT" if verdict.strip().upper().startswith("CORRECT") else "WRONG"
    return str(label).strip().upper()


def require_key(settings: ProviderSettings) -> None:
    if not settings.qwen_active:
        raise ConfigurationError(
            "engram bench answers asks a model to answer and a model to judge: it needs a Qwen Cloud key "
            f"({' or '.join(KEY_VARIABLES)}); without one, `engram bench retrieval` measures evidence recall "
            "offline", field="api_key")


def grade_conversation(conv: data.ConversationIn, systems: list[System], grader: Grader, budget: int,
                       apart: tuple[str, ...], limit: int | None) -> list[Graded]:
    turns = conversation_turns(conv)
    for turn in progress(turns, f"{conv.id} ingest", unit="turn"):
        for system in systems:
            system.add(turn)
    asked = [q for q in conv.questions if q.answer and q.category not in apart][:limit]
    graded = []
    for question in progress(asked, f"{conv.id} questions", unit="q"):
        at = data.question_time(conv, question)
        for system in systems:
            context = system.recall(question.text, budget, at)
            reply = grader.answer(context.block, question.text)
            correct = grader.judge(question.text, question.answer or "", reply)
            prompt, completion, cost = grader.spent()
            graded.append(Graded(system.name, question.category, correct, context.tokens_used, prompt, completion,
                                 cost))
    return graded


def build_report(graded: list[Graded], settings: dict) -> Report:
    by: dict[tuple[str, str], list[Graded]] = defaultdict(list)
    for g in graded:
        by[(g.system, g.category)].append(g)
        by[(g.system, OVERALL)].append(g)
    systems = list(dict.fromkeys(g.system for g in graded))
    categories = sorted({g.category for g in graded})
    report = Report("answers", settings)

    def mean(rows: list[Graded], attr: str) -> float:
        return sum(float(getattr(r, attr)) for r in rows) / len(rows) if rows else 0.0

    report.tables.append(Table(
        "J accuracy (judge: CORRECT against the gold answer), tokens and cost per question",
        ("system", "J", "questions", "context tokens", "prompt tokens", "completion tokens", "USD per question",
         "USD total"),
        tuple((s, mean(by[(s, OVERALL)], "correct"), len(by[(s, OVERALL)]), mean(by[(s, OVERALL)], "context_tokens"),
               mean(by[(s, OVERALL)], "prompt_tokens"), mean(by[(s, OVERALL)], "completion_tokens"),
               mean(by[(s, OVERALL)], "cost_usd"), sum(g.cost_usd for g in by[(s, OVERALL)])) for s in systems)))
    report.tables.append(Table("J accuracy by category", ("system", *categories),
                               tuple((s, *[mean(by[(s, c)], "correct") if by[(s, c)] else None for c in categories])
                                     for s in systems)))
    report.results = {s: {c: mean(by[(s, c)], "correct") for c in [*categories, OVERALL]} for s in systems}
    return report


@click.command(name="answers")
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="LoCoMo's JSON or the generic conversation format (questions need an answer).")
@click.option("--budget", default=1024, show_default=True, type=click.IntRange(min=1), help="Context token budget.")
@click.option("--conversations", "limit", type=click.IntRange(min=1), help="Only the first N conversations.")
@click.option("--skip", default=0, show_default=True, type=click.IntRange(min=0),
              help="Leave out the first N conversations (as in bench retrieval: --skip 3 is the held-out split).")
@click.option("--questions", "per_conversation", type=click.IntRange(min=1),
              help="At most N questions per conversation (each costs two model calls per system).")
@click.option("--systems", "names", default=",".join(DEFAULT_SYSTEMS), show_default=True,
              help="Systems to compare, comma-separated, by their names in bench retrieval.")
@output_options
@handle_errors
def command(data_path: Path, budget: int, limit: int | None, skip: int, per_conversation: int | None, names: str,
            json_path: Path | None, plot_dir: Path | None) -> None:
    """Answer accuracy of each system's context, judged against the gold answers (needs a Qwen Cloud key)."""
    settings = bench_settings().providers
    require_key(settings)
    dataset = data.load_dataset(data_path)
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    embedder, grader = bench_embedder(current_embedder_name()), Grader(settings)
    started, graded = time.perf_counter(), []
    for conv in select(dataset, skip, limit):
        start = conversation_turns(conv)[0].at
        every = all_systems(embedder, start)
        systems = [s for s in every if s.name in wanted]
        for unwanted in (s for s in every if s.name not in wanted):
            unwanted.close()
        if not systems:
            raise ConfigurationError(f"no system named {names!r}; use names from bench retrieval", field="systems")
        try:
            graded += grade_conversation(conv, systems, grader, budget, dataset.apart, per_conversation)
        finally:
            for system in systems:
                system.close()
    report = build_report(graded, {"data": dataset.name, "budget": budget, "answer_model": settings.llm_strong_model,
                                   "judge_model": settings.llm_cheap_model, "embedder": embedder.model_id})
    report.notes.append(f"wall time {time.perf_counter() - started:.1f} s")
    emit(report, json_path, plot_dir)
