"""The recall index loaded from a store's columns equals the one built memory by memory.

``ActiveIndex.load`` (what an engine opens with) against ``ActiveIndex.build`` over
``active_with_beliefs()`` (every row decoded): every attribute of the index, found by iterating over
it, so an attribute added later is compared too; and recall through either returns the same items,
order, scores, lines and token counts. On real SQLite stores with sessions, speakers, subjects,
beliefs, superseded, decayed, archived and forgotten memories, after writes, deletes, a purge and an
import, and with rows the fast reader must hand to the ordinary decoder (odd timestamps, the old
float32 vector layout, another dimension, unreadable rows).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import shutil
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.sqlite_store import SqliteStore
from engram_bench.scale import synthetic_sentence
from engram_core.core.config import EngineConfig
from engram_core.core.index import ActiveIndex
from engram_core.core.index_columns import columns_from_rows, room_for
from engram_core.core.index_entries import IndexEntries
from engram_core.core.model import Embedding, Memory, MemoryKind, MemoryStatus
from engram_core.usecases.engine import Engine

from conftest import START, make_engine
from memory_store import MemoryStore

SPEAKERS = ("Ana", "Bruno", "José Álvares", "Dr Mei Lin")
QUESTIONS = ("What did Ana say about the garden fence?", "where do I live?", "What did Bruno plan last weekend?",
             "Who talked about the piano yesterday?", "What does José Álvares like?", "tax form", "the the",
             "What happened in March?", "Dr Mei Lin booked what?", "my sister bought")


def same(left: object, right: object, where: str) -> None:
    """Equal values, compared all the way down: arrays bit for bit with dtype and shape, dataclasses on every
    field (the ones left out of ``==`` too), dicts with their order, the entries of an index one by one."""
    assert type(left) is type(right), where
    if isinstance(left, np.ndarray):
        assert isinstance(right, np.ndarray)
        assert (left.dtype, left.shape) == (right.dtype, right.shape), where
        assert left.tobytes() == right.tobytes(), where
    elif isinstance(left, IndexEntries):
        assert isinstance(right, IndexEntries) and len(left) == len(right), where
        for pos, (one, other) in enumerate(zip(left, right, strict=True)):
            same(one.values(), other.values(), f"{where}[{pos}]")
    elif dataclasses.is_dataclass(left):
        for field in dataclasses.fields(left):
            same(getattr(left, field.name), getattr(right, field.name), f"{where}.{field.name}")
    elif isinstance(left, dict):
        assert isinstance(right, dict) and list(left) == list(right), where
        for key in left:
            same(left[key], right[key], f"{where}[{key!r}]")
    elif isinstance(left, list | tuple | set | frozenset) and not isinstance(left, set | frozenset):
        assert len(left) == len(right), where  # type: ignore[arg-type]
        for pos, (one, other) in enumerate(zip(left, right, strict=True)):  # type: ignore[call-overload]
            same(one, other, f"{where}[{pos}]")
    else:
        assert left == right, where


def assert_index_equal(loaded: ActiveIndex, built: ActiveIndex) -> None:
    assert vars(loaded).keys() == vars(built).keys()
    for name in vars(built):
        same(getattr(loaded, name), getattr(built, name), name)


def loaded_and_built(store: SqliteStore | MemoryStore, dim: int,
                     config: EngineConfig) -> tuple[ActiveIndex, ActiveIndex]:
    loaded = ActiveIndex.load(dim, config, store.recall_columns(dim, room_for), store.recallable_entries)
    return loaded, ActiveIndex.build(dim, config, store.active_with_beliefs())


def check(engine: Engine) -> tuple[ActiveIndex, ActiveIndex]:
    loaded, built = loaded_and_built(engine.store, engine._rt.embedder.dim, engine.config)
    assert loaded.entries.read_so_far() == 0  # nothing decoded until recall asks
    assert len(loaded) > 0
    assert_index_equal(loaded, built)
    return loaded, built


def fill(engine: Engine, clock: FixedClock, seed: int) -> None:
    """Sessions with speakers (one message arriving out of order), facts and a superseded belief, decayed
    and archived memories (a sleep cycle), forgotten ones."""
    rng = random.Random(seed)
    for number in range(80):
        session = f"s{number % 3}"
        when = clock.now() - timedelta(hours=2) if number == 40 else None  # told late: older than its neighbours
        engine.observe(synthetic_sentence(rng), session_id=session, speaker=SPEAKERS[number % 4],
                       message_id=f"m{number}", occurred_at=when)
        clock.advance(timedelta(minutes=20))
    engine.observe("My name is Ana and I live in Lisbon.")
    engine.observe("I moved to Porto, I live in Porto now.")
    engine.observe("I like sailing and I like the cello.")
    engine.remember("José Álvares prefers green tea", kind="preference", importance=0.95)
    for number in range(20):
        engine.observe(synthetic_sentence(rng), session_id="old", message_id=f"old{number}")
    clock.advance(timedelta(days=120))
    engine.sleep()  # decays what faded, consolidates faded episodes into gists (originals archived)
    memories = engine.memories(status=["active"])
    engine.forget(memories[3].id)
    engine.forget(memories[5].id, purge=True)


def add_odd_rows(store: SqliteStore, dim: int) -> None:
    """Rows the column reader must not take at face value, each decoded (or skipped) the ordinary way."""
    vector = HashingEmbedder(dim).embed(["odd rows"])[0]

    def memory(number: int, text: str, **changes: object) -> Memory:
        base = Memory(id=f"odd_{number}", kind=MemoryKind.EPISODE, text=text, importance=0.5, stability_hours=5000.0,
                      created_at=START, last_accessed_at=START + timedelta(days=100), session_id="s1",
                      embedding=Embedding(vector, "hashing"))
        return dataclasses.replace(base, **changes)  # type: ignore[arg-type]

    with store.transaction():
        for number, text in enumerate(["Ana: an old year", "Ana: float32 layout", "Bruno: other dimension",
                                       "no vector at all", "bogus kind", "bad provenance", "bad status time",
                                       "Zoë: café in São Paulo", "x" * 70 + ": too long a head",
                                       "Lu: a day that does not exist"]):
            store.insert_memory(memory(number, text, critical=number == 7))
        conn = store.conn
        conn.execute("UPDATE memories SET created_at = '999-06-01T10:00:00.000000Z' WHERE id = 'odd_0'")
        float32 = np.asarray(vector, np.float32).tobytes()
        conn.execute("UPDATE memories SET embedding = ? WHERE id = 'odd_1'", (float32,))
        other = HashingEmbedder(dim // 2).embed(["other"])[0]
        conn.execute("UPDATE memories SET embedding = ?, embed_dim = ? WHERE id = 'odd_2'",
                     (np.asarray(other, np.float32).tobytes(), dim // 2))
        conn.execute("UPDATE memories SET embedding = NULL, embed_dim = NULL WHERE id = 'odd_3'")
        conn.execute("UPDATE memories SET kind = 'bogus' WHERE id = 'odd_4'")
        conn.execute("UPDATE memories SET provenance = '{not json' WHERE id = 'odd_5'")
        conn.execute("UPDATE memories SET status = 'archived', status_changed_at = 'yesterday' WHERE id = 'odd_6'")
        conn.execute("UPDATE memories SET last_accessed_at = '2026-02-30T10:00:00.000000Z' WHERE id = 'odd_9'")


def recall_both(loaded: Engine, built: Engine, queries: tuple[str, ...], clock: FixedClock, budget: int) -> None:
    """The same recalls (reinforcing) and writes on two copies of one store, one engine on each index."""
    for number, query in enumerate(queries):
        got, expected = loaded.recall(query, budget), built.recall(query, budget)
        assert dataclasses.replace(got, events=()) == dataclasses.replace(expected, events=())
        assert [(e.kind, e.memory_id, e.detail) for e in got.events] == \
            [(e.kind, e.memory_id, e.detail) for e in expected.events]
        assert got.items, query
        if number % 3 == 0:
            for engine in (loaded, built):
                engine.observe(f"Ana: a new note number {number} about the piano", session_id="s1", speaker="Ana")
        clock.advance(timedelta(hours=7))


def later_ids() -> Callable[[str], str]:
    """The same ids on both copies, none already in the file."""
    numbers = itertools.count(1)
    return lambda prefix: f"{prefix}_later_{next(numbers):06d}"


def engines_on_copies(path: Path, clock: FixedClock) -> tuple[Engine, Engine]:
    """Two engines on copies of one file: the first loads its index, the second is given the built one."""
    copy = path.with_name("copy.sqlite")
    shutil.copyfile(path, copy)
    loaded, built = (make_engine(clock, path=str(p), new_id=later_ids()) for p in (path, copy))
    rt = built._rt
    rt._index = ActiveIndex.build(rt.embedder.dim, rt.config, rt.store.active_with_beliefs())
    rt._index_version = rt.store.data_version()
    return loaded, built


def test_loaded_index_equals_built_through_writes_deletes_purge_and_import(tmp_path: Path) -> None:
    clock = FixedClock(START)
    engine = make_engine(clock, path=str(tmp_path / "t.sqlite"))
    fill(engine, clock, seed=3)
    counts = engine.memory_counts()
    for status in ("active", "superseded", "decayed", "archived", "deleted"):
        assert counts.get(status, 0) > 0, (status, counts)
    loaded, _ = check(engine)
    assert (loaded.previous >= 0).any() and loaded.entity_ids  # neighbour links and entities are there to compare

    add_odd_rows(engine.store, engine._rt.embedder.dim)
    loaded, built = check(engine)
    assert "odd_1" in loaded.position and "odd_7" in loaded.position and "odd_0" in loaded.position
    for absent in ("odd_2", "odd_3", "odd_4", "odd_5", "odd_6", "odd_9"):  # another dim, no vector, unreadable
        assert absent not in loaded.position

    engine.observe("Bruno: I sold the guitar amp", session_id="s2", speaker="Bruno")
    engine.forget(engine.memories(status=["active"])[0].id)
    engine.forget(engine.memories(status=["active"])[1].id, purge=True)
    check(engine)

    # Export reads every row as it stands; the unreadable ones go first (export fails on bad provenance JSON).
    engine.store.conn.execute("DELETE FROM memories WHERE id IN ('odd_4', 'odd_5', 'odd_6', 'odd_9')")
    lines = list(engine.export_lines())
    imported = make_engine(clock, path=str(tmp_path / "imported.sqlite"))
    imported.import_lines(lines)
    check(imported)
    imported.close()
    engine.close()


def test_recall_through_a_loaded_index_equals_recall_through_a_built_one(tmp_path: Path) -> None:
    clock, path = FixedClock(START), tmp_path / "t.sqlite"
    engine = make_engine(clock, path=str(path))
    fill(engine, clock, seed=5)
    add_odd_rows(engine.store, engine._rt.embedder.dim)
    engine.close()
    loaded, built = engines_on_copies(path, clock)
    for budget in (1024, 120):
        recall_both(loaded, built, QUESTIONS, clock, budget)
    loaded.close()
    built.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_columns_from_any_store_equal_the_built_index(seed: int) -> None:
    """The in-memory fake of the store port answers with ``columns_from_rows``: the same index again."""
    clock = FixedClock(START)
    engine = make_engine(clock, store=MemoryStore())
    fill(engine, clock, seed)
    check(engine)
    engine.close()


def test_an_index_holds_no_entry_for_a_vanished_row(tmp_path: Path) -> None:
    """A memory deleted behind the engine's back is an error to retry, not a wrong answer."""
    store = SqliteStore(tmp_path / "t.sqlite")
    vector = HashingEmbedder(32).embed(["one"])[0]
    with store.transaction():
        store.insert_memory(Memory(id="m1", kind=MemoryKind.FACT, text="one", importance=0.5, stability_hours=10.0,
                                   created_at=START, last_accessed_at=START, status=MemoryStatus.ACTIVE,
                                   embedding=Embedding(vector, "hashing")))
    index = ActiveIndex.load(32, EngineConfig(), store.recall_columns(32, room_for), store.recallable_entries)
    store.conn.execute("DELETE FROM memories WHERE id = 'm1'")
    with pytest.raises(Exception, match="left the store"):
        index.entries.prefetch([0])
    assert columns_from_rows(32, []).readable == 0
    store.close()
