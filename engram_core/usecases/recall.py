"""Recall: score every recallable memory (hot, or cold on a strong cue), veto stale siblings, pack, reinforce."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import NamedTuple

import numpy as np

from engram_core.core import ledger
from engram_core.core.answers import ANSWER_TIER, answer_tiers, attribute_label, named_by_meaning
from engram_core.core.config import EngineConfig
from engram_core.core.entities import named_entities
from engram_core.core.index import ActiveIndex, IndexEntry, epoch_hours
from engram_core.core.model import (
    AccessState, Belief, Cardinality, Event, EventKind, Memory, MemoryKind, MemoryStatus, RecallItem, RecallResult,
)
from engram_core.core.packing import Packable, pack_under_budget
from engram_core.core.restatements import demoted, restated, retracted, retracts
from engram_core.core.render import (
    BlockForm, FactLabel, block_form, day_heading, fit_block, frame_text, heading_cost, line_cost, render_block,
    render_line,
)
from engram_core.core.retention import hours_between, reinforced_stability, retention
from engram_core.usecases.runtime import Runtime
from engram_core.core.scoring import CandidateArrays, breakdown_at, normalise_lexical, rank_fusion, score_arrays
from engram_core.core.timeframes import TOLD_WITHIN, named_window
from engram_core.core.words import carries, meaning


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


def _without_restated(rt: Runtime, index: ActiveIndex, pool: Pool) -> Pool:
    """Recall's pool without the restated memories, possibly stale ones ranked lower (``restatements``)."""
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
    kept = demoted([c for c in candidates if c.id not in drop], rt.store.possibly_stale(),
                   rt.config.possibly_stale_factor)
    return replace(pool, candidates=kept)


