"""The write path: observe a message, gate it by importance, extract and adjudicate facts (plan, then apply)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from engram_core.core import ledger
from engram_core.core.amend import amended, named_swaps
from engram_core.usecases.dependents import flag_dependents
from engram_core.core.errors import BusyError
from engram_core.core.model import (
    Assessment, Belief, Embedding, Event, EventKind, FactDraft, Memory, MemoryKind,
    MemoryStatus, Message, Scalar, Verdict, WriteResult,
)
from engram_core.core.retention import RECALLABLE, initial_stability
from engram_core.core.selfcorrection import said_swap, sets_something_right
from engram_core.core.slots import SLOT_CHANGED
from engram_core.usecases.retractions import (
    Outdated, kin_outdated, retired_episodes, self_corrected, slot_outdated, stopped_beliefs, stopped_facts,
    said_with, swapped_beliefs,
)
from engram_core.usecases.runtime import Runtime
from engram_core.core.verdicts import parse_assessment
from engram_core.usecases.writeplan import (
    AdjudicationPath, FactPlan, PlanOutdated, already_known, basis_holds, plan_facts,
)

DEFAULT_IMPORTANCE = 0.5
MAX_PLAN_ATTEMPTS = 3  # plans made again when another writer changed the beliefs they were based on


@dataclass
class WriteLog:
    """What one use case wrote, gathered for the caller and the audit log."""

    memories: list[Memory]
    beliefs: list[Belief]
    events: list[Event]

    def result(self, message: Message | None) -> WriteResult:
        return WriteResult(message, tuple(self.memories), tuple(self.beliefs), tuple(self.events))


def assess(rt: Runtime, text: str, speaker: str, occurred_at: datetime, earlier: str = "") -> Assessment:
    return parse_assessment(rt.llm.assess(text, speaker, occurred_at, earlier), DEFAULT_IMPORTANCE)


_HE_OR_SHE = re.compile(r"\b(?:he|she|he's|she's|hes|shes|him|his|her)\b", re.I)


def _earlier(rt: Runtime, obs: Observation, at: datetime) -> str:
    """The speaker's previous message when this one says "he" or "she" (whom it means may be named
    there: "my daughter plays violin", then "she quit violin"); empty otherwise, with no store read."""
    if _HE_OR_SHE.search(obs.text) is None:
        return ""
    previous = rt.store.previous_message(obs.role, obs.speaker, at)
    return previous.text if previous is not None else ""


def new_memory(rt: Runtime, *, kind: MemoryKind, text: str, importance: float, at: datetime,
               vector: np.ndarray, provenance: tuple[str, ...], session_id: str | None,
               subject: str | None = None, belief_id: str | None = None, critical: bool = False) -> Memory:
    return Memory(
        id=rt.new_id("mem"), kind=kind, text=text, importance=importance,
        stability_hours=initial_stability(kind, importance, rt.config), created_at=at,
        last_accessed_at=at, provenance=provenance, session_id=session_id, subject=subject,
        belief_id=belief_id, critical=critical, embedding=Embedding(vector, rt.embedder.model_id),
    )


def set_status(rt: Runtime, memory: Memory, status: MemoryStatus, now: datetime,
               superseded_by: str | None = None) -> Memory:
    changed = replace(memory, status=status, status_changed_at=now, superseded_by=superseded_by or memory.superseded_by)
    rt.store.update_memory(changed)
    if status in RECALLABLE:
        rt.index_update(changed)
    else:
        rt.index_remove(memory.id)
    return changed


def store_memory(rt: Runtime, memory: Memory, log: WriteLog, belief: Belief | None = None, **detail: Scalar) -> None:
    rt.store.insert_memory(memory)
    rt.index_add(memory, belief)
    log.memories.append(memory)
    log.events.append(rt.event_of(EventKind.STORED, {"memory_kind": memory.kind.value,
                                                     "importance": round(memory.importance, 4), **detail},
                                  memory_id=memory.id, belief_id=memory.belief_id,
                                  message_id=memory.provenance[0] if memory.provenance else None))


# -- applying verdicts ----------------------------------------------------------------

def _supersede_episodes(rt: Runtime, old: Belief, successor: Memory, message: Message, now: datetime,
                        path: str, log: WriteLog) -> None:
    """Raw episodes that asserted the old value stop surfacing as current, and so do gists that
    summarised one of them (a gist is never rewritten; its other originals stay in the cold tier)."""
    if old.source_message_id is None or old.source_message_id == message.id:
        return
    for memory in rt.store.memories_from_message(old.source_message_id):
        if memory.kind in (MemoryKind.EPISODE, MemoryKind.GIST) and memory.status in RECALLABLE:
            set_status(rt, memory, MemoryStatus.SUPERSEDED, now, successor.id)
            log.events.append(rt.event(EventKind.SUPERSEDED, memory_id=memory.id, belief_id=old.id,
                                       message_id=message.id, successor=successor.id, path=path,
                                       reason="asserted superseded belief"))


def _supersede(rt: Runtime, old: Belief, new: Belief, new_memory: Memory, message: Message, now: datetime,
               path: str, log: WriteLog) -> tuple[Belief, Memory]:
    """Close the old belief (or, if the new fact is older, file the new one as history)."""
    if ledger.arrives_late(old, new.valid_from):
        new = ledger.as_history(new, old)
        new_memory = replace(new_memory, status=MemoryStatus.SUPERSEDED, status_changed_at=now,
                             superseded_by=old.memory_id)
        log.events.append(rt.event(EventKind.SUPERSEDED, memory_id=new_memory.id, belief_id=new.id,
                                   message_id=message.id, successor=old.id, path=path,
                                   reason="older than current belief"))
        return new, new_memory
    closed = ledger.close_belief(old, new.id, new.valid_from, now)
    rt.store.update_belief(closed)
    old_memory = rt.store.get_memory(old.memory_id) if old.memory_id else None
    if old_memory is not None and old_memory.status in RECALLABLE:
        set_status(rt, old_memory, MemoryStatus.SUPERSEDED, now, new_memory.id)
    log.events.append(rt.event(EventKind.SUPERSEDED, memory_id=old.memory_id, belief_id=old.id,
                               message_id=message.id, successor=new.id, path=path))
    _supersede_episodes(rt, old, new_memory, message, now, path, log)
    log.events += flag_dependents(rt, old, new, (), now)
    return new, new_memory


def _note_verdicts(rt: Runtime, plan: FactPlan, log: WriteLog) -> bool:
    """Events for what the plan decided; False when the fact adds nothing and is not written."""
    message, path = plan.source, plan.path.value
    verdicts = plan.verdict_of
    # a model never answers "undecided"
    if plan.path is AdjudicationPath.LLM and Verdict.UNDECIDED in verdicts.values():
        log.events.append(rt.event(EventKind.FALLBACK, message_id=message.id, purpose="adjudicate",
                                   reason="unusable model verdict; nothing superseded"))
    if plan.path is AdjudicationPath.KNOWN or already_known(rt, plan.draft, message):
        log.events.append(rt.event(EventKind.DISCARDED, message_id=message.id, path=AdjudicationPath.KNOWN.value,
                                   reason="already in the ledger from this message"))
        return False
    discarded = [bid for bid, v in plan.verdicts if v is Verdict.DISCARD]
    if discarded:
        reason = "tentative wording; the held value stays" if plan.draft.tentative else "already known"
        log.events.append(rt.event(EventKind.DISCARDED, belief_id=discarded[0], message_id=message.id,
                                   path=path, reason=reason))
        return False
    if plan.belief is None:  # a tentative "gave up X" with no X held
        log.events.append(rt.event(EventKind.DISCARDED, message_id=message.id, path=path,
                                   reason="gives up nothing held"))
        return False
    return True


def apply_fact(rt: Runtime, plan: FactPlan, log: WriteLog) -> None:
    """Inside the write transaction: write what ``plan`` decided (no model is called here)."""
    if not _note_verdicts(rt, plan, log) or plan.belief is None:
        return
    now, draft, message, path = rt.now(), plan.draft, plan.source, plan.path.value
    memory = new_memory(rt, kind=draft.kind, text=draft.statement, importance=draft.importance,
                        at=message.occurred_at, vector=plan.vector, provenance=(message.id,),
                        session_id=message.session_id, subject=draft.subject, belief_id=plan.belief.id,
                        critical=draft.critical)
    belief = replace(plan.belief, memory_id=memory.id)
    for bid, verdict in plan.verdicts:
        if verdict is Verdict.SUPERSEDE:
            belief, memory = _supersede(rt, plan.candidate(bid), belief, memory, message, now, path, log)
        elif verdict in (Verdict.COEXIST, Verdict.UNDECIDED):
            kind = EventKind.COEXISTED if verdict is Verdict.COEXIST else EventKind.UNDECIDED
            log.events.append(rt.event(kind, belief_id=bid, message_id=message.id, path=path, new_belief=belief.id))
    rt.store.insert_belief(belief)
    log.beliefs.append(belief)
    if memory.status is MemoryStatus.ACTIVE:
        store_memory(rt, memory, log, belief, path=path)
    else:
        rt.store.insert_memory(memory)
        log.memories.append(memory)


def _retire_episodes(rt: Runtime, text: str, vector: np.ndarray, message: Message,
                     plans: tuple[FactPlan, ...], log: WriteLog) -> None:
    """Older episodes this message retires (``retractions``) leave recall, superseded by what it stored; the
    beliefs it says stopped, or sets right, end."""
    facts = stopped_facts(rt, text, vector, message.occurred_at)
    kin = kin_outdated(rt, text, vector, message.occurred_at)  # before anything retires what it names
    retired = retired_episodes(rt, text, vector, message.occurred_at, plans, facts)
    set_right = self_corrected(rt, text, vector, message)
    if set_right is not None:
        retired = [*(m for m in retired if m.id != set_right[0].id), set_right[0]]
    successor = next((m.id for m in log.memories if message.id in m.provenance), None)
    now = rt.now()
    for memory in retired:
        set_status(rt, memory, MemoryStatus.SUPERSEDED, now, successor)
        log.events.append(rt.event(EventKind.SUPERSEDED, memory_id=memory.id, message_id=message.id,
                                   successor=successor, reason="a newer message states a change to it"))
    _amend(rt, text, message, log)
    _flag_slot_outdated(rt, text, vector, message, plans, log, kin)
    ended = {b.id: (b, "a newer message says it stopped") for b in (*stopped_beliefs(rt, text, retired), *facts)}
    for belief in (*(set_right[1] if set_right is not None else ()), *swapped_beliefs(rt, text, retired)):
        ended[belief.id] = (belief, "a newer message sets it right")
    for belief, reason in ended.values():
        rt.store.update_belief(ledger.end_belief(belief, message.occurred_at, now))
        held = rt.store.get_memory(belief.memory_id) if belief.memory_id else None
        if held is not None and held.status in RECALLABLE:
            set_status(rt, held, MemoryStatus.SUPERSEDED, now, successor)
        log.events.append(rt.event(EventKind.SUPERSEDED, memory_id=belief.memory_id, belief_id=belief.id,
                                   message_id=message.id, successor=successor, reason=reason))


def _flag_slot_outdated(rt: Runtime, text: str, vector: np.ndarray, message: Message,
                        plans: tuple[FactPlan, ...], log: WriteLog, kin: list[Outdated]) -> None:
    """The older episode of each slot this message changes, flagged (``retractions.slot_outdated``): recall
    keeps it out of answers about now, and the next dream proposal lists it for review."""
    now = rt.now()
    for memory, belief, slot in slot_outdated(rt, text, vector, message.occurred_at, plans):
        reason = SLOT_CHANGED + slot.split(":")[0]
        rt.store.flag_possibly_stale(memory.id, belief.id, reason, now)
        log.events.append(rt.event(EventKind.POSSIBLY_STALE, memory_id=memory.id, belief_id=belief.id,
                                   reason=reason))
    for outdated in kin:
        for held in said_with(rt, outdated):  # the facts read from it stand in for it: they go with it
            rt.store.flag_possibly_stale(held.id, message.id, outdated.reason, now)
            log.events.append(rt.event(EventKind.POSSIBLY_STALE, memory_id=held.id, message_id=message.id,
                                       reason=outdated.reason))


def _amend(rt: Runtime, text: str, message: Message, log: WriteLog) -> None:
    """Each raw episode this message retired, set right in place when it said more than the value it set
    right (``core/amend``): a gist of the two, which stands for the original in recall. Its vector is the
    original's (one value differs), so no embedding is asked for while the write transaction is open."""
    if not sets_something_right(text):
        return  # "I've joined Laing O'Rourke, not Skanska": a contrast, which sets no older words right
    named = named_swaps(text)
    retired = {e.memory_id for e in log.events if e.kind is EventKind.SUPERSEDED and e.memory_id}
    for memory in rt.store.memories_by_ids(sorted(retired)):
        if memory.kind is not MemoryKind.EPISODE or memory.embedding is None or message.id in memory.provenance:
            continue
        said = said_swap(memory.text, text)
        fixed = amended(memory.text, text, [*named, *([said] if said else [])])
        if fixed is None:
            continue
        gist = new_memory(rt, kind=MemoryKind.GIST, text=fixed, importance=memory.importance, at=message.occurred_at,
                          vector=memory.embedding.vector, provenance=(*memory.provenance, message.id),
                          session_id=memory.session_id, critical=memory.critical)
        store_memory(rt, gist, log, amended=memory.id)
        rt.store.update_memory(replace(rt.store.get_memory(memory.id) or memory, superseded_by=gist.id))


