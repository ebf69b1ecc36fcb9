"""The recall index holds its entries as untracked records, and gives them back unchanged.

Records (tuples of plain values in a numpy object array) keep the full garbage collections short at
100,000 memories; these tests hold the records to what the entries were (every field of the memory and
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
    BELIEF_FIELDS, MEMORY_FIELDS, IndexEntries, belief_from_record, belief_record, entry_of, memory_from_record,
    memory_record,
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


def test_an_entry_stays_one_object_until_settled_and_keeps_what_it_learned() -> None:
    entries = _entries(3)
    entry = entries[1]
    assert entries[1] is entry and entries[-2] is entry  # what recall's candidates hold and update
    line = entry.line_and_tokens(BlockForm.FULL, lambda e: f"- {e.memory.text}", len)
    assert (entry.text_key, entry.states_a_change) == ("ana likes tea number 1", False)
    entry.memory = replace(entry.memory, text="Ana now likes coffee")  # as ActiveIndex.update replaces it
    entry.stale.update(entry.rendered)
    entries.settle()
    again = entries[1]
    assert again is not entry and again == entry  # every field, the caches and the replaced memory
    assert again.rendered == {BlockForm.FULL: line} and again.stale == {BlockForm.FULL}
    assert again.memory.text == "Ana now likes coffee" and again.belief == full_belief(1)
    assert again.line_and_tokens(BlockForm.FULL, lambda e: f"- {e.memory.text}", len)[0] == "- Ana now likes coffee"
    entries.settle()
    assert entries[1].stale == set() and entries[1].rendered[BlockForm.FULL][0] == "- Ana now likes coffee"
    added = entry_of(full_memory(7), None)
    entries.append(added)
    assert len(entries) == 4 and entries[3] == added and entries.read_so_far() == 2
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
    index.entries.settle()
    gc.collect()
    gc.collect()  # a collection untracks a tuple once its items are untracked: the inner ones may come later
    grown = len(gc.get_objects()) - before
    assert index.entries.read_so_far() == 3000
    assert grown < 100, f"{grown} more tracked objects for 3,000 held entries (IndexEntry objects made 12,000)"
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


def test_settling_keeps_the_most_recently_used_entries_as_objects() -> None:
    entries = _entries(6)
    held = [entries[pos] for pos in range(6)]
    assert entries[0] is held[0]  # used again: now the most recent
    entries.settle(4)  # over 4 handed out: back to half of that, the least recently used first
    assert [entries._live.get(pos) is not None for pos in range(6)] == [True, False, False, False, False, True]
    assert all(entries[pos] == held[pos] for pos in range(6))
