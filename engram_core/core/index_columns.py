"""What the recall index starts from: its rows as columns, and entries built only when read.

Building the index memory by memory decoded every row into a ``Memory`` and an ``IndexEntry``:
4.5 to 5 s for the first recall of a 100,000-memory tenant, and hundreds of thousands of Python
objects that every full garbage collection walked again (docs/benchmarks.md, section 4). A store
answers ``recall_columns`` instead: numpy arrays and plain lists in row order, what scoring reads
for every row. A memory's full value (its ``IndexEntry``, with the belief it states) is read from the
store the first time recall needs it, as a candidate, and kept from then on (``index_entries.py``).

``columns_from_rows`` gives the same columns from decoded rows: the reference the fast readers are
tested against, and what a store without a columnar reader (the in-memory fake) answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from engram_core.core.entities import memory_entity
from engram_core.core.model import Belief, Memory, MemoryKind, MemoryStatus

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
KINDS = tuple(MemoryKind)  # ``IndexColumns.kinds`` holds positions in this tuple


def epoch_hours(moment: datetime) -> float:
    return (moment - _EPOCH).total_seconds() / 3600.0


def epoch_micros(moment: datetime) -> int:
    """Whole microseconds since 1970: orders like the datetime, exactly."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def room_for(rows: int) -> int:
    """Rows an index of ``rows`` memories is given at first, so that writes seldom grow it."""
    return max(1024, 2 * rows)


@dataclass(frozen=True, eq=False)
class IndexColumns:
    """The indexed memories (recallable, with a vector of the index's dimension) in row order."""

    readable: int  # recallable memories the store could read, with or without such a vector: sets the room
    ids: list[str]
    vectors: np.ndarray  # float32, (room, dim): a row per memory, zeros past the last
    kinds: np.ndarray  # int8 positions in KINDS
    importance: np.ndarray
    stability: np.ndarray
    accessed_h: np.ndarray  # epoch hours
    created_h: np.ndarray
    created_us: np.ndarray  # int64 epoch microseconds: the conversation order of a session's episodes
    critical: np.ndarray  # the memory's own flag (bool)
    archived: np.ndarray  # bool
    sessions: list[str | None]
    entities: list[str | None]  # the speaker or subject each memory is about (``memory_entity``)


@dataclass
class _Gathered:
    ids: list[str]
    vectors: list[np.ndarray]
    numbers: list[tuple[int, float, float, float, float, int, bool, bool]]
    sessions: list[str | None]
    entities: list[str | None]


def columns_from_rows(dim: int, rows: Sequence[tuple[Memory, Belief | None]],
                      room: Callable[[int], int] = room_for) -> IndexColumns:
    """The columns of decoded rows, one memory at a time: what ``ActiveIndex.build`` adds."""
    kept = _Gathered([], [], [], [], [])
    for memory, _belief in rows:
        if memory.embedding is None or memory.embedding.dim != dim:
            continue
        kept.ids.append(memory.id)
        kept.vectors.append(memory.embedding.vector)
        kept.numbers.append((KINDS.index(memory.kind), memory.importance, memory.stability_hours,
                             epoch_hours(memory.last_accessed_at), epoch_hours(memory.created_at),
                             epoch_micros(memory.created_at), memory.critical,
                             memory.status is MemoryStatus.ARCHIVED))
        kept.sessions.append(memory.session_id)
        kept.entities.append(memory_entity(memory))
    vectors = np.zeros((room(len(rows)), dim), dtype=np.float32)
    if kept.vectors:
        vectors[: len(kept.vectors)] = np.stack(kept.vectors)
    kinds, importance, stability, accessed, created, micros, critical, archived = (
        zip(*kept.numbers, strict=True) if kept.numbers else ((),) * 8)
    return IndexColumns(
        readable=len(rows), ids=kept.ids, vectors=vectors, kinds=np.array(kinds, dtype=np.int8),
        importance=np.array(importance, dtype=np.float64), stability=np.array(stability, dtype=np.float64),
        accessed_h=np.array(accessed, dtype=np.float64), created_h=np.array(created, dtype=np.float64),
        created_us=np.array(micros, dtype=np.int64), critical=np.array(critical, dtype=bool),
        archived=np.array(archived, dtype=bool), sessions=kept.sessions, entities=kept.entities,
    )
