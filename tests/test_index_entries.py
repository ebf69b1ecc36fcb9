"""The recall index holds its rows as untracked records, and gives them back unchanged.

Records (tuples of plain values in a numpy object array) keep the full garbage collections short at
100,000 memories; these tests hold the records to what the rows were (every field of the memory and
belief, the cached lines, a replaced memory), check the collector really stops seeing them, and that a
closed engine is still freed after the CLI's start-up ``gc.freeze``.
"""

from __future__ import annotations

import dataclasses
import gc
import weakref
from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.cli.main import freeze_startup_objects
from engram_core.core.config import EngineConfig
from engram_core.core.index_entries import (
    BELIEF_FIELDS, MEMORY_FIELDS, IndexEntries, belief_from_record, belief_record, memory_from_record, memory_record,
)
from engram_core.core.model import Belief, Cardinality, Embedding, Memory, MemoryKind, MemoryStatus
from engram_core.core.render import BlockForm
from engram_bench.scale import fill_store

from conftest import START, make_engine


def full_memory(number: int = 0) -> Memory:
    """A memory with no field at its default."""
    return Memory(id=f"mem_{number}", kind=MemoryKind.PREFERENCE, text=f"Ana likes tea number {number}",
                  importance=0.625, stability_hours=123.5, created_at=START - timedelta(days=3),
                  last_accessed_at=START - timedelta(hours=2), access_count=7, status=MemoryStatus.ARCHIVED,
                  status_changed_at=START - timedelta(hours=1), provenance=("msg_1", "msg_2"), session_id="s1",
                  subject="Ana", belief_id=f"blf_{number}", superseded_by="mem_9", critical=True,
                  embedding=Embedding(np.arange(8, dtype=np.float32) / 8, "hashing-8"))


def full_belief(number: int = 0) -> Belief:
    return Belief(id=f"blf_{number}", subject="Ana", predicate="likes", object="tea", statement="Ana likes tea",
                  valid_from=START - timedelta(days=3), recorded_at=START - timedelta(days=2),
                  valid_to=START - timedelta(days=1), expired_at=START, superseded_by="blf_9",
                  source_message_id="msg_1", memory_id=f"mem_{number}", cardinality=Cardinality.MANY)


def test_records_keep_every_field_of_a_memory_and_a_belief() -> None:
    assert MEMORY_FIELDS == tuple(f.name for f in dataclasses.fields(Memory))
    assert BELIEF_FIELDS == tuple(f.name for f in dataclasses.fields(Belief))
    memory, belief = full_memory(), full_belief()
    for name in MEMORY_FIELDS:  # every field differs from its default, so a dropped one would show
        default = next(f for f in dataclasses.fields(Memory) if f.name == name).default
        assert getattr(memory, name) != default, name
    back = memory_from_record(memory_record(memory))
    assert back == memory and back.embedding is not None and memory.embedding is not None
    assert back.embedding.model_id == memory.embedding.model_id
    assert back.embedding.vector.tobytes() == memory.embedding.vector.tobytes()
    assert belief_from_record(belief_record(belief)) == belief and belief_record(None) is None
    bare = Memory(id="m", kind=MemoryKind.EPISODE, text="t", importance=0.5, stability_hours=1.0,
                  created_at=START, last_accessed_at=START)
    assert memory_from_record(memory_record(bare)) == bare and memory_from_record(memory_record(bare)).embedding is None


def _entries(count: int) -> IndexEntries:
    rows = {f"mem_{n}": (full_memory(n), full_belief(n) if n % 2 else None) for n in range(count)}
    return IndexEntries(lambda ids: [rows[i] for i in ids], list(rows))


