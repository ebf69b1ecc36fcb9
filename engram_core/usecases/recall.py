"""Recall: score every recallable memory (hot, or cold on a strong cue), veto stale siblings, pack, reinforce."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import overload
from datetime import datetime, timezone

import numpy as np

from engram_core.core import ledger
from engram_core.core.asked import asked_slots, named_people, outdated, states, told_of
from engram_core.core.asked_things import asked_things, stopped
from engram_core.core.broad_slots import may_name_broadly, slots_named_broadly
from engram_core.core.config import EngineConfig
from engram_core.core.entities import named_entities
from engram_core.core.index import ActiveIndex, epoch_hours
from engram_core.core.model import AccessState, Belief, Event, EventKind, Memory, MemoryStatus, RecallResult
from engram_core.core.restatements import demoted, restated, retracted, retracts
from engram_core.core.slots import SLOT_CHANGED, asks_about_the_past, slot_restated
from engram_core.core.retention import hours_between, reinforced_stability, retention
from engram_core.core.scoring import CandidateArrays, normalise_lexical, rank_fusion, rounded, score_arrays
from engram_core.core.timeframes import TOLD_WITHIN, named_window
from engram_core.usecases.recall_pack import Candidate, Pool, pack_pool
from engram_core.usecases.runtime import Runtime


class _Pairs(Sequence[tuple[Memory, Belief | None]]):
    """Each candidate's memory and belief, made only when the veto asks (a Memory made for each of 400
    candidates was a third of the slot veto's cost in ``engram bench scale``)."""

    def __init__(self, candidates: list[Candidate]) -> None:
        self._candidates = candidates
        self._made: dict[int, tuple[Memory, Belief | None]] = {}

    def __len__(self) -> int:
        return len(self._candidates)

    @overload
    def __getitem__(self, at: int) -> tuple[Memory, Belief | None]: ...

    @overload
    def __getitem__(self, at: slice) -> Sequence[tuple[Memory, Belief | None]]: ...

    def __getitem__(self, at: int | slice) -> tuple[Memory, Belief | None] | Sequence[tuple[Memory, Belief | None]]:
        if isinstance(at, slice):
            return [self[i] for i in range(len(self))[at]]
        if at not in self._made:
            entry = self._candidates[at].entry
            self._made[at] = (entry.memory, entry.belief)
        return self._made[at]


def _without_restated(rt: Runtime, index: ActiveIndex, pool: Pool, query: str) -> Pool:
    """Recall's pool without the restated memories, possibly stale ones ranked lower (``restatements``).
    The slot veto keeps out an older value only for a question about now: "When did I move to Lisbon?"
    asks for the history it would hide."""
    candidates = pool.candidates
    if not candidates:
        return pool
    drop: set[str] = set()
    config, vectors = rt.config, None
    if config.restatement_similarity <= 1.0:  # above 1 the veto is off: skip even its inputs
        vectors = index.vectors[[c.position for c in candidates]]
        drop = restated([(c.memory, c.entry.belief) for c in candidates], vectors, config.restatement_similarity,
                        [c.entry.states_a_change for c in candidates])
    retractions = [c.entry.states_a_change and retracts(c.memory) for c in candidates] \
        if config.retraction_similarity <= 1.0 else []  # off (the default): no cue scan on the hot path
    if any(retractions):
        vectors = index.vectors[[c.position for c in candidates]] if vectors is None else vectors
        drop |= retracted([(c.memory, c.entry.belief) for c in candidates], vectors, config.retraction_similarity,
                          retractions)
    slots = [c.entry.slots for c in candidates] \
        if config.slot_veto_similarity <= 1.0 and not asks_about_the_past(query) else []
    if any(changed for changed, _ in slots):
        vectors = index.vectors[[c.position for c in candidates]] if vectors is None else vectors
        drop |= slot_restated(_Pairs(candidates), vectors, config.slot_veto_similarity,
                              [changed for changed, _ in slots], [named for _, named in slots])
    asked = asked_slots(query) if config.asked_slot_recency else frozenset()
    if asked:
        vectors = index.vectors[[c.position for c in candidates]] if vectors is None else vectors
        named: list[Collection[str]] = [c.entry.slots_named_broadly if may_name_broadly(c.entry.text, asked)
                                        else c.entry.slots[1] for c in candidates]
        told = _told_by_name(rt, candidates, asked, named)
        drop |= outdated(_Pairs(candidates), named, asked, vectors,
                         lambda i, slot: states(told[i], slot) if i in told else candidates[i].entry.states(slot))
    things = asked_things(query) if config.asked_slot_recency else frozenset()
    if things:  # "Do I still drink coffee?": an older word on the coffee, once a newer one says it stopped
        drop |= stopped([c.entry for c in candidates], things)
    flagged = rt.store.possibly_stale()
    if flagged and not asks_about_the_past(query):  # an older home the bookkeeper read a new one for
        drop |= {c.id for c in candidates if flagged.get(c.id, "").startswith(SLOT_CHANGED)}
    elif flagged:  # asked about the past, the older words of a changed slot are the answer: not demoted
        flagged = {mid: why for mid, why in flagged.items() if not why.startswith(SLOT_CHANGED)}
    kept = demoted([c for c in candidates if c.id not in drop], flagged, rt.config.possibly_stale_factor)
    return replace(pool, candidates=kept)


