"""The recall index's per-memory values, held as plain records: built all at once, or read from the store
when first asked for.

A loaded index (``ActiveIndex.load``) starts from columns alone and reads a memory's record (the memory,
the belief it states, its rendered lines) the first time recall needs it as a candidate: a 100,000-memory
tenant's first recall reads a few hundred rows, not 100,000.

A record is one tuple of plain values (strings, numbers, times, the vector), which CPython's collector
stops tracking after one pass, in a numpy object array, which the collector does not walk. Nothing is
held as an object between recalls: ``entries[pos]`` is an ``IndexEntry``, a small view of the row (its
position and record) that reads the fields recall ranks and packs by straight from the record and
makes the ``Memory`` (or ``Belief``) only when asked for it, for the few items packed or reinforced.
Held as objects (an entry with its ``Memory``, ``Embedding``, a dict and a set of cached lines: six
tracked objects), the entries recall had read made every full collection walk hundreds of thousands of
objects at 100,000 memories: pauses of 200 to 330 ms (docs/benchmarks.md, section 4); kept as records
but remade as objects for every candidate, each recall paid 8 to 12 ms more (remaking 330 entries,
putting them back, the young collections their objects caused).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from operator import attrgetter
from typing import Any, cast

import numpy as np

from engram_core.core.errors import StoreError
from engram_core.core.model import Belief, Cardinality, Embedding, Memory, MemoryKind, MemoryStatus
from engram_core.core.render import BlockForm
from engram_core.core.restatements import text_states_a_change
from engram_core.core.asked import states
from engram_core.core.broad_slots import slots_named_broadly
from engram_core.core.slots import slot_reading

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
_FORM_NAMES = {form: form.value for form in BlockForm}
# A row's record: its memory's record, its belief's, then what recall keeps about it.
_MEMORY, _BELIEF, _VETO, _VALID_FROM, _LINES, _STALE, _KEY, _KEY_OF, _CHANGE, _CHANGE_OF, _BROAD, _BROAD_OF, _STATED, \
    _STATED_OF = range(14)
# Positions in a memory's record.
_ID, _KIND, _TEXT, _CREATED, _PROVENANCE, _SESSION, _SUBJECT, _BELIEF_ID = 0, 1, 2, 5, 10, 11, 12, 13


def veto_key(belief: Belief | None) -> str | None:
    if belief is None or belief.cardinality is not Cardinality.ONE:
        return None
    return f"{belief.subject}\x1f{belief.predicate}"


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


def row_record(memory: Memory, belief: Belief | None) -> tuple[Any, ...]:
    """A new row: nothing rendered or worked out yet."""
    return (memory_record(memory), belief_record(belief), veto_key(belief),
            belief.valid_from if belief else memory.created_at, (), (), "", None, None, None, None, None, (), None)


class IndexEntry:
    """One row as recall reads it: the fields ranking and packing use, read from the row's record; the
    memory and belief made when asked for. What it learns (a rendered line, a text's key) goes back to the
    record. A view reads the record as it was when made: ask the index again after a write through it
    (``IndexEntries.replace_memory``)."""

    __slots__ = ("_entries", "_pos", "_record", "_belief")

    def __init__(self, entries: IndexEntries, pos: int, record: tuple[Any, ...]) -> None:
        self._entries, self._pos = entries, pos
        self._record = record  # the record as it was when the view was made, and what the view wrote since
        self._belief: Belief | None | bool = False  # False: not made yet

    @property
    def record(self) -> tuple[Any, ...]:
        return self._record

    def _write(self, record: tuple[Any, ...]) -> None:
        self._record = self._entries._records[self._pos] = record

    @property
    def id(self) -> str:
        value: str = self._record[_MEMORY][_ID]
        return value

    @property
    def kind(self) -> MemoryKind:
        return _KINDS[self._record[_MEMORY][_KIND]]

    @property
    def text(self) -> str:
        value: str = self._record[_MEMORY][_TEXT]
        return value

    @property
    def created_at(self) -> datetime:
        value: datetime = self._record[_MEMORY][_CREATED]
        return value

    @property
    def provenance(self) -> tuple[str, ...]:
        value: tuple[str, ...] = self._record[_MEMORY][_PROVENANCE]
        return value

    @property
    def belief_id(self) -> str | None:
        value: str | None = self._record[_MEMORY][_BELIEF_ID]
        return value

    @property
    def memory(self) -> Memory:
        """The memory, made anew from the record (a frozen value: keep it rather than ask again)."""
        return memory_from_record(self._record[_MEMORY])

    @property
    def belief(self) -> Belief | None:
        """The current belief the memory states, if any (made once per view)."""
        if self._belief is False:
            held = self._record[_BELIEF]
            self._belief = None if held is None else belief_from_record(held)
        return self._belief  # type: ignore[return-value]

    @property
    def veto_key(self) -> str | None:
        value: str | None = self._record[_VETO]
        return value

    @property
    def valid_from(self) -> datetime:
        value: datetime = self._record[_VALID_FROM]
        return value

    @property
    def rendered(self) -> dict[BlockForm, tuple[str, int]]:
        """Per block form, the line last rendered and what it costs."""
        return {_FORMS[form]: (line, tokens) for form, line, tokens in self._record[_LINES]}

    @property
    def stale(self) -> frozenset[BlockForm]:
        """The forms whose line is re-rendered (and recounted only if it changed) when next asked for."""
        return frozenset(_FORMS[form] for form in self._record[_STALE])

    @property
    def text_key(self) -> str:
        """The text as a repeat is recognised: case and spacing aside (kept until the text changes)."""
        record = self._record
        text = record[_MEMORY][_TEXT]
        if record[_KEY_OF] != text:
            key = " ".join(text.lower().split())
            self._write(record[:_KEY] + (key, text) + record[_CHANGE:])
            return key
        key_held: str = record[_KEY]
        return key_held

    def _change_reading(self) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
        """Whether the text carries a change cue (``restatements``), which slots it says changed and which
        it names (``slots``), kept until the text changes: three regular expressions over 400 candidates
        were 3.5 ms of every recall (docs/benchmarks.md, section 4)."""
        record = self._record
        text = record[_MEMORY][_TEXT]
        if record[_CHANGE_OF] != text:
            # Slots as sorted tuples of strings, not sets: the record stays out of the collector's sight.
            reading = (text_states_a_change(text), *slot_reading(text))
            self._write(record[:_CHANGE] + (reading, text) + record[_BROAD:])
            return reading
        return cast("tuple[bool, tuple[str, ...], tuple[str, ...]]", record[_CHANGE])

    @property
    def states_a_change(self) -> bool:
        return self._change_reading()[0]

    @property
    def slots(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``slots_changed`` and ``slots_named`` in one read (recall asks both of 400 candidates)."""
        reading = self._change_reading()
        return reading[1], reading[2]

    @property
    def slots_named_broadly(self) -> tuple[str, ...]:
        """``slots_named`` broadly, for a question about a slot now (``asked``): read only when a question asks
        one, and kept until the text changes (read with the other slots, it made the scale suite's first 50
        recalls 60% slower)."""
        record = self._record
        text = record[_MEMORY][_TEXT]
        if record[_BROAD_OF] != text:
            named = tuple(sorted(slots_named_broadly(text)))  # a tuple of strings: out of the collector's sight
            self._write(record[:_BROAD] + (named, text) + record[_STATED:])
            return named
        return cast("tuple[str, ...]", record[_BROAD])

    def states(self, slot: str) -> bool:
        """``asked.states``: whether the text states the slot's value as so now, kept per slot until the text
        changes (read afresh on every question about a slot, it made the scale suite's slowest recall half as
        slow again)."""
        record = self._record
        text = record[_MEMORY][_TEXT]
        known: tuple[tuple[str, bool], ...] = record[_STATED] if record[_STATED_OF] == text else ()
        for name, value in known:
            if name == slot:
                return value
        stated = states(text, slot)
        self._write(record[:_STATED] + (known + ((slot, stated),), text))
        return stated

    def line_and_tokens(self, form: BlockForm, render: Callable[[IndexEntry], str],
                        count: Callable[[str], int]) -> tuple[str, int]:
        """``render(entry)`` and ``count(line)`` for one form, recounted only when the line changes.

        Kept per form while rendering gives the same line: counting 400 candidates' tokens on every recall
        was a quarter of recall time (docs/benchmarks.md, section 4)."""
        record, name = self._record, _FORM_NAMES[form]  # a dict, not the enum's ``value`` descriptor: 400 a recall
        lines, stale = record[_LINES], record[_STALE]
        cached = None
        for held, line, tokens in lines:
            if held == name:
                cached = (line, tokens)
                if name not in stale:
                    return cached
                break
        line = render(self)
        if cached is None or cached[0] != line:
            cached = (line, count(line))
            lines = (*(held for held in lines if held[0] != name), (name, *cached))
        self._write((*record[:_LINES], lines, tuple(f for f in stale if f != name), *record[_KEY:]))
        return cached

    def values(self) -> tuple[Any, ...]:
        """Everything the row holds, as objects: for comparing two rows."""
        record = self._record
        return (self.memory, self.belief, record[_VETO], record[_VALID_FROM], self.rendered, self.stale,
                self.text_key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IndexEntry):
            return NotImplemented
        return self.values() == other.values()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"IndexEntry({self.id!r}, row {self._pos})"


def _objects(count: int) -> np.ndarray:
    return np.full(count, None, dtype=object)


def _within(pos: int, size: int) -> int:
    """``pos`` as a list index (negative from the end), refused past the last row."""
    if not -size <= pos < size:
        raise IndexError(f"index entry {pos} out of range ({size} rows)")
    return pos % size


class IndexEntries:
    """The records by row. A loaded index reads one from the store (``fetch``, by memory id) the first
    time it is asked for; a built index holds them all from the start."""

    def __init__(self, fetch: EntryFetch | None = None, ids: Sequence[str] = ()) -> None:
        self._fetch = fetch
        self._size = len(ids)
        self._ids = _objects(self._size)
        self._ids[:] = list(ids)
        self._records = _objects(self._size)  # None: not read yet

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, pos: int) -> IndexEntry:
        pos = _within(pos, self._size)
        if self._records[pos] is None:
            self.prefetch((pos,))
        return IndexEntry(self, pos, self._records[pos])

    def __iter__(self) -> Iterator[IndexEntry]:
        self.prefetch(range(self._size))
        return iter([IndexEntry(self, pos, self._records[pos]) for pos in range(self._size)])

    def append(self, memory: Memory, belief: Belief | None) -> None:
        if self._size == len(self._ids):
            grown = max(1024, 2 * self._size)
            self._ids = np.concatenate([self._ids, _objects(grown - self._size)])
            self._records = np.concatenate([self._records, _objects(grown - self._size)])
        self._ids[self._size] = memory.id
        self._records[self._size] = row_record(memory, belief)
        self._size += 1

    def replace_memory(self, pos: int, memory: Memory) -> None:
        """The row's memory changed (the same id): every rendered line is re-rendered when next asked for."""
        pos = _within(pos, self._size)
        if self._records[pos] is None:
            self.prefetch((pos,))
        record = self._records[pos]
        stale = tuple(form for form, _, _ in record[_LINES])
        self._records[pos] = (memory_record(memory), *record[_BELIEF:_STALE], stale, *record[_KEY:])

    def read_so_far(self) -> int:
        """How many rows' records are held (a loaded index starts with none)."""
        return sum(record is not None for record in self._records[: self._size].tolist())

    def views(self, positions: list[int]) -> list[IndexEntry]:
        """``[self[pos] for pos in positions]``, the records read in one request and checked in one pass."""
        self.prefetch(positions)
        records = self._records
        return [IndexEntry(self, pos, records[pos]) for pos in positions]

    def ids_at(self, positions: np.ndarray) -> list[str]:
        """The memory ids of these rows (no record read)."""
        return cast("list[str]", self._ids[: self._size][positions].tolist())

    def prefetch(self, positions: Sequence[int] | range | np.ndarray) -> None:
        """Read the records of these rows not held yet, in one request to the store."""
        records, size = self._records, self._size
        rows = np.asarray(positions, dtype=np.int64)
        if rows.size and (int(rows.min()) < -size or int(rows.max()) >= size):
            raise IndexError(f"index entry out of range ({size} rows)")
        rows = rows % max(size, 1)
        held = records[rows].tolist()
        if None not in held:  # every row read already: one pass in C
            return
        missing = list(dict.fromkeys(pos for pos, record in zip(rows.tolist(), held, strict=True) if record is None))
        if self._fetch is None:
            raise StoreError("the recall index has no entry for a row it was built with")
        found = {memory.id: (memory, belief) for memory, belief in self._fetch([self._ids[p] for p in missing])}
        for pos in missing:
            if self._ids[pos] not in found:
                raise StoreError(f"memory {self._ids[pos]} left the store while the recall index held it; "
                                 "retry the request")
        for pos in missing:
            records[pos] = row_record(*found[self._ids[pos]])
