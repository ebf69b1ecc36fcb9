"""SQLite store: numbered migrations, schema version, refusal to downgrade, concurrent writers."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from engram_core.adapters.sqlite_store import LATEST_SCHEMA, SqliteStore, _migrations
from engram_core.core.errors import SchemaTooNewError, StoreError


def test_migrations_are_numbered_from_one_without_gaps() -> None:
    numbers = [n for n, _ in _migrations()]
    assert numbers == list(range(1, len(numbers) + 1)) and LATEST_SCHEMA == numbers[-1]


def test_fresh_store_is_at_latest_schema(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.sqlite")
    assert store.schema_version() == LATEST_SCHEMA
    tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"memories", "messages", "beliefs", "events", "meta", "memories_fts"} <= tables
    store.close()
    assert SqliteStore(tmp_path / "a.sqlite").schema_version() == LATEST_SCHEMA  # reopening is a no-op


def test_store_from_a_newer_engram_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_SCHEMA + 1}")
    conn.close()
    with pytest.raises(SchemaTooNewError, match="newer"):
        SqliteStore(path)


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a readable Engram store"):
        SqliteStore(path)


def _writer(path: str, worker: int, count: int) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from conftest import START, make_engine
    from engram_core.adapters.clock import FixedClock
    from fakes import ScriptedLLM, assessment

    from engram_core.usecases.runtime import random_id

    engine = make_engine(FixedClock(START), ScriptedLLM(assess=lambda t: assessment(0.7)), path=path,
                         new_id=random_id)
    for n in range(count):
        engine.observe(f"worker {worker} note {n}", message_id=f"w{worker}-{n}")
    engine.close()


def test_concurrent_processes_do_not_corrupt_the_store(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    SqliteStore(path).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, w, 25)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    store = SqliteStore(path)
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(store.messages()) == 100 and sum(store.count_memories().values()) == 100


def test_migration_3_supersedes_archived_episodes_of_changed_beliefs_only(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    from engram_core.adapters.clock import FixedClock
    from engram_core.adapters.hashing import HashingEmbedder
    from engram_core.adapters.offline.llm import OfflineLLM
    from engram_core.adapters.tokens import ConservativeTokenCounter
    from engram_core.usecases.engine import Engine

    path = tmp_path / "v2.sqlite"
    engine = Engine(SqliteStore(path), embedder=HashingEmbedder(), llm=OfflineLLM(), tokens=ConservativeTokenCounter(),
                    clock=FixedClock(datetime(2026, 1, 5, 9, tzinfo=timezone.utc)))
    engine.observe("I live in Lisbon.", session_id="s1")
    engine.observe("I had a long walk by the river.", session_id="s1")
    engine.observe("I moved to Ponta Delgada.", session_id="s2")
    episodes = {m.text: m.id for m in engine.memories(status=["active", "superseded"], limit=100)
                if m.kind.value == "episode"}
    engine.close()
    with sqlite3.connect(path) as conn:  # as a v2 store left them: archived before the belief changed
        conn.execute("UPDATE memories SET status = 'archived' WHERE id IN (?, ?)",
                     (episodes["I live in Lisbon."], episodes["I had a long walk by the river."]))
        for name, message in (("gist_lisbon", episodes["I live in Lisbon."]),  # a gist that said Lisbon
                              ("gist_walk", episodes["I had a long walk by the river."])):
            conn.execute("INSERT INTO memories (id, kind, text, importance, stability_hours, created_at, "
                         "last_accessed_at, status) SELECT ?, 'gist', 'Gist: ' || text, importance, 168, created_at, "
                         "last_accessed_at, 'active' FROM memories WHERE id = ?", (name, message))
            conn.execute("INSERT INTO memory_sources (memory_id, message_id) SELECT ?, message_id FROM memory_sources "
                         "WHERE memory_id = ?", (name, message))
        conn.execute("PRAGMA user_version = 2")
    store = SqliteStore(path)
    assert store.schema_version() == LATEST_SCHEMA
    assert store.get_memory(episodes["I live in Lisbon."]).status.value == "superseded"
    assert store.get_memory("gist_lisbon").status.value == "superseded"
    assert store.get_memory(episodes["I had a long walk by the river."]).status.value == "archived"
    assert store.get_memory("gist_walk").status.value == "active"
    assert store.get_memory(episodes["I moved to Ponta Delgada."]).status.value == "active"
    store.close()


def test_previous_message_is_the_newest_of_that_role_and_speaker_before_a_moment(tmp_path: Path) -> None:
    from datetime import datetime, timedelta, timezone

    from engram_core.core.model import Message

    store, t0 = SqliteStore(tmp_path / "a.sqlite"), datetime(2026, 3, 1, tzinfo=timezone.utc)
    said = [("m1", "user", None, 0), ("m2", "assistant", None, 1), ("m3", "user", "Caroline", 2),
            ("m4", "user", None, 3), ("m5", "user", None, 9)]
    for mid, role, speaker, hours in said:
        at = t0 + timedelta(hours=hours)
        store.insert_message(Message(mid, role, "s1", f"text {mid}", at, at, None, speaker))
    found = store.previous_message("user", None, t0 + timedelta(hours=5))
    assert found is not None and found.id == "m4"
    assert store.previous_message("user", "Caroline", t0 + timedelta(hours=5)).id == "m3"
    assert store.previous_message("assistant", None, t0 + timedelta(hours=1)) is None  # strictly before
    assert store.previous_message("user", None, t0) is None