def _lexical(rt: Runtime, query: str, positions: dict[str, int], size: int,
             active_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """BM25 evidence per row, scaled to [0, 1], and the matching rows best first."""
    raw = np.zeros(size, dtype=np.float64)
    ranked = []
    for memory_id, value in rt.store.lexical_search(query, rt.config.candidate_pool, active_only):
        pos = positions.get(memory_id)
        if pos is not None:
            raw[pos] = value
            ranked.append(pos)
    return normalise_lexical(raw), np.array(ranked, dtype=np.int64)


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
    entries.prefetch(np.concatenate([chosen, fill]))  # a loaded index reads the entries it lacks in one query
    fillers = frozenset(entries[i].id for i in fill.tolist())
    chosen = np.concatenate([chosen, fill])
    scores = parts["score"][chosen].tolist()  # Python floats: round() as in the breakdown
    views = [entries[i] for i in chosen.tolist()]
    return Pool([Candidate(view.id, view, i, round(score, 6))
                 for view, i, score in zip(views, chosen.tolist(), scores, strict=False)], parts, fillers)


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
    drop = ledger.keep_newest([(c.id, c.entry.veto_key, c.entry.valid_from) for c in pool.candidates])
    return replace(pool, candidates=[c for c in pool.candidates if c.id not in drop])


FILLER_OFFSET = 10.0  # below any score and answer tier: a filler packs only into room nothing else took


class Headings(NamedTuple):
    """Each candidate's day in the full block and what that day's heading costs (none in the compact form)."""

    day: dict[str, str]
    tokens: dict[str, int]


def _headings(rt: Runtime, candidates: list[Candidate], form: BlockForm) -> Headings:
    if form is not BlockForm.FULL:
        return Headings({}, {})
    day = {c.id: day_heading(c.entry.created_at) for c in candidates}
    firsts = {day[c.id]: c.entry.created_at for c in candidates}
    return Headings(day, {d: heading_cost(rt.tokens, form, when) for d, when in firsts.items()})


def _packables(candidates: list[Candidate], rendered: dict[str, tuple[str, int]],
               tiers: dict[str, float], fillers: frozenset[str] = frozenset(),
               history: Callable[[], frozenset[str]] = frozenset,
               headings: Headings | None = None) -> list[Packable]:
    """A distilled fact displaces the raw episode it came from when it carries what the episode said
    (a name fact never stands in for the sentence that also gave the job); ``tiers`` lift answers
    above the rest."""
    episodes_by_message: dict[str, list[IndexEntry]] = {}
    for c in candidates:
        if c.entry.kind is MemoryKind.EPISODE:
            for mid in c.entry.provenance:
                episodes_by_message.setdefault(mid, []).append(c.entry)
    packables = []
    for c in candidates:
        displaces: tuple[str, ...] = ()
        if c.entry.belief_id is not None:
            displaces = tuple(e.id for mid in c.entry.provenance for e in episodes_by_message.get(mid, ())
                              if carries(c.entry.text, e.text, history()))
        score = c.score + tiers.get(c.id, 0.0) - (FILLER_OFFSET if c.id in fillers else 0.0)
        day = headings.day.get(c.id, "") if headings else ""
        packables.append(Packable(c.id, score, rendered[c.id][1], displaces, day,
                                  headings.tokens.get(day, 0) if headings else 0))
    return packables


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
    fact = FactLabel(belief.predicate, belief.object) if belief is not None else None
    return render_line(entry.kind, entry.text, entry.created_at, form, fact)


def _rendered(rt: Runtime, candidates: list[Candidate], form: BlockForm) -> dict[str, tuple[str, int]]:
    """Each candidate's line in this form and what it adds to the block (cached in the index)."""
    def render(entry: IndexEntry) -> str:
        return _line(entry, form)

    def count(line: str) -> int:
        return line_cost(rt.tokens, form, line)
    return {c.id: c.entry.line_and_tokens(form, render, count) for c in candidates}


def _item(candidate: Candidate, line: str, tokens: int, parts: dict[str, np.ndarray]) -> RecallItem:
    entry = candidate.entry
    return RecallItem(entry.id, entry.kind, entry.text, line, tokens, breakdown_at(parts, candidate.position),
                      entry.provenance, entry.created_at)


def _tiers_by_meaning(rt: Runtime, qv: np.ndarray, beliefs: list[tuple[str, Belief | None]]) -> dict[str, float]:
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


def _pack(rt: Runtime, query: str, qv: np.ndarray, budget: int, pool: Pool, as_of: datetime | None) -> RecallResult:
    form = block_form(budget, rt.config.full_block_from_tokens)
    rendered = _rendered(rt, pool.candidates, form)
    frame = rt.tokens.count(frame_text(form))
    beliefs = [(c.id, c.entry.belief) for c in pool.candidates]
    tiers = answer_tiers(beliefs, query) or _tiers_by_meaning(rt, qv, beliefs)
    packables = _packables(pool.candidates, rendered, tiers, pool.fillers, _retired_words(rt),
                           _headings(rt, pool.candidates, form))
    chosen = pack_under_budget(packables, budget - frame) if budget > frame else ()
    by_id = {c.id: c for c in pool.candidates}
    times = [by_id[p.key].entry.created_at for p in chosen]
    kept, used = fit_block(rt.tokens, form, [rendered[p.key][0] for p in chosen], budget, times)
    items = tuple(_item(by_id[p.key], rendered[p.key][0], p.tokens, pool.parts) for p in chosen[:kept])
    block = render_block([i.line for i in items], form, times[:kept])
    return RecallResult(query, budget, items, used, block, as_of)


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
        for state in states if index is not None else ():
            index.touch(state.memory_id, state.stability_hours, now, state.access_count)
        events = tuple(rt.event(EventKind.RECALLED, memory_id=item.memory_id, at=now,
                                score=item.score.score, tokens=item.tokens) for item in result.items)
        rt.store.insert_events(events)
    return events


def recall_now(rt: Runtime, query: str, budget: int, reinforce: bool = True) -> RecallResult:
    qv = rt.embed([query])[0]
    now = rt.now()
    index = rt.index()
    pool = _distinct(_veto(_without_restated(rt, index, _index_candidates(rt, index, query, qv, now))))
    result = _pack(rt, query, qv, budget, pool, None)
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
    return _pack(rt, query, qv, budget, replace(pool, candidates=kept), when)
