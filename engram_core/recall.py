"""Recall: score every active memory, veto stale siblings, pack under the budget, reinforce."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from engram_core import ledger
from engram_core.heuristics_lexicon import TOPIC_ALIASES
from engram_core.index import ActiveIndex, epoch_hours
from engram_core.model import (
    Belief, Event, EventKind, Memory, MemoryKind, MemoryStatus, RecallItem, RecallResult, ScoreBreakdown,
)
from engram_core.packing import Packable, pack_under_budget
from engram_core.render import (
    BlockForm, FactLabel, block_form, fact_label, fit_block, frame_text, line_cost, render_block, render_line,
)
from engram_core.retention import reinforced_stability
from engram_core.runtime import Runtime
from engram_core.scoring import CandidateArrays, breakdown_at, normalise_lexical, score_arrays


@dataclass(frozen=True)
class Candidate:
    memory: Memory
    score: ScoreBreakdown
    veto_key: str | None
    valid_from: datetime
    belief: Belief | None = None


def _lexical(rt: Runtime, query: str, positions: dict[str, int], size: int, active_only: bool) -> np.ndarray:
    raw = np.zeros(size, dtype=np.float64)
    for memory_id, value in rt.store.lexical_search(query, rt.config.candidate_pool, active_only):
        pos = positions.get(memory_id)
        if pos is not None:
            raw[pos] = value
    return normalise_lexical(raw)


def _index_candidates(rt: Runtime, index: ActiveIndex, query: str, qv: np.ndarray, now: datetime,
                      active_only: bool = True) -> list[Candidate]:
    """Vectorised scoring over the whole index; the best ``candidate_pool`` survive."""
    size = index.size()
    if len(index) == 0:
        return []
    cols, now_h = index.columns, epoch_hours(now)
    arrays = CandidateArrays(
        prior=cols["prior"][:size], importance=cols["importance"][:size], stability_hours=cols["stability"][:size],
        hours_since_access=np.maximum(now_h - cols["accessed_h"][:size], 0.0),
        hours_since_created=np.maximum(now_h - cols["created_h"][:size], 0.0),
        cosine=index.vectors[:size] @ qv, lexical=_lexical(rt, query, index.position, size, active_only),
    )
    parts = score_arrays(arrays, rt.config)
    eligible = index.alive[:size].copy()
    if rt.config.forgetting:
        eligible &= (parts["retention"] >= rt.config.decay_floor) | (cols["critical"][:size] > 0)
    chosen = np.flatnonzero(eligible)
    pool = rt.config.candidate_pool
    if len(chosen) > pool:
        top = np.argpartition(-parts["score"][chosen], pool - 1)[:pool]
        chosen = chosen[top]
    entries = index.entries
    return [Candidate(entries[i].memory, breakdown_at(parts, i), entries[i].veto_key, entries[i].valid_from,
                      entries[i].belief) for i in chosen]


def _veto(candidates: list[Candidate]) -> list[Candidate]:
    """Never two current values of a single-valued (subject, predicate): keep the newest."""
    drop = ledger.keep_newest([(c.memory.id, c.veto_key, c.valid_from) for c in candidates])
    return [c for c in candidates if c.memory.id not in drop]


def _packables(rt: Runtime, candidates: list[Candidate], form: BlockForm, lines: dict[str, str],
               tiers: dict[str, float]) -> list[Packable]:
    """Distilled facts displace the raw episodes they came from; ``tiers`` lift answers above the rest."""
    episodes_by_message: dict[str, list[str]] = {}
    for c in candidates:
        if c.memory.kind is MemoryKind.EPISODE:
            for mid in c.memory.provenance:
                episodes_by_message.setdefault(mid, []).append(c.memory.id)
    packables = []
    for c in candidates:
        displaces: tuple[str, ...] = ()
        if c.memory.belief_id is not None:
            displaces = tuple(e for mid in c.memory.provenance for e in episodes_by_message.get(mid, ()))
        tokens = line_cost(rt.tokens, form, lines[c.memory.id])
        packables.append(Packable(c.memory.id, c.score.score + tiers.get(c.memory.id, 0.0), tokens, displaces))
    return packables


_QUERY_WORD = re.compile(r"[a-z]+")
_NOT_CUES = frozenset("a an the in at on of to for by as is with from my i".split())
ANSWER_TIER = 2.0  # above any score (relevance is at most about 1.06): answers pack first


def _stem(word: str) -> str:
    """Plural and third-person forms meet their base: "lives" and "live", "bands" and "band"."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _cues(belief: Belief) -> frozenset[str]:
    """The words that name a belief's attribute: its label's, and the label's other names ("dish" for food)."""
    label = fact_label(belief.predicate) or ""
    words = set(_QUERY_WORD.findall(label)) - _NOT_CUES
    words |= {alias for alias, topic in TOPIC_ALIASES.items() if topic in words and "_" not in alias}
    return frozenset(_stem(w) for w in words)


