"""Recall's pool and its packing: each candidate's line, day and cost, the answer tiers, the budget, the items.

Runs over every candidate of every recall (400 at 10,000 memories), so each step is one pass over the
pool in its order, reading what the index holds: a line and its cost kept in each row's record, the day
headings counted once per day (``render.day_headings``), displacements looked for only when a candidate
states a belief, and the breakdowns of the packed items read from the score arrays together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

import numpy as np

from engram_core.core.answers import ANSWER_TIER, answer_tiers, attribute_label, named_by_meaning
from engram_core.core.index import IndexEntry
from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind, RecallItem, RecallResult
from engram_core.core.packing import Packable, pack_under_budget
from engram_core.core.render import (
    BlockForm, FactLabel, block_form, day_headings, fit_block, frame_text, line_cost, render_block, render_line,
)
from engram_core.core.scoring import breakdowns_at
from engram_core.core.words import carries, meaning
from engram_core.usecases.runtime import Runtime

class Candidate(NamedTuple):  # a tuple: 400 are made per recall, a frozen dataclass took twice as long
    id: str  # the memory's
    entry: IndexEntry  # the row's fields, read from its record: the memory is made only when asked for
    position: int  # row in the score arrays
    score: float  # rounded as in the breakdown: the packing order

    @property
    def memory(self) -> Memory:
        return self.entry.memory


@dataclass(frozen=True, eq=False)
class Pool:
    """The best candidates, and every score component to explain the few that get packed."""

    candidates: list[Candidate]
    parts: dict[str, np.ndarray]
    fillers: frozenset[str] = frozenset()  # faded memories that match too weakly to wake: they only fill room


FILLER_OFFSET = 10.0  # below any score and answer tier: a filler packs only into room nothing else took


class Headings(NamedTuple):
    """Each candidate's day in the full block (in pool order; "" in the compact form) and what that day's
    heading costs (none in the compact form)."""

    day: list[str]
    tokens: dict[str, int]


def _headings(rt: Runtime, candidates: list[Candidate], form: BlockForm) -> Headings:
    if form is not BlockForm.FULL:
        return Headings([""] * len(candidates), {})
    days, costs = day_headings(rt.tokens, [c.entry.created_at for c in candidates])
    return Headings(days, costs)


def _displacements(candidates: list[Candidate], history: Callable[[], frozenset[str]]) -> dict[str, tuple[str, ...]]:
    """A distilled fact displaces the raw episode it came from when it carries what the episode said
    (a name fact never stands in for the sentence that also gave the job). Only a candidate stating a
    belief displaces anything: without one, no episode is looked up."""
    facts = [c for c in candidates if c.entry.belief_id is not None]
    if not facts:
        return {}
    episodes_by_message: dict[str, list[IndexEntry]] = {}
    for c in candidates:
        if c.entry.kind is MemoryKind.EPISODE:
            for mid in c.entry.provenance:
                episodes_by_message.setdefault(mid, []).append(c.entry)
    return {c.id: tuple(e.id for mid in c.entry.provenance for e in episodes_by_message.get(mid, ())
                        if carries(c.entry.text, e.text, history())) for c in facts}


def _packables(candidates: list[Candidate], costs: list[int], tiers: dict[str, float],
               fillers: frozenset[str] = frozenset(), history: Callable[[], frozenset[str]] = frozenset,
               headings: Headings | None = None) -> list[Packable]:
    """Each candidate as the packer takes it (``costs`` and ``headings`` in pool order); ``tiers`` lift
    answers above the rest."""
    displaces = _displacements(candidates, history)
    days = headings.day if headings else [""] * len(candidates)
    day_tokens = headings.tokens if headings else {}
    return [Packable(c.id, c.score + tiers.get(c.id, 0.0) - (FILLER_OFFSET if c.id in fillers else 0.0), cost,
                     displaces.get(c.id, ()), day, day_tokens.get(day, 0))
            for c, cost, day in zip(candidates, costs, days, strict=True)]


def _retired_words(rt: Runtime) -> Callable[[], frozenset[str]]:
    """What the ledger's retired values say, read at most once a recall and only when a fact could stand
    in for a sentence."""
    found: list[frozenset[str]] = []

    def words() -> frozenset[str]:
        if not found:
            found.append(meaning(" ".join(b.object for b in rt.store.all_beliefs() if not b.is_current())))
        return found[0]
    return words


def _line(entry: IndexEntry, form: BlockForm) -> str:
    belief = entry.belief
    fact = FactLabel(belief.predicate, belief.object, belief.subject) if belief is not None else None
    return render_line(entry.kind, entry.text, entry.created_at, form, fact)


def _rendered(rt: Runtime, candidates: list[Candidate], form: BlockForm) -> list[tuple[str, int]]:
    """Each candidate's line in this form and what it adds to the block (cached in the index), in pool order."""
    def render(entry: IndexEntry) -> str:
        return _line(entry, form)

    def count(line: str) -> int:
        return line_cost(rt.tokens, form, line)
    return [c.entry.line_and_tokens(form, render, count) for c in candidates]


