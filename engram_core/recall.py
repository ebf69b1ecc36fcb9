"""Recall: score every recallable memory (hot, or cold on a strong cue), veto stale siblings, pack, reinforce."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from engram_core import ledger
from engram_core.config import EngineConfig
from engram_core.index import ActiveIndex, epoch_hours
from engram_core.model import (
    Event, EventKind, Memory, MemoryKind, MemoryStatus, RecallItem, RecallResult, ScoreBreakdown,
)
from engram_core.packing import Packable, pack_under_budget
from engram_core.render import frame_text, render_block, render_line
from engram_core.retention import hours_between, reinforced_stability, retention
from engram_core.runtime import Runtime
from engram_core.scoring import CandidateArrays, breakdown_at, normalise_lexical, score_arrays


@dataclass(frozen=True)
class Candidate:
    memory: Memory
    score: ScoreBreakdown
    veto_key: str | None
    valid_from: datetime


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
    chosen = np.flatnonzero(_eligible(parts, cols["critical"][:size] > 0, index.alive[:size], rt.config))
    pool = rt.config.candidate_pool
    if len(chosen) > pool:
        top = np.argpartition(-parts["score"][chosen], pool - 1)[:pool]
        chosen = chosen[top]
    entries = index.entries
    return [Candidate(entries[i].memory, breakdown_at(parts, i), entries[i].veto_key, entries[i].valid_from)
            for i in chosen]


def _eligible(parts: dict[str, np.ndarray], critical: np.ndarray, alive: np.ndarray,
              config: EngineConfig) -> np.ndarray:
    """Hot memories (retention above the decay floor, or critical) always; faded ones only on a strong cue."""
    if not config.forgetting:
        return alive.copy()
    hot = alive & ((parts["retention"] >= config.decay_floor) | critical)
    return hot | _strong_cues(parts["similarity"], alive & ~hot, config)


def _strong_cues(similarity: np.ndarray, cold: np.ndarray, config: EngineConfig) -> np.ndarray:
    """The cold tier: the few faded memories whose hybrid match clears the wake threshold, best first."""
    woken = np.zeros_like(cold)
    found = np.flatnonzero(cold & (similarity >= config.wake_similarity))
    if len(found) > config.wake_pool > 0:
        found = found[np.argpartition(-similarity[found], config.wake_pool - 1)[:config.wake_pool]]
    woken[found[: config.wake_pool]] = True
    return woken


def _distinct(candidates: list[Candidate]) -> list[Candidate]:
    """One copy of a repeated text: the best-scored (freshest) one is packed and reinforced, the rest fade."""
    best: dict[str, Candidate] = {}
    for c in candidates:
        key = " ".join(c.memory.text.lower().split())
        if key not in best or c.score.score > best[key].score.score:
            best[key] = c
    return list(best.values())


def _veto(candidates: list[Candidate]) -> list[Candidate]:
    """Never two current values of a single-valued (subject, predicate): keep the newest."""
    drop = ledger.keep_newest([(c.memory.id, c.veto_key, c.valid_from) for c in candidates])
    return [c for c in candidates if c.memory.id not in drop]


def _packables(rt: Runtime, candidates: list[Candidate], lines: dict[str, str]) -> list[Packable]:
    """Distilled facts displace the raw episodes they came from."""
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
        tokens = rt.tokens.count(lines[c.memory.id] + "\n")
        packables.append(Packable(c.memory.id, c.score.score, tokens, displaces))
    return packables


def _pack(rt: Runtime, query: str, budget: int, candidates: list[Candidate],
          as_of: datetime | None) -> RecallResult:
    lines = {c.memory.id: render_line(c.memory.kind, c.memory.text, c.memory.created_at) for c in candidates}
    frame = rt.tokens.count(frame_text())
    chosen = pack_under_budget(_packables(rt, candidates, lines), budget - frame) if budget > frame else ()
    by_id = {c.memory.id: c for c in candidates}
    items = tuple(
        RecallItem(p.key, by_id[p.key].memory.kind, by_id[p.key].memory.text, lines[p.key], p.tokens,
                   by_id[p.key].score, by_id[p.key].memory.provenance, by_id[p.key].memory.created_at)
        for p in chosen
    )
    used = frame + sum(i.tokens for i in items) if items else 0
    return RecallResult(query, budget, items, used, render_block([i.line for i in items]), as_of)


def _reinforced(memory: Memory, now: datetime, rt: Runtime) -> Memory:
    """Packed into context: stability grows by how much had been forgotten since the last use."""
    held = retention(hours_between(memory.last_accessed_at, now), memory.stability_hours)
    stronger = replace(memory, stability_hours=reinforced_stability(memory.stability_hours, held, rt.config),
                       last_accessed_at=now, access_count=memory.access_count + 1)
    if memory.status is MemoryStatus.DECAYED:  # woken by a strong cue and used: back in ordinary recall
        stronger = replace(stronger, status=MemoryStatus.ACTIVE, status_changed_at=now)
    return stronger


def _matched(result: RecallResult, config: EngineConfig) -> list[str]:
    """The best few packed items the cue matched: filler packed only because room was left is not reinforced."""
    matched = [i for i in result.items if i.score.similarity >= config.reinforce_similarity]
    return [i.memory_id for i in sorted(matched, key=lambda i: -i.score.score)[: config.reinforce_top]]


def _reinforce(rt: Runtime, result: RecallResult, now: datetime) -> tuple[Event, ...]:
    """Only what was packed into context and matched the cue is reinforced, or forgetting never happens."""
    events = []
    with rt.store.transaction():
        for memory in rt.store.memories_by_ids(_matched(result, rt.config)):
            stronger = _reinforced(memory, now, rt)
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
    candidates = _distinct(_veto(_index_candidates(rt, rt.index(), query, qv, now)))
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
    index = ActiveIndex.build(qv.shape[0], rt.config, [(replace(m, status=MemoryStatus.ACTIVE), None) for m in memories])
    for pos in range(len(memories)):  # access history at ``when`` is unknown: count from creation
        index.columns["accessed_h"][pos] = index.columns["created_h"][pos]
    candidates = _index_candidates(rt, index, query, qv, when, active_only=False)
    beliefs = {b.memory_id: b for b in rt.store.beliefs_valid_at(when) if b.memory_id}
    candidates = [c for c in candidates if c.memory.belief_id is None or c.memory.id in beliefs]
    return _pack(rt, query, budget, candidates, when)
