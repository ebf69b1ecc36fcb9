"""Forgetting and consolidation: decay sweep, sleep cycle, session consolidation, dreaming, forget/purge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

import numpy as np

from engram_core.core import ledger
from engram_core.usecases import purge as purging
from engram_core.core.errors import NotFoundError, UnreadableRecordError, ValidationError
from engram_core.core.model import (
    DreamAction, DreamProposal, Event, EventKind, Memory, MemoryKind, MemoryStatus, Message, WriteResult, action_id,
)
from engram_core.core.retention import has_faded
from engram_core.usecases.runtime import Runtime
from engram_core.core.verdicts import parse_assessment, parse_dream, parse_gist
from engram_core.usecases.writepath import DEFAULT_IMPORTANCE, apply_fact, write_planned
from engram_core.usecases.writes import WriteLog, new_memory, set_status, store_memory
from engram_core.usecases.writeplan import FactPlan

PURGED_TEXT = purging.PURGED_TEXT


def _vectors(rt: Runtime, texts: list[str]) -> np.ndarray | list[np.ndarray]:
    """The texts' vectors; with no text the embedder is not consulted (nor its signature checked)."""
    return rt.embed(texts) if texts else []


def _commit_events(rt: Runtime, events: Sequence[Event]) -> None:
    if events:
        rt.store.insert_events(events)


# -- decay --------------------------------------------------------------------------

def sweep(rt: Runtime) -> tuple[Event, ...]:
    """Mark faded memories ``decayed``: out of recall, never deleted."""
    now = rt.now()
    events = []
    with rt.store.transaction():
        for memory in rt.store.memories(statuses=(MemoryStatus.ACTIVE,)):
            if has_faded(memory, now, rt.config):
                set_status(rt, memory, MemoryStatus.DECAYED, now)
                events.append(rt.event(EventKind.DECAYED, memory_id=memory.id, memory_kind=memory.kind.value))
        _commit_events(rt, events)
    return tuple(events)


# -- sleep ----------------------------------------------------------------------------

def _sleep_groups(rt: Runtime, decayed: list[Memory]) -> list[list[Memory]]:
    """Faded episodes grouped by session, faded gists together (gists of gists), in time order."""
    by_session: dict[str, list[Memory]] = {}
    for memory in decayed:
        if memory.kind is MemoryKind.EPISODE:
            by_session.setdefault("s:" + (memory.session_id or ""), []).append(memory)
        elif memory.kind is MemoryKind.GIST:
            by_session.setdefault("gists", []).append(memory)
    size, least = rt.config.sleep_max_group, rt.config.sleep_min_group
    groups = []
    for members in by_session.values():
        members.sort(key=lambda m: m.created_at)
        groups += [members[i:i + size] for i in range(0, len(members), size)]
    return [g for g in groups if len(g) >= least]


def _gist_group(rt: Runtime, group: list[Memory], gist_text: str, vector: np.ndarray, now: datetime,
                log: WriteLog) -> None:
    provenance = tuple(dict.fromkeys(mid for m in group for mid in m.provenance))
    gist = new_memory(rt, kind=MemoryKind.GIST, text=gist_text, importance=max(m.importance for m in group),
                      at=now, vector=vector, provenance=provenance, session_id=group[0].session_id)
    store_memory(rt, gist, log, summarised=len(group))
    for member in group:
        set_status(rt, member, MemoryStatus.ARCHIVED, now, gist.id)
        log.events.append(rt.event(EventKind.ARCHIVED, memory_id=member.id, gist=gist.id))
    log.events.append(rt.event(EventKind.CONSOLIDATED, memory_id=gist.id, archived=len(group)))


def _prune_recall_log(rt: Runtime, now: datetime) -> int:
    """``recalled`` events are an access log, one per packed memory per recall: most of a year's
    events. Past ``recall_log_days`` they go; what they taught (access count, last use, stability)
    lives on in the memories, and no other kind of event is ever pruned."""
    days = rt.config.recall_log_days
    return rt.store.delete_events(EventKind.RECALLED.value, now - timedelta(days=days)) if days > 0 else 0


