"""The recall index's per-memory values: built all at once, or read from the store when first asked for.

A loaded index (``ActiveIndex.load``) starts from columns alone and reads a memory's entry (the
memory, the belief it states, its rendered lines) the first time recall needs it as a candidate:
a 100,000-memory tenant's first recall reads a few hundred rows, not 100,000.

Between uses an entry is held as a record: one tuple of plain values (strings, numbers, times, the
vector), which CPython's collector stops tracking after one pass, in a numpy object array, which the
collector does not walk (a list of 100,000 records or ids is 100,000 visits per pass). Held as
``IndexEntry`` objects in a list (each with its ``Memory``, ``Embedding`` and sets: five tracked
objects), the entries recall had read over a few hundred recalls made every full collection walk
hundreds of thousands of objects, a 200 to 265 ms pause every hundred recalls at 100,000 memories
(docs/benchmarks.md, section 4). An entry is made an object again when asked for, and stays the same
object (what recall's candidates hold and update) until ``settle``, at the start of the next recall,
turns it back into its record. Nothing a record holds refers back to it, so no cycle needs the
collector: dropping the index frees them by reference counting.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Any

import numpy as np

from engram_core.core.errors import StoreError
from engram_core.core.model import Belief, Cardinality, Embedding, Memory, MemoryKind, MemoryStatus
from engram_core.core.render import BlockForm
from engram_core.core.restatements import states_a_change

# Entries kept as objects between recalls, the most recently used. Measured idle at 100,000 memories (`engram
# bench scale --sizes 100000 --queries 300`): holding 8,192 kept full collections at 52 ms but remaking entries
# put steady p95 at 72 ms; holding all gives p95 49 ms with a 215 ms collection now and then. Steady recall wins.
HELD_ENTRIES = 200_000
EntryFetch = Callable[[Sequence[str]], list[tuple[Memory, Belief | None]]]
# The fields a record keeps, in the order the dataclasses declare them (tests/test_index_load.py checks both).
MEMORY_FIELDS = ("id", "kind", "text", "importance", "stability_hours", "created_at", "last_accessed_at",
                 "access_count", "status", "status_changed_at", "provenance", "session_id", "subject", "belief_id",
                 "superseded_by", "critical", "embedding")
BELIEF_FIELDS = ("id", "subject", "predicate", "object", "statement", "valid_from", "recorded_at", "valid_to",
                 "expired_at", "superseded_by", "source_message_id", "memory_id", "cardinality")
_memory_values, _belief_values = attrgetter(*MEMORY_FIELDS), attrgetter(*BELIEF_FIELDS)
_KINDS = {kind.value: kind for kind in MemoryKind}
_STATUSES = {status.value: status for status in MemoryStatus}
_CARDINALITIES = {cardinality.value: cardinality for cardinality in Cardinality}
_FORMS = {form.value: form for form in BlockForm}


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


def entry_of(memory: Memory, belief: Belief | None) -> IndexEntry:
    return IndexEntry(memory, veto_key(belief), belief.valid_from if belief else memory.created_at, belief)


def memory_record(memory: Memory) -> tuple[Any, ...]:
    """A memory as plain values (enums by value, the embedding as vector and model): untracked by gc."""
    v = _memory_values(memory)
    embedding = v[16]
    return (*v[:1], v[1].value, *v[2:8], v[8].value, *v[9:16],
            None if embedding is None else embedding.vector, None if embedding is None else embedding.model_id)


def memory_from_record(v: tuple[Any, ...]) -> Memory:
    embedding = None if v[16] is None else Embedding(v[16], v[17])
    return Memory(v[0], _KINDS[v[1]], v[2], v[3], v[4], v[5], v[6], v[7], _STATUSES[v[8]], v[9], v[10], v[11], v[12],
                  v[13], v[14], v[15], embedding)


def belief_record(belief: Belief | None) -> tuple[Any, ...] | None:
    if belief is None:
        return None
    v = _belief_values(belief)
    return (*v[:12], v[12].value)


def belief_from_record(v: tuple[Any, ...] | None) -> Belief | None:
    if v is None:
        return None
    return Belief(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], _CARDINALITIES[v[12]])


def _record(entry: IndexEntry, memory: tuple[Any, ...]) -> tuple[Any, ...]:
    """An entry as one tuple of plain values, its memory already recorded as ``memory``."""
    return (memory, belief_record(entry.belief), entry.veto_key, entry.valid_from,
            tuple((form.value, line, tokens) for form, (line, tokens) in entry.rendered.items()),
            tuple(form.value for form in entry.stale), entry._key, entry._key_of, entry._change, entry._change_of)


def _entry(record: tuple[Any, ...]) -> IndexEntry:
    memory, belief, veto, valid_from, rendered, stale, key, key_of, change, change_of = record
    return IndexEntry(memory_from_record(memory), veto, valid_from, belief_from_record(belief),
                      {_FORMS[form]: (line, tokens) for form, line, tokens in rendered},
                      {_FORMS[form] for form in stale}, key, key_of, change, change_of)


def _objects(count: int) -> np.ndarray:
    return np.full(count, None, dtype=object)


def _within(pos: int, size: int) -> int:
    """``pos`` as a list index (negative from the end), refused past the last row."""
    if not -size <= pos < size:
        raise IndexError(f"index entry {pos} out of range ({size} rows)")
    return pos % size


class IndexEntries:
    """The entries by row. A loaded index reads one from the store (``fetch``, by memory id) the first
    time it is asked for and keeps it; a built index holds them all from the start."""

    def __init__(self, fetch: EntryFetch | None = None, ids: Sequence[str] = ()) -> None:
        self._fetch = fetch
        self._size = len(ids)
        self._ids = _objects(self._size)
        self._ids[:] = list(ids)
        self._records = _objects(self._size)  # None: not read yet
        # Entries handed out since the last ``settle``: each with the memory it was made with and its record.
        self._live: dict[int, tuple[IndexEntry, Memory, tuple[Any, ...]]] = {}

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, pos: int) -> IndexEntry:
        pos = _within(pos, self._size)
        live = self._live.pop(pos, None)
        if live is not None:
            self._live[pos] = live  # the most recently used last: ``settle`` keeps those
            return live[0]
        record = self._records[pos]
        if record is None:
            self.prefetch((pos,))
            return self._live[pos][0]
        entry = _entry(record)
        self._live[pos] = (entry, entry.memory, record[0])
        return entry

    def __iter__(self) -> Iterator[IndexEntry]:
        self.prefetch(range(self._size))
        return iter([self[pos] for pos in range(self._size)])

    def append(self, entry: IndexEntry) -> None:
        if self._size == len(self._ids):
            grown = max(1024, 2 * self._size)
            self._ids = np.concatenate([self._ids, _objects(grown - self._size)])
            self._records = np.concatenate([self._records, _objects(grown - self._size)])
        self._ids[self._size] = entry.memory.id
        self._records[self._size] = _record(entry, memory_record(entry.memory))
        self._size += 1

    def read_so_far(self) -> int:
        """How many entries are held (a loaded index starts with none)."""
        return sum(record is not None for record in self._records[: self._size].tolist())

    def settle(self, most: int = 0) -> None:
        """Once more than ``most`` entries are handed out, the least recently used back into records, down to half
        of ``most`` (a memory re-recorded only if it was replaced)."""
        if len(self._live) <= most:
            return
        for pos in list(itertools.islice(self._live, len(self._live) - most // 2)):
            entry, memory, recorded = self._live.pop(pos)
            self._records[pos] = _record(entry, recorded if entry.memory is memory else memory_record(entry.memory))

    def prefetch(self, positions: Sequence[int] | range | np.ndarray) -> None:
        """Read the entries of these rows not held yet, in one request to the store."""
        records, size = self._records, self._size
        missing = [pos for pos in dict.fromkeys(_within(int(p), size) for p in positions) if records[pos] is None]
        if not missing:
            return
        if self._fetch is None:
            raise StoreError("the recall index has no entry for a row it was built with")
        found = {memory.id: (memory, belief) for memory, belief in self._fetch([self._ids[p] for p in missing])}
        for pos in missing:
            row = found.get(self._ids[pos])
            if row is None:
                raise StoreError(f"memory {self._ids[pos]} left the store while the recall index held it; "
                                 "retry the request")
        for pos in missing:
            memory, belief = found[self._ids[pos]]
            entry = entry_of(memory, belief)
            recorded = memory_record(memory)
            records[pos] = (recorded,)  # held: made into its full record by ``settle``
            self._live[pos] = (entry, memory, recorded)
