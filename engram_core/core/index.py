"""In-memory recall index: the active memories as numpy columns and one vector matrix.

Loaded once per open and kept in step with the engine's own writes, so recall
is one matrix-vector product plus vectorised scoring, not a row-by-row scan.
``load`` starts it from a store's columns (``index_columns.py``), reading each memory's entry only
when recall first needs it; ``build`` adds decoded rows one by one, and the two give equal indexes
(tests/test_index_load.py compares every attribute).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import numpy as np

from engram_core.core.config import EngineConfig
from engram_core.core.entities import memory_entity
from engram_core.core.index_columns import KINDS, IndexColumns, epoch_hours, room_for
from engram_core.core.index_entries import EntryFetch, IndexEntries, IndexEntry, veto_key
from engram_core.core.model import Belief, Memory, MemoryKind, MemoryStatus

__all__ = ["ActiveIndex", "IndexEntry", "epoch_hours", "veto_key"]
_COLUMNS = ("importance", "stability", "accessed_h", "created_h", "prior", "critical", "archived")


class ActiveIndex:
    """Active memories; rows are appended, removals are masked out."""

    def __init__(self, dim: int, config: EngineConfig, capacity: int = 1024) -> None:
        self.dim = dim
        self.config = config
        self.entries = IndexEntries()
        self.position: dict[str, int] = {}
        self.vectors = np.zeros((capacity, dim), dtype=np.float32)
        self.columns = {name: np.zeros(capacity, dtype=np.float64) for name in _COLUMNS}
        self.alive = np.zeros(capacity, dtype=bool)
        # Conversation order: the episode before and after each one in its session (-1: none).
        self.previous = np.full(capacity, -1, dtype=np.int64)
        self.following = np.full(capacity, -1, dtype=np.int64)
        self._last_in_session: dict[str, int] = {}
        # Entity links: the speaker or subject of each row (-1: none), by id into ``entity_ids``.
        self.entity = np.full(capacity, -1, dtype=np.int64)
        self.entity_ids: dict[str, int] = {}

    @classmethod
    def build(cls, dim: int, config: EngineConfig, rows: list[tuple[Memory, Belief | None]]) -> ActiveIndex:
        index = cls(dim, config, capacity=room_for(len(rows)))
        for memory, belief in rows:
            index.add(memory, belief)
        return index

    @classmethod
    def load(cls, dim: int, config: EngineConfig, columns: IndexColumns, fetch: EntryFetch) -> ActiveIndex:
        """The index ``build`` makes of the same rows, from their columns; entries are read on first use."""
        size = len(columns.ids)
        index = cls(dim, config, capacity=columns.vectors.shape[0])
        index.vectors = columns.vectors
        index.entries = IndexEntries(fetch, columns.ids)
        index.position = dict(zip(columns.ids, range(size), strict=True))
        cols = index.columns
        cols["importance"][:size] = columns.importance
        cols["stability"][:size] = columns.stability
        cols["accessed_h"][:size] = columns.accessed_h
        cols["created_h"][:size] = columns.created_h
        priors = np.zeros(len(KINDS), dtype=np.float64)
        for kind in np.unique(columns.kinds).tolist():  # the kinds present, as ``build`` looks them up
            priors[kind] = config.type_prior[KINDS[kind]]
        cols["prior"][:size] = priors[columns.kinds]
        cols["critical"][:size] = columns.critical | (columns.importance >= config.critical_importance)
        cols["archived"][:size] = columns.archived
        index.alive[:size] = True
        index._link_all(columns)
        for pos, key in enumerate(columns.entities):
            if key is not None:
                index.entity[pos] = index.entity_ids.setdefault(key, len(index.entity_ids))
        return index

    def _link_all(self, columns: IndexColumns) -> None:
        """``_link`` for every episode of a session, in row order, by creation time."""
        episodes = np.flatnonzero(columns.kinds == KINDS.index(MemoryKind.EPISODE)).tolist()
        created, sessions, last_in = columns.created_us.tolist(), columns.sessions, self._last_in_session
        for pos in episodes:
            session = sessions[pos]
            if session is None:
                continue
            last = last_in.get(session)
            if last is None or created[last] <= created[pos]:
                if last is not None:
                    self.previous[pos], self.following[last] = last, pos
                last_in[session] = pos

    def _grow(self) -> None:
        size = 2 * len(self.alive)
        self.vectors = np.resize(self.vectors, (size, self.dim))
        self.columns = {k: np.resize(v, size) for k, v in self.columns.items()}
        grown = size - len(self.alive)
        self.alive = np.concatenate([self.alive, np.zeros(grown, dtype=bool)])
        self.previous = np.concatenate([self.previous, np.full(grown, -1, dtype=np.int64)])
        self.following = np.concatenate([self.following, np.full(grown, -1, dtype=np.int64)])
        self.entity = np.concatenate([self.entity, np.full(grown, -1, dtype=np.int64)])

    def _write_columns(self, pos: int, memory: Memory) -> None:
        cols = self.columns
        cols["importance"][pos] = memory.importance
        cols["stability"][pos] = memory.stability_hours
        cols["accessed_h"][pos] = epoch_hours(memory.last_accessed_at)
        cols["created_h"][pos] = epoch_hours(memory.created_at)
        cols["prior"][pos] = self.config.type_prior[memory.kind]
        cols["critical"][pos] = float(memory.critical or memory.importance >= self.config.critical_importance)
        cols["archived"][pos] = float(memory.status is MemoryStatus.ARCHIVED)  # cold, whatever its retention

    def add(self, memory: Memory, belief: Belief | None) -> None:
        if memory.embedding is None or memory.embedding.dim != self.dim:
            return
        pos = len(self.entries)
        if pos >= len(self.alive):
            self._grow()
        self.position[memory.id] = pos
        self.entries.append(memory, belief)
        self.vectors[pos] = memory.embedding.vector
        self._write_columns(pos, memory)
        self.alive[pos] = True
        self._link(pos, memory)
        self._name(pos, memory)

    def _name(self, pos: int, memory: Memory) -> None:
        key = memory_entity(memory)
        self.entity[pos] = -1 if key is None else self.entity_ids.setdefault(key, len(self.entity_ids))

    def _link(self, pos: int, memory: Memory) -> None:
        """An episode follows the last one of its session that is not newer (memories arrive in order)."""
        if memory.kind is not MemoryKind.EPISODE or memory.session_id is None:
            return
        last = self._last_in_session.get(memory.session_id)
        if last is not None and self.entries[last].created_at <= memory.created_at:
            self.previous[pos], self.following[last] = last, pos
        if last is None or self.entries[last].created_at <= memory.created_at:
            self._last_in_session[memory.session_id] = pos

    def remove(self, memory_id: str) -> None:
        pos = self.position.pop(memory_id, None)
        if pos is not None:
            self.alive[pos] = False

    def update(self, memory: Memory) -> None:
        pos = self.position.get(memory.id)
        if pos is not None:
            self.entries.replace_memory(pos, memory)
            self._write_columns(pos, memory)

    def touch(self, memory_id: str, stability_hours: float, accessed_at: datetime, access_count: int) -> None:
        """A reinforced memory: only its access state changed."""
        pos = self.position.get(memory_id)
        if pos is not None:
            memory = replace(self.entries[pos].memory, stability_hours=stability_hours,
                             last_accessed_at=accessed_at, access_count=access_count)
            self.update(memory)

    def size(self) -> int:
        return len(self.entries)


    def __len__(self) -> int:
        return len(self.position)