def sleep(rt: Runtime) -> WriteResult:
    """Sweep, then compress each group of faded episodes into one gist; originals archived; old recall log pruned."""
    sweep_events = sweep(rt)
    groups = _sleep_groups(rt, rt.store.memories(statuses=(MemoryStatus.DECAYED,)))
    gists = [parse_gist(rt.llm.summarise([m.text for m in g])) for g in groups]
    usable = [(g, text) for g, text in zip(groups, gists, strict=False) if text]
    vectors = _vectors(rt, [text for _, text in usable])
    log = WriteLog([], [], list(sweep_events))
    new_events_from = len(log.events)
    now = rt.now()
    with rt.store.transaction():
        for (group, text), vector in zip(usable, vectors, strict=True):
            _gist_group(rt, group, text, vector, now, log)
        for _group, gist in zip(groups, gists, strict=False):
            if not gist:
                log.events.append(rt.event(EventKind.FALLBACK, purpose="summarise",
                                           reason="unusable gist; nothing archived"))
        pruned = _prune_recall_log(rt, now)
        log.events.append(rt.event(EventKind.CONSOLIDATED, scope="sleep", gists=len(usable),
                                   recall_events_pruned=pruned))
        _commit_events(rt, log.events[new_events_from:])
    return log.result(None)


# -- session consolidation ---------------------------------------------------------------

def _source_for(fact_object: str, messages: list[Message]) -> Message:
    """The session message a transcript-level fact came from (the last one as a fallback)."""
    needle = ledger.normalise_value(fact_object)
    for message in reversed(messages):
        if needle and needle in message.text.lower():
            return message
    return messages[-1]


def consolidate_session(rt: Runtime, session_id: str) -> WriteResult:
    """A session transcript becomes durable memories through the adjudicated write path. Idempotent:
    a fact the ledger already holds from the same message is not written again."""
    messages = [m for m in rt.store.messages(session_id) if m.role == "user" and m.text != PURGED_TEXT]
    if not messages:
        raise NotFoundError(f"no user messages in session {session_id!r}", field="session_id")
    transcript = "\n".join(m.text for m in messages)
    speaker = messages[-1].speaker or "user"
    assessment = parse_assessment(rt.llm.assess(transcript, speaker, messages[-1].occurred_at), DEFAULT_IMPORTANCE)
    vectors = _vectors(rt, [f.statement for f in assessment.facts])
    facts = [(draft, vector, _source_for(draft.object, messages))
             for draft, vector in zip(assessment.facts, vectors, strict=True)]

    def apply(plans: tuple[FactPlan, ...], log: WriteLog) -> None:
        for plan in plans:
            apply_fact(rt, plan, log)
        if assessment.fallback:
            log.events.append(rt.event(EventKind.FALLBACK, purpose="consolidate", reason="unusable model answer"))
        log.events.append(rt.event(EventKind.CONSOLIDATED, scope="session", session=session_id,
                                   facts=len(assessment.facts), new_beliefs=len(log.beliefs)))

    return write_planned(rt, facts, apply).result(None)


# -- dreaming -------------------------------------------------------------------------------

def _review_actions(rt: Runtime, live: set[str]) -> tuple[DreamAction, ...]:
    """Each memory flagged as possibly stale, to confirm (keep as it is) or forget: the person decides."""
    actions: list[DreamAction] = []
    for memory_id, reason in sorted(rt.store.possibly_stale().items()):
        if memory_id in live:
            actions += [DreamAction("confirm", (memory_id,), reason=f"possibly stale ({reason}): keep it as it is"),
                        DreamAction("forget", (memory_id,), reason=f"possibly stale ({reason})")]
    return tuple(actions)


def dream_propose(rt: Runtime) -> DreamProposal:
    """Ask for a plan; keep only actions that name live memories. Nothing is applied."""
    live = rt.store.memories(statuses=(MemoryStatus.ACTIVE,))
    raw = rt.llm.propose_dream([(m.id, m.text, m.importance) for m in live])
    actions, rejected = parse_dream(raw, {m.id for m in live})
    actions += _review_actions(rt, {m.id for m in live})
    proposal = DreamProposal(rt.new_id("drm"), rt.now(), actions, rejected)
    with rt.store.transaction():
        rt.store.insert_proposal(proposal)
        events = [rt.event(EventKind.DREAM_PROPOSED, proposal=proposal.id, actions=len(actions),
                           rejected=len(rejected))]
        events += [rt.event(EventKind.DREAM_REJECTED, proposal=proposal.id, reason=r) for r in rejected]
        _commit_events(rt, events)
    return proposal


def _importance_of(action: DreamAction) -> float:
    """A stored proposal is read back (or imported) unchecked: a reimportance without an importance is refused."""
    if action.importance is None:
        raise ValidationError("a reimportance action needs an importance", field="proposal_id")
    return action.importance


