"""Purge, a privacy request: the memory's text leaves every table, index and vector, with what was made of it.

What goes, in one transaction:
- the memory: row, vector, full-text entry, recall index entry;
- its beliefs' statements and values (their history stays, textless), and its source messages' text;
- every gist or merged memory made from it, up the whole chain (a gist of gists too): they state its text.
  Their other originals come back to where they were before (faded, or live for a merge), so a later
  sleep cycle summarises them again without it;
- every other message that quotes it (a reply that recited the memory block, a user repeating it),
  dream proposals that name it or quote it, and kept responses (idempotent replays) that quote it.

A row that no longer decodes can be purged too: everything here also works from the raw rows.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime

from engram_core.core import ledger
from engram_core.core.errors import UnreadableRecordError
from engram_core.core.model import Event, EventKind, Memory, MemoryKind, MemoryStatus
from engram_core.core.render import FactLabel, compact_fact, escape_memory_text
from engram_core.usecases.runtime import Runtime

PURGED_TEXT = "[purged]"
MIN_QUOTE_CHARS = 4  # shorter texts would match everywhere


def normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def _readable(rt: Runtime, memory_id: str) -> Memory | None:
    try:
        return rt.store.get_memory(memory_id)
    except UnreadableRecordError:
        return None


def derived_chain(rt: Runtime, memory_id: str) -> list[str]:
    """The gist (or merged memory) the memory was archived into, the one that was archived into, ..."""
    chain, current = [], rt.store.purging.archived_into(memory_id)
    while current is not None and current not in chain and current != memory_id:
        chain.append(current)
        current = rt.store.purging.archived_into(current)
    return chain


def quoted_texts(rt: Runtime, memory_id: str, chain: list[str]) -> set[str]:
    """Every form in which the purged text may have been repeated elsewhere, normalised."""
    rows = rt.store.purging
    texts = [rows.text_of(mid) for mid in (memory_id, *chain)]
    for statement, predicate, value in rows.belief_texts(memory_id):  # as stated, and as a compact block line
        texts += [statement, compact_fact(FactLabel(predicate, value))]
    texts += [m.text for m in (rt.store.get_message(mid) for mid in rows.source_message_ids(memory_id)) if m]
    forms = {normalised(form) for text in texts if text for form in (text, escape_memory_text(text))}
    return {form for form in forms if len(form) >= MIN_QUOTE_CHARS and form != normalised(PURGED_TEXT)}


def _release_members(rt: Runtime, holder: str, gone: set[str], now: datetime) -> None:
    """A dropped gist's other originals fade again (a merge's are live again), no longer archived into it."""
    status = MemoryStatus.DECAYED if rt.store.purging.kind_of(holder) == MemoryKind.GIST.value else MemoryStatus.ACTIVE
    members = [mid for mid in rt.store.purging.archived_members(holder) if mid not in gone]
    for member in rt.store.memories_by_ids(members):
        freed = replace(member, status=status, status_changed_at=now, superseded_by=None)
        rt.store.update_memory(freed)
        rt.index_update(freed)


def _delete(rt: Runtime, memory_id: str, now: datetime) -> None:
    """Row, sources, vector, index entry and belief text of one memory."""
    memory = _readable(rt, memory_id)
    if memory is not None:
        for belief in rt.store.beliefs_of_memory(memory_id):
            retired = ledger.retire_belief(belief, now) if belief.expired_at is None else belief
            rt.store.update_belief(replace(retired, statement=PURGED_TEXT, object=""))
    rt.store.purging.redact_beliefs(memory_id, PURGED_TEXT, now)  # the ones that no longer decode, too
    sources = rt.store.purging.source_message_ids(memory_id)
    rt.store.delete_memory(memory_id)
    rt.index_remove(memory_id)
    for message_id in sources:
        rt.store.redact_message(message_id, PURGED_TEXT)


def _quotes(text: str, needles: set[str]) -> bool:
    flat = normalised(text)
    return any(needle in flat for needle in needles)


def _redact_messages(rt: Runtime, needles: set[str]) -> int:
    quoting = [mid for mid, text in rt.store.purging.message_texts(PURGED_TEXT) if _quotes(text, needles)]
    for message_id in quoting:
        rt.store.redact_message(message_id, PURGED_TEXT)
    return len(quoting)


def _scrubbed(value: object, needles: set[str], ids: set[str]) -> object:
    """A JSON value with every string that quotes the text (or names a purged id) replaced."""
    if isinstance(value, dict):
        return {k: _scrubbed(v, needles, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v, needles, ids) for v in value]
    if isinstance(value, str) and (value in ids or _quotes(value, needles)):
        return PURGED_TEXT
    return value


def _redact_proposals(rt: Runtime, needles: set[str], ids: set[str]) -> None:
    for proposal_id, raw in rt.store.purging.proposals():
        actions = json.loads(raw)
        for action in actions:
            if ids & set(action.get("ids") or ()) or _quotes(json.dumps(action, ensure_ascii=False), needles):
                action.update(text=PURGED_TEXT if action.get("text") else action.get("text"), reason=PURGED_TEXT)
        rewritten = json.dumps(actions)
        if rewritten != raw:
            rt.store.purging.set_proposal_actions(proposal_id, rewritten)


def _redact_kept_responses(rt: Runtime, needles: set[str], ids: set[str]) -> None:
    """JSON values in the meta table (kept first results of idempotent writes) that quote the text."""
    for key, raw in rt.store.purging.meta_items():
        try:
            value = json.loads(raw) if raw[:1] in ("{", "[") else None
        except ValueError:
            continue
        if value is None:
            continue
        scrubbed = _scrubbed(value, needles, set())
        if scrubbed != value:
            rt.store.set_meta(key, json.dumps(scrubbed, separators=(",", ":")))


def purge(rt: Runtime, memory_id: str, now: datetime) -> Event:
    """Inside the caller's transaction; the memory must exist (readable or not)."""
    chain = derived_chain(rt, memory_id)
    needles = quoted_texts(rt, memory_id, chain)
    gone = {memory_id, *chain}
    _release_members(rt, memory_id, gone, now)  # a purged gist: its originals stay, faded again
    for holder in chain:
        _release_members(rt, holder, gone, now)
        _delete(rt, holder, now)
    _delete(rt, memory_id, now)
    redacted = _redact_messages(rt, needles)
    _redact_proposals(rt, needles, gone)
    _redact_kept_responses(rt, needles, gone)
    return rt.event(EventKind.PURGED, memory_id=memory_id, derived_dropped=len(chain), messages_redacted=redacted)