def write_planned(rt: Runtime, facts: list[tuple[FactDraft, np.ndarray, Message]],
                  apply: Callable[[tuple[FactPlan, ...], WriteLog], None]) -> WriteLog:
    """Plan the facts with no transaction open, then ``apply`` the plan in one transaction that first
    re-checks the beliefs it was based on; planned again (a bounded number of times) when they changed."""
    for _ in range(MAX_PLAN_ATTEMPTS):
        plans, basis = plan_facts(rt, facts, rt.now())
        log = WriteLog([], [], [])
        try:
            with rt.store.transaction():
                if not basis_holds(rt, basis):
                    raise PlanOutdated
                apply(plans, log)
                rt.store.insert_events(log.events)
            return log
        except PlanOutdated:
            rt.drop_index()
    raise BusyError("the beliefs this write depends on kept changing while it was decided; nothing was "
                    "written, try again")


# -- use cases ------------------------------------------------------------------------

@dataclass(frozen=True)
class Observation:
    """A validated message to observe or remember."""

    text: str
    role: str = "user"
    session_id: str = "default"
    external_id: str | None = None
    occurred_at: datetime | None = None
    speaker: str | None = None
    importance: float | None = None  # caller-set: bypasses the importance gate
    kind: MemoryKind | None = None  # caller-set kind for an explicit remember