def _merged_text(action: DreamAction) -> str:
    """A stored proposal is read back (or imported) unchecked: a merge without a merged text is refused."""
    if action.text is None:
        raise ValidationError("a merge action needs a merged text", field="proposal_id")
    return action.text


def _apply_action(rt: Runtime, action: DreamAction, now: datetime, log: WriteLog) -> None:
    members = rt.store.memories_by_ids(list(action.memory_ids))
    rt.store.resolve_possibly_stale(action.memory_ids, now)  # reviewed, whatever the answer
    if action.action == "confirm":
        return
    if action.action == "forget":
        for m in members:
            set_status(rt, m, MemoryStatus.DELETED, now)
            log.events.append(rt.event(EventKind.FORGOTTEN, memory_id=m.id, reason="dream"))
    elif action.action == "reimportance":
        for m in members:
            changed = replace(m, importance=float(_importance_of(action)))
            rt.store.update_memory(changed)
            rt.index_update(changed)
    else:
        keeper = max(members, key=lambda m: m.importance)
        text = _merged_text(action)
        vector = rt.embed([text])[0]
        merged = new_memory(rt, kind=keeper.kind, text=text, importance=keeper.importance, at=now,
                            vector=vector, provenance=tuple(dict.fromkeys(p for m in members for p in m.provenance)),
                            session_id=keeper.session_id)
        store_memory(rt, merged, log, merged_from=len(members))
        for m in members:
            set_status(rt, m, MemoryStatus.ARCHIVED, now, merged.id)


def dream_apply(rt: Runtime, proposal_id: str, approved: Sequence[str]) -> tuple[Event, ...]:
    """Apply only approved actions, re-validated against the memories live right now."""
    found = rt.store.get_proposal(proposal_id)
    if found is None:
        raise NotFoundError(f"no dream proposal {proposal_id!r}", field="proposal_id")
    proposal, applied = found
    if applied:
        raise ValidationError(f"dream proposal {proposal_id!r} was already applied", field="proposal_id")
    by_id = {action_id(i): a for i, a in enumerate(proposal.actions)}
    now = rt.now()
    log = WriteLog([], [], [])
    with rt.store.transaction():
        live = {m.id for m in rt.store.memories(statuses=(MemoryStatus.ACTIVE,))}
        for aid in dict.fromkeys(approved):
            action = by_id.get(aid)
            if action is None or not set(action.memory_ids) <= live:
                reason = "not in proposal" if action is None else "names memories that are no longer live"
                log.events.append(rt.event(EventKind.DREAM_REJECTED, proposal=proposal_id, action=aid, reason=reason))
                continue
            _apply_action(rt, action, now, log)
            live -= set(action.memory_ids)
            log.events.append(rt.event(EventKind.DREAM_APPLIED, proposal=proposal_id, action=aid,
                                       action_kind=action.action))
        rt.store.mark_proposal_applied(proposal_id, now)
        _commit_events(rt, log.events)
    return tuple(log.events)


# -- forget / purge ------------------------------------------------------------------------------

def _retire_beliefs(rt: Runtime, memory: Memory, now: datetime) -> None:
    for belief in rt.store.beliefs_of_memory(memory.id):
        if belief.expired_at is None:
            rt.store.update_belief(ledger.retire_belief(belief, now))


def _soft_forget(rt: Runtime, memory_id: str, now: datetime) -> Event:
    try:
        memory = rt.store.get_memory(memory_id)
    except UnreadableRecordError:  # still forgotten: out of every read, kept for audit
        rt.store.purging.mark_deleted(memory_id, now)
        rt.index_remove(memory_id)
        return rt.event(EventKind.FORGOTTEN, memory_id=memory_id, unreadable=True)
    if memory is None:  # removed by another writer since ``forget`` saw it
        raise NotFoundError(f"no memory {memory_id!r}", field="memory_id")
    _retire_beliefs(rt, memory, now)
    set_status(rt, memory, MemoryStatus.DELETED, now)
    return rt.event(EventKind.FORGOTTEN, memory_id=memory.id)


def forget(rt: Runtime, memory_id: str, purge: bool = False) -> tuple[Event, ...]:
    """Soft forget keeps the memory for audit; purge deletes its text, vector and everything made of it."""
    if not rt.store.purging.exists(memory_id):
        raise NotFoundError(f"no memory {memory_id!r}", field="memory_id")
    now = rt.now()
    with rt.store.transaction():
        event = purging.purge(rt, memory_id, now) if purge else _soft_forget(rt, memory_id, now)
        _commit_events(rt, [event])
    if purge:
        rt.store.scrub_deleted()
    return (event,)
