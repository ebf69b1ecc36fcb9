"""The write path: observe a message, gate it by importance, extract and adjudicate facts (plan, then apply)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from engram_core.core import ledger
from engram_core.usecases.carryover import carried_facts
from engram_core.usecases.settingright import SETS_RIGHT, amend, set_right_fact
from engram_core.usecases.writes import WriteLog, new_memory, set_status, store_memory
from engram_core.usecases.dependents import flag_dependents
from engram_core.core.errors import BusyError
from engram_core.core.model import (
    Assessment, Belief, EventKind, FactDraft, Memory, MemoryKind,
    MemoryStatus, Message, Verdict, WriteResult,
)
from engram_core.core.retention import RECALLABLE
from engram_core.core.slots import SLOT_CHANGED
from engram_core.usecases.retractions import (
    Outdated, kin_outdated, retired_episodes, self_corrected, slot_outdated, stopped_beliefs, stopped_facts,
    as_outdated, said_with, swapped_beliefs,
)
from engram_core.usecases.runtime import Runtime
from engram_core.core.verdicts import parse_assessment
from engram_core.usecases.writeplan import (
    AdjudicationPath, FactPlan, PlanOutdated, already_known, basis_holds, plan_facts,
)

DEFAULT_IMPORTANCE = 0.5
MAX_PLAN_ATTEMPTS = 3  # plans made again when another writer changed the beliefs they were based on


def assess(rt: Runtime, text: str, speaker: str, occurred_at: datetime, earlier: str = "") -> Assessment:
    return parse_assessment(rt.llm.assess(text, speaker, occurred_at, earlier), DEFAULT_IMPORTANCE)


_HE_OR_SHE = re.compile(r"\b(?:he|she|he's|she's|hes|shes|him|his|her)\b", re.I)
_HERE_NOW = re.compile(r"\b(?:I'm|I\s+am|im|we're|we\s+are)\s+(?:now\s+)?in\b", re.I)


def _earlier(rt: Runtime, obs: Observation, at: datetime) -> str:
    """The speaker's previous message when this one says "he" or "she" (whom it means may be named
    there: "my daughter plays violin", then "she quit violin"), or where the speaker is now (a trip there may
    be said there: "off to Goa for a week!!", then "I'm in Goa now"); empty otherwise, with no store read."""
    if _HE_OR_SHE.search(obs.text) is None and _HERE_NOW.search(obs.text) is None:
        return ""
    previous = rt.store.previous_message(obs.role, obs.speaker, at)
    return previous.text if previous is not None else ""


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
               path: str, log: WriteLog, keep_episodes: bool = False) -> tuple[Belief, Memory]:
    """Close the old belief (or, if the new fact is older, file the new one as history); the episodes that
    asserted it leave recall too, unless ``keep_episodes`` (a carried fact: they are flagged instead)."""
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
    kept: list[str] = []  # a carried fact's older words: flagged as the changed slot's (``_flag_slot_outdated``)
    if keep_episodes and old.source_message_id is not None:
        kept = [m.id for m in rt.store.memories_from_message(old.source_message_id)]
    else:
        _supersede_episodes(rt, old, new_memory, message, now, path, log)
    log.events += flag_dependents(rt, old, new, kept, now)
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
            belief, memory = _supersede(rt, plan.candidate(bid), belief, memory, message, now, path, log,
                                        draft.carried)
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
                     plans: tuple[FactPlan, ...], log: WriteLog, kin: list[Outdated]) -> None:
    """Older episodes this message retires (``retractions``) leave recall, superseded by what it stored; the
    beliefs it says stopped, or sets right, end. ``kin`` (``retractions.kin_outdated``) is read before the
    plan; what a fact of the plan retired already is not flagged besides."""
    facts = stopped_facts(rt, text, vector, message.occurred_at)
    kin = [o for o in kin if (held := rt.store.get_memory(o.memory.id)) is not None and held.status in RECALLABLE]
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
    amend(rt, text, message, log)
    _flag_slot_outdated(rt, text, vector, message, plans, log, kin)
    ended = {b.id: (b, "a newer message says it stopped") for b in (*stopped_beliefs(rt, text, retired), *facts)}
    for belief in (*(set_right[1] if set_right is not None else ()), *swapped_beliefs(rt, text, retired)):
        ended[belief.id] = (belief, SETS_RIGHT)
    for belief, reason in ended.values():
        fixed = set_right_fact(rt, belief, text, message, log) if reason == SETS_RIGHT else None
        rt.store.update_belief(ledger.close_belief(belief, fixed.id, message.occurred_at, now) if fixed is not None
                               else ledger.end_belief(belief, message.occurred_at, now))
        held = rt.store.get_memory(belief.memory_id) if belief.memory_id else None
        if held is not None and held.status in RECALLABLE:
            set_status(rt, held, MemoryStatus.SUPERSEDED, now, successor)
        log.events.append(rt.event(EventKind.SUPERSEDED, memory_id=belief.memory_id, belief_id=belief.id,
                                   message_id=message.id, successor=successor, reason=reason))


def _flag_slot_outdated(rt: Runtime, text: str, vector: np.ndarray, message: Message,
                        plans: tuple[FactPlan, ...], log: WriteLog, kin: list[Outdated]) -> None:
    """The older episode of each slot this message changes, flagged (``retractions.slot_outdated``): recall
    keeps it out of answers about now, and the next dream proposal lists it for review."""
    now, flagged = rt.now(), set[str]()  # a memory is flagged once (the first reason stays)
    for memory, belief, slot in slot_outdated(rt, text, vector, message.occurred_at, plans):
        reason = SLOT_CHANGED + slot.split(":")[0]
        for held in said_with(rt, as_outdated(memory, slot)):  # its facts of the slot go with it
            if held.id not in flagged:
                flagged.add(held.id)
                rt.store.flag_possibly_stale(held.id, belief.id, reason, now)
                log.events.append(rt.event(EventKind.POSSIBLY_STALE, memory_id=held.id, belief_id=belief.id,
                                           reason=reason))
    for outdated in kin:
        for held in said_with(rt, outdated):  # the facts read from it stand in for it: they go with it
            if held.id in flagged:
                continue
            flagged.add(held.id)
            rt.store.flag_possibly_stale(held.id, message.id, outdated.reason, now)
            log.events.append(rt.event(EventKind.POSSIBLY_STALE, memory_id=held.id, message_id=message.id,
                                       reason=outdated.reason))


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
    kin = kin_outdated(rt, texts[0], vectors[0], at) if obs.role == "user" else []
    facts, carried = carried_facts(rt, kin, texts[0], facts)  # the same statements: ``vectors`` stay theirs
    if carried:
        facts, vectors = [*facts, *carried], np.vstack([vectors, rt.embed([f.statement for f in carried])])
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
            _retire_episodes(rt, _episode_text(obs), vectors[0], message, plans, log, kin)

    log = write_planned(rt, [(f, v, message) for f, v in zip(facts, vectors[1:], strict=True)], apply)
    return WriteResult(raced[0], (), (), ()) if raced else log.result(message)
