"""What a correction writes besides retiring the older words (pure rules in ``core/amend`` and
``core/carryover``): the older message set right in place, and the facts it ended written anew with the value
set right. Both reuse the older vector (one value differs), so no embedding is asked for while the write
transaction is open."""

from __future__ import annotations

from dataclasses import replace

from engram_core.core import ledger
from engram_core.core.amend import amended, named_swaps
from engram_core.core.carryover import set_right
from engram_core.core.model import Belief, EventKind, MemoryKind, Message
from engram_core.core.selfcorrection import said_swap, sets_something_right
from engram_core.usecases.runtime import Runtime
from engram_core.usecases.writeplan import new_belief
from engram_core.usecases.writes import WriteLog, new_memory, store_memory

SETS_RIGHT = "a newer message sets it right"


def set_right_fact(rt: Runtime, belief: Belief, text: str, message: Message, log: WriteLog) -> Belief | None:
    """A fact a correction ends, written anew with the value it sets right ("My boss's name is Grete.", then
    "I misspelled it, my boss is Greta."; ``core/carryover.set_right``); None when the correction names no one
    value in its place, or this message's own facts hold it. Its vector is the old fact's (one value differs),
    so no embedding is asked for while the write transaction is open."""
    held = rt.store.get_memory(belief.memory_id) if belief.memory_id else None
    source = [m.text for m in rt.store.memories_from_message(belief.source_message_id or "")
              if m.kind is MemoryKind.EPISODE]
    swap = said_swap(source[0] if source else belief.statement, text)
    draft = set_right(belief, swap.old, swap.new) if swap is not None else None
    if draft is None or held is None or held.embedding is None \
            or any(ledger.same_fact(draft, b) for b in rt.store.beliefs_from_message(message.id)):
        return None
    fixed = new_belief(rt, draft, message, rt.now())
    memory = new_memory(rt, kind=draft.kind, text=draft.statement, importance=held.importance, at=message.occurred_at,
                        vector=held.embedding.vector, provenance=(message.id,), session_id=message.session_id,
                        subject=draft.subject, belief_id=fixed.id, critical=held.critical)
    fixed = replace(fixed, memory_id=memory.id)
    rt.store.insert_belief(fixed)
    log.beliefs.append(fixed)
    store_memory(rt, memory, log, fixed, path="set right")
    return fixed


def amend(rt: Runtime, text: str, message: Message, log: WriteLog) -> None:
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