def test_a_view_reads_the_record_and_writes_what_it_learns_back() -> None:
    entries = _entries(3)
    entry = entries[1]
    assert entries[-2] == entry and entries[1] is not entry  # a new view of the same row, equal on every value
    memory = full_memory(1)
    assert (entry.id, entry.kind, entry.text, entry.created_at, entry.provenance, entry.belief_id) == (
        memory.id, memory.kind, memory.text, memory.created_at, memory.provenance, memory.belief_id)
    assert entry.memory == memory and entry.belief == full_belief(1) and entries[0].belief is None
    line = entry.line_and_tokens(BlockForm.FULL, lambda e: f"- {e.text}", len)
    assert (entry.text_key, entry.states_a_change) == ("ana likes tea number 1", False)
    again = entries[1]
    assert again.rendered == {BlockForm.FULL: line} and again.stale == frozenset()  # kept in the record
    renders: list[str] = []

    def render(view: object) -> str:
        renders.append("again")
        return f"- {entries[1].text}"
    assert again.line_and_tokens(BlockForm.FULL, render, len) == line and renders == []  # cached: not rendered
    entries.replace_memory(1, replace(memory, text="Ana now likes coffee"))  # as ActiveIndex.update does
    changed = entries[1]
    assert changed.stale == {BlockForm.FULL} and changed.rendered == {BlockForm.FULL: line}
    assert changed.memory.text == "Ana now likes coffee" and changed.belief == full_belief(1)
    assert changed.text_key == "ana now likes coffee" and changed.states_a_change is True
    assert changed.line_and_tokens(BlockForm.FULL, render, len) == ("- Ana now likes coffee", 22)
    assert renders == ["again"] and entries[1].stale == frozenset()
    entries.append(full_memory(7), None)
    assert len(entries) == 4 and entries[3].memory == full_memory(7) and entries.read_so_far() == 3
    with pytest.raises(IndexError):
        entries[4]


def test_held_entries_are_out_of_the_collectors_sight(tmp_path) -> None:
    store = SqliteStore(str(tmp_path / "store.db"))
    fill_store(store, HashingEmbedder(64), 3000, 3, EngineConfig())
    engine = make_engine(FixedClock(START), store=store, embedder=HashingEmbedder(64))
    index = engine._rt.index()
    gc.collect()
    before = len(gc.get_objects())
    index.entries.prefetch(range(index.size()))
    assert engine.recall("Where did I go hiking with the map?", 1024).items  # renders and caches lines
    gc.collect()
    gc.collect()  # a collection untracks a tuple once its items are untracked: the inner ones may come later
    grown = len(gc.get_objects()) - before
    assert index.entries.read_so_far() == 3000
    assert grown < 100, f"{grown} more tracked objects for 3,000 held entries (entries held as objects made 18,000)"
    assert not any(gc.is_tracked(record) for record in index.entries._records[:3000].tolist())
    assert index.entries[5].memory == store.memories_by_ids(["mem_0000005"])[0]
    engine.close()


def test_a_closed_engine_is_freed_after_the_start_up_freeze(tmp_path) -> None:
    freeze_startup_objects()  # what `engram` does before any command
    try:
        engine = make_engine(FixedClock(START), path=str(tmp_path / "store.db"))
        for n in range(20):
            engine.remember(f"Ana planned trip number {n} to Porto", importance=0.8)
        assert engine.recall("Where is Ana going?", 256).items
        gone = [weakref.ref(engine), weakref.ref(engine._rt), weakref.ref(engine._rt.index()),
                weakref.ref(engine._rt.store)]
        engine.close()
        del engine
        gc.collect()
        assert [ref() for ref in gone] == [None] * len(gone)
    finally:
        gc.unfreeze()


def test_views_read_the_rows_asked_for_in_one_request_and_equal_one_by_one_views() -> None:
    asked: list[list[str]] = []
    rows = {f"mem_{n}": (full_memory(n), None) for n in range(6)}
    entries = IndexEntries(lambda ids: asked.append(list(ids)) or [rows[i] for i in ids], list(rows))
    views = entries.views([4, 1, 4, -1])
    assert asked == [["mem_4", "mem_1", "mem_5"]]  # one request, each row once, negative positions from the end
    assert [v.id for v in views] == ["mem_4", "mem_1", "mem_4", "mem_5"] and views[0] == entries[4]
    assert entries.ids_at(np.array([5, 0, 2])) == ["mem_5", "mem_0", "mem_2"] and asked == [asked[0]]  # no read
    entries.views([1, 4, 5])
    assert len(asked) == 1 and entries.read_so_far() == 3  # held already: nothing read again
    with pytest.raises(IndexError):
        entries.views([2, 6])
    with pytest.raises(IndexError):
        entries.prefetch([-7])