def _episode_text(obs: Observation) -> str:
    return f"{obs.speaker}: {obs.text}" if obs.speaker else obs.text


def _primary_kind(obs: Observation) -> MemoryKind:
    return obs.kind or MemoryKind.EPISODE


def _apply_override(draft: FactDraft, obs: Observation) -> FactDraft:
    if obs.importance is None:
        return draft
    return replace(draft, importance=max(draft.importance, obs.importance))


def _holds_a_fact(plan: FactPlan) -> bool:
    """The ledger will hold the planned fact: written now, or already known. A correction that names
    nothing held, or a give-up of nothing held, holds none: then the text itself must be kept."""
    return plan.belief is not None or plan.path is AdjudicationPath.KNOWN or Verdict.DISCARD in plan.verdict_of.values()


def _store_primary(rt: Runtime, obs: Observation, message: Message, importance: float,
                   vector: np.ndarray, has_facts: bool, log: WriteLog) -> None:
    """The message itself as an episode (or the caller's kind), if it clears the gate."""
    explicit = obs.importance is not None
    if obs.role != "user":
        log.events.append(rt.event(EventKind.NOT_STORED, message_id=message.id, reason="not a user message"))
        return
    if obs.kind is not None and has_facts:
        return  # the extracted facts are the memories of an explicit remember
    if not explicit and importance < rt.config.store_threshold:
        log.events.append(rt.event(EventKind.NOT_STORED, message_id=message.id,
                                   importance=round(importance, 4), threshold=rt.config.store_threshold))
        return
    memory = new_memory(rt, kind=_primary_kind(obs), text=_episode_text(obs), importance=importance,
                        at=message.occurred_at, vector=vector, provenance=(message.id,), session_id=obs.session_id)
    store_memory(rt, memory, log)