def _told_by_name(rt: Runtime, candidates: list[Candidate], asked: frozenset[str],
                  named: list[Collection[str]]) -> dict[int, str]:
    """For a question about someone's slot ("Where does my sister live?"), the candidates that name that person
    by name ("Ana moved to Lisbon"), read as told of them ("my sister moved to Lisbon"); ``named`` updated."""
    if not any(":" in slot for slot in asked):
        return {}
    people = named_people(rt.store.current_beliefs(subject="user"), (c.entry.text for c in candidates), asked)
    told = {i: told_of(c.entry.text, people) for i, c in enumerate(candidates)
            if any(name in c.entry.text for name in people)}
    for i, text in told.items():
        named[i] = slots_named_broadly(text)
    return told


def _lexical(rt: Runtime, query: str, positions: dict[str, int], size: int,
             active_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """BM25 evidence per row, scaled to [0, 1], and the matching rows best first."""
    raw = np.zeros(size, dtype=np.float64)
    found = [(pos, value) for memory_id, value in rt.store.lexical_search(query, rt.config.candidate_pool, active_only)
             if (pos := positions.get(memory_id)) is not None]
    ranked = np.array([pos for pos, _ in found], dtype=np.int64)
    raw[ranked] = [value for _, value in found]
    return normalise_lexical(raw), ranked


def _links(links: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Links to rows still in recall; -1 for the rest."""
    return np.where((links >= 0) & alive[np.maximum(links, 0)], links, -1)


def _named(index: ActiveIndex, query: str, size: int, share: float) -> np.ndarray | None:
    """1.0 for rows whose speaker or subject the query names (entity links), None when it names none."""
    if share <= 0 or not index.entity_ids:
        return None
    named = named_entities(query, index.entity_ids)
    return np.isin(index.entity[:size], named).astype(np.float64) if named else None


def _dated(index: ActiveIndex, query: str, size: int, now: datetime, share: float) -> np.ndarray | None:
    """1.0 for rows recorded in the time the query names (or in the days after), None when it names none."""
    window = named_window(query, now.replace(tzinfo=None)) if share > 0 else None
    if window is None:
        return None
    start, end = (epoch_hours(t.replace(tzinfo=timezone.utc)) for t in (window[0], window[1] + TOLD_WITHIN))
    created = index.columns["created_h"][:size]
    return ((created >= start) & (created < end)).astype(np.float64)


def _index_candidates(rt: Runtime, index: ActiveIndex, query: str, qv: np.ndarray, now: datetime,
                      active_only: bool = True) -> Pool:
    """Vectorised scoring over the whole index; the best ``candidate_pool`` survive."""
    size = index.size()
    if len(index) == 0:
        return Pool([], {})
    cols, now_h, w = index.columns, epoch_hours(now), rt.config.weights
    cosine = index.vectors[:size] @ qv
    lexical, lexical_rows = _lexical(rt, query, index.position, size, active_only)
    alive = index.alive[:size]
    arrays = CandidateArrays(
        prior=cols["prior"][:size], importance=cols["importance"][:size], stability_hours=cols["stability"][:size],
        hours_since_access=np.maximum(now_h - cols["accessed_h"][:size], 0.0),
        hours_since_created=np.maximum(now_h - cols["created_h"][:size], 0.0),
        cosine=cosine, lexical=lexical,
        fused=rank_fusion(np.where(alive, cosine, -1.0), lexical_rows, rt.config.candidate_pool)
        if w.rank_fusion > 0 else None,
        previous=_links(index.previous[:size], alive) if w.neighbours > 0 else None,
        following=_links(index.following[:size], alive) if w.neighbours > 0 else None,
        named=_named(index, query, size, w.entity),
        dated=_dated(index, query, size, now, w.timeframe),
    )
    parts = score_arrays(arrays, rt.config)
    eligible, cold = _eligible(parts, cols["critical"][:size] > 0, cols["archived"][:size] > 0, alive, rt.config)
    chosen = np.flatnonzero(eligible)
    pool = rt.config.candidate_pool
    if len(chosen) > pool:
        top = np.argpartition(-parts["score"][chosen], pool - 1)[:pool]
        chosen = chosen[top]
    room_in_cold_tier = max(0, rt.config.wake_pool - int(np.count_nonzero(eligible & cold)))
    fill = _best_of(parts["similarity"], cold & ~eligible, rt.config.fill_similarity, room_in_cold_tier)
    entries = index.entries
    chosen = np.concatenate([chosen, fill])
    positions = chosen.tolist()
    views = entries.views(positions)  # a loaded index reads the entries it lacks in one query
    # Scores rounded as in the breakdown: the packing order.
    candidates = list(map(Candidate, entries.ids_at(chosen), views, positions, rounded(parts["score"][chosen])))
    return Pool(candidates, parts, frozenset(entries.ids_at(fill)))


def _eligible(parts: dict[str, np.ndarray], critical: np.ndarray, archived: np.ndarray, alive: np.ndarray,
              config: EngineConfig) -> tuple[np.ndarray, np.ndarray]:
    """Hot memories (retention above the decay floor, or critical) always; faded and archived ones (the
    cold tier, also returned) only on a strong cue. Without forgetting every memory but the archived is hot."""
    hot = alive & ~archived
    if config.forgetting:
        hot &= (parts["retention"] >= config.decay_floor) | critical
    cold = alive & ~hot
    return hot | _strong_cues(parts["similarity"], cold, config), cold


def _strong_cues(similarity: np.ndarray, cold: np.ndarray, config: EngineConfig) -> np.ndarray:
    """The cold tier: the few faded memories whose hybrid match clears the wake threshold, best first."""
    woken = np.zeros_like(cold)
    woken[_best_of(similarity, cold, config.wake_similarity, config.wake_pool)] = True
    return woken


def _best_of(similarity: np.ndarray, among: np.ndarray, least: float, most: int) -> np.ndarray:
    """Positions of at most ``most`` of ``among`` whose similarity is at least ``least``, best first."""
    if most <= 0:
        return np.zeros(0, dtype=np.int64)
    found = np.flatnonzero(among & (similarity >= least))
    if len(found) > most:
        found = found[np.argpartition(-similarity[found], most - 1)[:most]]
    return found[:most]


def _distinct(pool: Pool) -> Pool:
    """One copy of a repeated text: the best-scored (freshest) one is packed and reinforced, the rest fade."""
    best: dict[str, Candidate] = {}
    for c in pool.candidates:
        key = c.entry.text_key
        if key not in best or c.score > best[key].score:
            best[key] = c
    return replace(pool, candidates=list(best.values()))


def _veto(pool: Pool) -> Pool:
    """Never two current values of a single-valued (subject, predicate): keep the newest."""
    keyed = [(c.id, key, c.entry.valid_from) for c in pool.candidates if (key := c.entry.veto_key) is not None]
    drop = ledger.keep_newest(keyed)  # a row without a key is never dropped: only the keyed are compared
    return replace(pool, candidates=[c for c in pool.candidates if c.id not in drop]) if drop else pool


def _reinforced(memory: Memory, now: datetime, config: EngineConfig) -> Memory:
    """Packed into context: stability grows by how much had been forgotten since the last use."""
    held = retention(hours_between(memory.last_accessed_at, now), memory.stability_hours)
    stronger = replace(memory, stability_hours=reinforced_stability(memory.stability_hours, held, config),
                       last_accessed_at=now, access_count=memory.access_count + 1)
    if memory.status is MemoryStatus.DECAYED:  # woken by a strong cue and used: back in ordinary recall
        stronger = replace(stronger, status=MemoryStatus.ACTIVE, status_changed_at=now)
    return stronger


def _matched(result: RecallResult, config: EngineConfig, fillers: frozenset[str]) -> list[str]:
    """The best few packed items the cue matched: filler packed only because room was left is not reinforced."""
    matched = [i for i in result.items
               if i.score.similarity >= config.reinforce_similarity and i.memory_id not in fillers]
    return [i.memory_id for i in sorted(matched, key=lambda i: -i.score.score)[: config.reinforce_top]]


def _reinforce(rt: Runtime, result: RecallResult, now: datetime, fillers: frozenset[str]) -> tuple[Event, ...]:
    """Only what was packed and matched the cue is reinforced, or forgetting never happens.

    A woken decayed memory is active again (a full-row write); the rest, a woken archived one
    included (its gist still stands for it in ordinary recall), change their access state alone.
    """
    index = rt.index_if_loaded()
    with rt.store.transaction():
        used = rt.memories_now(_matched(result, rt.config, fillers))
        for memory in (_reinforced(m, now, rt.config) for m in used if m.status is MemoryStatus.DECAYED):
            rt.store.update_memory(memory)
            rt.index_update(memory)
        states = [AccessState(m.id, s.stability_hours, now, s.access_count)
                  for m in used if m.status is not MemoryStatus.DECAYED and (s := _reinforced(m, now, rt.config))]
        rt.store.record_access(states)
        if index is not None:
            for state in states:
                index.touch(state.memory_id, state.stability_hours, now, state.access_count)
        events = tuple(rt.event(EventKind.RECALLED, memory_id=item.memory_id, at=now,
                                score=item.score.score, tokens=item.tokens) for item in result.items)
        rt.store.insert_events(events)
    return events


def recall_now(rt: Runtime, query: str, budget: int, reinforce: bool = True) -> RecallResult:
    qv = rt.embed([query])[0]
    now = rt.now()
    index = rt.index()
    pool = _distinct(_veto(_without_restated(rt, index, _index_candidates(rt, index, query, qv, now), query)))
    result = pack_pool(rt, query, qv, budget, pool, None)
    if reinforce and result.items:
        result = replace(result, events=_reinforce(rt, result, now, pool.fillers))
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
    pool = _index_candidates(rt, index, query, qv, when, active_only=False)
    kept = [c for c in pool.candidates if c.entry.belief_id is None or c.id in beliefs]
    return pack_pool(rt, query, qv, budget, replace(pool, candidates=kept), when)