def _items(candidates: list[Candidate], lines: list[str], costs: list[int],
           parts: dict[str, np.ndarray]) -> tuple[RecallItem, ...]:
    scores = breakdowns_at(parts, [c.position for c in candidates])
    return tuple(RecallItem(c.id, c.entry.kind, c.entry.text, line, tokens, score, c.entry.provenance,
                            c.entry.created_at)
                 for c, line, tokens, score in zip(candidates, lines, costs, scores, strict=True))


def _tiers_by_meaning(rt: Runtime, qv: np.ndarray, beliefs: Sequence[tuple[str, Belief | None]]) -> dict[str, float]:
    """When no word of the question names an attribute: the one its meaning names, if any, leads.

    Only single-valued attributes (one current value: where one lives, one's employer), so the
    answer is one line and a label many beliefs share ("likes") never floods the block.
    """
    labels = {mid: label for mid, belief in beliefs
              if belief is not None and belief.cardinality is Cardinality.ONE and (label := attribute_label(belief))}
    distinct = sorted(set(labels.values()))
    if not distinct:
        return {}
    similarity = dict(zip(distinct, (rt.label_vectors(distinct) @ qv).tolist(), strict=True))
    named = named_by_meaning(similarity, rt.config.answer_similarity, rt.config.answer_margin)
    return {mid: ANSWER_TIER for mid, label in labels.items() if label == named} if named else {}


def pack_pool(rt: Runtime, query: str, qv: np.ndarray, budget: int, pool: Pool,
              as_of: datetime | None) -> RecallResult:
    """The pool packed under ``budget``: the items, best first, and the block they make."""
    candidates, form = pool.candidates, block_form(budget, rt.config.full_block_from_tokens)
    rendered = _rendered(rt, candidates, form)
    frame = rt.tokens.count(frame_text(form))
    beliefs = [(c.id, belief) for c in candidates if (belief := c.entry.belief) is not None]  # None answers nothing
    tiers = answer_tiers(beliefs, query) or _tiers_by_meaning(rt, qv, beliefs)
    packables = _packables(candidates, [tokens for _, tokens in rendered], tiers, pool.fillers, _retired_words(rt),
                           _headings(rt, candidates, form))
    chosen = pack_under_budget(packables, budget - frame) if budget > frame else ()
    at = {c.id: n for n, c in enumerate(candidates)}
    packed = [candidates[at[p.key]] for p in chosen]
    lines = [rendered[at[p.key]][0] for p in chosen]
    times = [c.entry.created_at for c in packed]
    kept, used = fit_block(rt.tokens, form, lines, budget, times)
    items = _items(packed[:kept], lines[:kept], [p.tokens for p in chosen[:kept]], pool.parts)
    block = render_block(lines[:kept], form, times[:kept])
    return RecallResult(query, budget, items, used, block, as_of)