def _answer_tiers(candidates: list[Candidate], query: str) -> dict[str, float]:
    """Current beliefs whose attribute the query names, ranked by how many of its words they answer.

    With room for a line or two the line must be the answer: "Where do I live now?" names
    lives_in, and a three-week-old home city beats a fresh, vaguely related memory.
    """
    asked = frozenset(_stem(w) for w in _QUERY_WORD.findall(query.lower())) - _NOT_CUES
    tiers = {}
    for c in candidates:
        matched = len(_cues(c.belief) & asked) if c.belief is not None else 0
        if matched:
            tiers[c.memory.id] = matched * ANSWER_TIER
    return tiers


def _line(c: Candidate, form: BlockForm) -> str:
    fact = FactLabel(c.belief.predicate, c.belief.object) if c.belief is not None else None
    return render_line(c.memory.kind, c.memory.text, c.memory.created_at, form, fact)


def _pack(rt: Runtime, query: str, budget: int, candidates: list[Candidate],
          as_of: datetime | None) -> RecallResult:
    form = block_form(budget, rt.config.full_block_from_tokens)
    lines = {c.memory.id: _line(c, form) for c in candidates}
    frame = rt.tokens.count(frame_text(form))
    tiers = _answer_tiers(candidates, query) if form is BlockForm.COMPACT else {}
    packables = _packables(rt, candidates, form, lines, tiers)
    chosen = pack_under_budget(packables, budget - frame) if budget > frame else ()
    kept, used = fit_block(rt.tokens, form, [lines[p.key] for p in chosen], budget)
    by_id = {c.memory.id: c for c in candidates}
    items = tuple(
        RecallItem(p.key, by_id[p.key].memory.kind, by_id[p.key].memory.text, lines[p.key], p.tokens,
                   by_id[p.key].score, by_id[p.key].memory.provenance, by_id[p.key].memory.created_at)
        for p in chosen[:kept]
    )
    return RecallResult(query, budget, items, used, render_block([i.line for i in items], form), as_of)


def _reinforce(rt: Runtime, result: RecallResult, now: datetime) -> tuple[Event, ...]:
    """Only what was packed into context is reinforced, or forgetting never happens."""
    events = []
    with rt.store.transaction():
        for memory in rt.store.memories_by_ids([i.memory_id for i in result.items]):
            stronger = replace(memory, stability_hours=reinforced_stability(memory.stability_hours, rt.config),
                               last_accessed_at=now, access_count=memory.access_count + 1)
            rt.store.update_memory(stronger)
            rt.index_update(stronger)
        for item in result.items:
            events.append(rt.event(EventKind.RECALLED, memory_id=item.memory_id, at=now,
                                   score=item.score.score, tokens=item.tokens))
        rt.store.insert_events(events)
    return tuple(events)


def recall_now(rt: Runtime, query: str, budget: int, reinforce: bool = True) -> RecallResult:
    qv = rt.embed([query])[0]
    now = rt.now()
    candidates = _veto(_index_candidates(rt, rt.index(), query, qv, now))
    result = _pack(rt, query, budget, candidates, None)
    if reinforce and result.items:
        result = replace(result, events=_reinforce(rt, result, now))
    return result


def _alive_at(memory: Memory, when: datetime) -> bool:
    if memory.created_at > when or memory.status is MemoryStatus.DELETED:
        return False
    if memory.status is MemoryStatus.ACTIVE:
        return True
    return memory.status_changed_at is not None and memory.status_changed_at > when


def recall_as_of(rt: Runtime, query: str, budget: int, when: datetime) -> RecallResult:
    """What recall would have packed at ``when``: memories alive then, scored then. No writes."""
    qv = rt.embed([query])[0]
    memories = [m for m in rt.store.memories() if _alive_at(m, when) and m.embedding is not None
                and m.embedding.dim == qv.shape[0]]
    beliefs = {b.memory_id: b for b in rt.store.beliefs_valid_at(when) if b.memory_id}
    rows = [(replace(m, status=MemoryStatus.ACTIVE), beliefs.get(m.id)) for m in memories]
    index = ActiveIndex.build(qv.shape[0], rt.config, rows)
    for pos in range(len(memories)):  # access history at ``when`` is unknown: count from creation
        index.columns["accessed_h"][pos] = index.columns["created_h"][pos]
    candidates = _index_candidates(rt, index, query, qv, when, active_only=False)
    candidates = [c for c in candidates if c.memory.belief_id is None or c.memory.id in beliefs]
    return _pack(rt, query, budget, candidates, when)
