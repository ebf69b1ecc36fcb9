"""The write primitives every use case that writes shares: a memory made, stored or set to a status, and the
log of what was written."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from engram_core.core.model import Belief, Embedding, Event, EventKind, Memory, MemoryKind, MemoryStatus, Message, \
    Scalar, WriteResult
from engram_core.core.retention import RECALLABLE, initial_stability
from engram_core.usecases.runtime import Runtime


@dataclass
class WriteLog:
    """What one use case wrote, gathered for the caller and the audit log."""

    memories: list[Memory]
    beliefs: list[Belief]
    events: list[Event]

    def result(self, message: Message | None) -> WriteResult:
        return WriteResult(message, tuple(self.memories), tuple(self.beliefs), tuple(self.events))


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