def _known_message(rt: Runtime, obs: Observation) -> Message | None:
    return rt.store.message_by_external_id(obs.external_id) if obs.external_id else None


def observe(rt: Runtime, obs: Observation) -> WriteResult:
    """Assess and plan with no transaction open; store the message, its episode and its facts in one."""
    existing = _known_message(rt, obs)
    if existing is not None:
        return WriteResult(existing, (), (), ())
    now = rt.now()
    at = obs.occurred_at or now
    speaker = obs.speaker or obs.role
    assessment = assess(rt, obs.text, speaker, at, _earlier(rt, obs, at)) if obs.role == "user" \
        else Assessment(importance=0.0)
    facts = [_apply_override(f, obs) for f in assessment.facts]
    texts = [_episode_text(obs)] + [f.statement for f in facts]
    # Only user messages become memories: an assistant turn is stored as a message, never embedded (a paid call).
    vectors = rt.embed(texts) if obs.role == "user" else np.zeros((len(texts), rt.embedder.dim), dtype=np.float32)
    message = Message(rt.new_id("msg"), obs.role, obs.session_id, obs.text, at, now, obs.external_id, obs.speaker)
    raced: list[Message] = []

    def apply(plans: tuple[FactPlan, ...], log: WriteLog) -> None:
        if (other := _known_message(rt, obs)) is not None:  # the same message, written meanwhile
            raced.append(other)
            return
        rt.claim_embedder()
        rt.store.insert_message(message)
        if assessment.fallback:
            log.events.append(rt.event(EventKind.FALLBACK, message_id=message.id, purpose="assess",
                                       reason="unusable model answer; default importance, no facts"))
        importance = obs.importance if obs.importance is not None else assessment.importance
        _store_primary(rt, obs, message, importance, vectors[0], any(_holds_a_fact(p) for p in plans), log)
        for plan in plans:
            apply_fact(rt, plan, log)
        if obs.role == "user":
            _retire_episodes(rt, _episode_text(obs), vectors[0], message, plans, log)

    log = write_planned(rt, [(f, v, message) for f, v in zip(facts, vectors[1:], strict=True)], apply)
    return WriteResult(raced[0], (), (), ()) if raced else log.result(message)
