"""In-memory recall index: the active memories as numpy columns and one vector matrix.

Loaded once per open and kept in step with the engine's own writes, so recall
is one matrix-vector product plus vectorised scoring, not a row-by-row scan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

import numpy as np

from engram_core.core.config import EngineConfig
from engram_core.core.entities import memory_entity
from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind, MemoryStatus
from engram_core.core.render import BlockForm
from engram_core.core.restatements import states_a_change

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_COLUMNS = ("importance", "stability", "accessed_h", "created_h", "prior", "critical", "archived")


def epoch_hours(moment: datetime) -> float:
    return (moment - _EPOCH).total_seconds() / 3600.0


def veto_key(belief: Belief | None) -> str | None:
    if belief is None or belief.cardinality is not Cardinality.ONE:
        return None
    return f"{belief.subject}\x1f{belief.predicate}"


@dataclass
class IndexEntry:
    memory: Memory
    veto_key: str | None
    valid_from: datetime
    belief: Belief | None = None  # the current belief the memory states, if any
    # Per block form, the rendered line and what it costs, kept while rendering gives the same
    # line: counting 400 candidates' tokens on every recall was a quarter of recall time
    # (docs/benchmarks.md, section 4). ``stale`` forms are re-rendered and recounted only if changed.
    rendered: dict[BlockForm, tuple[str, int]] = field(default_factory=dict)
    stale: set[BlockForm] = field(default_factory=set)

    @property
    def text_key(self) -> str:
        """The text as a repeat is recognised: case and spacing aside (kept until the text changes)."""
        if self._key_of != self.memory.text:
            self._key, self._key_of = " ".join(self.memory.text.lower().split()), self.memory.text
        return self._key

    _key: str = field(default="", repr=False)
    _key_of: str | None = field(default=None, repr=False)

    @property
    def states_a_change(self) -> bool:
        """Whether the text carries a change cue (``restatements``), kept until the text changes: three
        regular expressions over 400 candidates were 3.5 ms of every recall (docs/benchmarks.md, section 4)."""
        if self._change_of != self.memory.text:
            self._change, self._change_of = states_a_change(self.memory), self.memory.text
        return self._change

    _change: bool = field(default=False, repr=False)
    _change_of: str | None = field(default=None, repr=False)

    def line_and_tokens(self, form: BlockForm, render: Callable[[IndexEntry], str],
                        count: Callable[[str], int]) -> tuple[str, int]:
        """``render(entry)`` and ``count(line)`` for one form, recounted only when the line changes."""
        cached = self.rendered.get(form)
        if cached is not None and form not in self.stale:
            return cached
        line = render(self)
        if cached is None or cached[0] != line:
            cached = self.rendered[form] = (line, count(line))
        self.stale.discard(form)
        return cached


class ActiveIndex:
    """Active memories; rows are appended, removals are masked out."""

    def __init__(self, dim: int, config: EngineConfig, capacity: int = 1024) -> None:
        self.dim = dim
        self.config = config
        self.entries: list[IndexEntry] = []
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
        index = cls(dim, config, capacity=max(1024, 2 * len(rows)))
        for memory, belief in rows:
            index.add(memory, belief)
        return index

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
        valid_from = belief.valid_from if belief else memory.created_at
        self.entries.append(IndexEntry(memory, veto_key(belief), valid_from, belief))
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
        if last is not None and self.entries[last].memory.created_at <= memory.created_at:
            self.previous[pos], self.following[last] = last, pos
        if last is None or self.entries[last].memory.created_at <= memory.created_at:
            self._last_in_session[memory.session_id] = pos

    def remove(self, memory_id: str) -> None:
        pos = self.position.pop(memory_id, None)
        if pos is not None:
            self.alive[pos] = False

    def update(self, memory: Memory) -> None:
        pos = self.position.get(memory.id)
        if pos is not None:
            self.entries[pos].memory = memory
            self.entries[pos].stale.update(self.entries[pos].rendered)
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
