"""The Snapshotter over every adapter: generations, read-only operations, the warm cache, lost races,
purge, garbage collection, restore and schema migration."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import zstandard
from snapshot_support import (  # noqa: F401 - fixtures
    make_snapshotter, moto_endpoint, oss_like, remember, store, texts_in,
)

from engram_core.adapters.sqlite_store import LATEST_SCHEMA, _migrations
from engram_core.core.errors import BusyError, SchemaTooNewError, ValidationError
from engram_core.snapshots.admin import describe, list_generations, restore
from engram_core.snapshots.collection import collect_garbage
from engram_core.snapshots.codec import schema_of, seal
from engram_core.snapshots.layout import TenantKeys
from engram_core.snapshots.ports import SnapshotStore
from engram_core.snapshots.retention import RetentionPolicy


class CountingStore:
    """The SnapshotStore port over another store, recording every call (a fake, not a mock)."""

    def __init__(self, inner: SnapshotStore) -> None:
        self.inner, self.location, self.calls = inner, inner.location, []

    def get(self, key):
        self.calls.append(("get", key))
        return self.inner.get(key)

    def head(self, key):
        self.calls.append(("head", key))
        return self.inner.head(key)

    def put_new(self, key, data, metadata):
        self.calls.append(("put_new", key))
        return self.inner.put_new(key, data, metadata)

    def put(self, key, data, metadata):
        self.calls.append(("put", key))
        return self.inner.put(key, data, metadata)

    def list(self, prefix, start_after=""):
        self.calls.append(("list", prefix, start_after))
        return self.inner.list(prefix, start_after)

    def delete(self, keys):
        self.calls.append(("delete", tuple(keys)))
        return self.inner.delete(keys)


def generations(store: SnapshotStore, tenant: str = "alice") -> list[int]:
    return [int(i.key.rsplit("/", 1)[1].split(".")[0]) for i in store.list(TenantKeys(tenant).snap_prefix)]


def test_new_tenant_reads_write_nothing_and_the_first_write_is_generation_one(store: SnapshotStore,
                                                                               tmp_path: Path) -> None:
    snapshots = make_snapshotter(store, tmp_path / "cache")
    assert texts_in(snapshots, "alice") == []
    assert generations(store) == []
    snapshots.run("alice", remember("I keep bees on the roof"))
    assert generations(store) == [1]
    assert snapshots.tenants() == ["alice"]


def test_each_write_is_the_next_generation_and_another_instance_reads_it(store: SnapshotStore,
                                                                         tmp_path: Path) -> None:
    writer = make_snapshotter(store, tmp_path / "writer")
    for text in ("first note", "second note", "third note"):
        writer.run("alice", remember(text))
    assert generations(store) == [1, 2, 3]
    reader = make_snapshotter(store, tmp_path / "reader")
    assert texts_in(reader, "alice") == ["first note", "second note", "third note"]
    assert reader.counters.downloads == 1


def test_read_only_operations_never_write_a_generation(store: SnapshotStore, tmp_path: Path) -> None:
    snapshots = make_snapshotter(store, tmp_path / "cache")
    snapshots.run("alice", remember("Allergic to shellfish"))
    snapshots.run("alice", lambda e: (e.stats(), e.beliefs(), e.memories(), e.events()))
    snapshots.run("alice", lambda e: e.recall("shellfish", 200, reinforce=False))
    assert generations(store) == [1]
    snapshots.run("alice", remember("Lives in Lisbon"), write=False)  # changes, but the caller said read
    assert generations(store) == [1] and texts_in(snapshots, "alice") == ["Allergic to shellfish"]
    snapshots.run("alice", lambda e: e.recall("shellfish", 200))  # reinforcement is a write
    assert generations(store) == [1, 2]


def test_a_failed_operation_writes_nothing(store: SnapshotStore, tmp_path: Path) -> None:
    snapshots = make_snapshotter(store, tmp_path / "cache")
    snapshots.run("alice", remember("first"))
    with pytest.raises(ValidationError):
        snapshots.run("alice", lambda e: e.remember("   "))
    assert generations(store) == [1]


def test_a_warm_instance_checks_for_news_with_one_request(store: SnapshotStore, tmp_path: Path) -> None:
    counting = CountingStore(store)
    snapshots = make_snapshotter(counting, tmp_path / "cache")
    snapshots.run("alice", remember("warm me up"))
    snapshots.run("alice", remember("and again"))
    counting.calls.clear()
    assert texts_in(snapshots, "alice") == ["warm me up", "and again"]
    # one listing from the cached generation 2: it must still exist, and anything newer would show
    assert counting.calls == [("list", "alice/snap/", "alice/snap/000000000001.sqlite.zst")]
    assert snapshots.counters.downloads == 0


def test_a_warm_instance_downloads_what_another_instance_committed(store: SnapshotStore,
                                                                    tmp_path: Path) -> None:
    warm = make_snapshotter(store, tmp_path / "warm")
    other = make_snapshotter(store, tmp_path / "other")
    warm.run("alice", remember("from the warm one"))
    other.run("alice", remember("from the other one"))
    other.run("alice", remember("and once more"))
    assert texts_in(warm, "alice") == ["from the warm one", "from the other one", "and once more"]
    assert warm.counters.downloads == 1


def test_the_loser_of_a_race_reloads_and_reapplies_its_operation(store: SnapshotStore, tmp_path: Path) -> None:
    mine = make_snapshotter(store, tmp_path / "mine")
    theirs = make_snapshotter(store, tmp_path / "theirs")
    mine.run("alice", remember("base"))
    calls = []

    def operation(engine):
        calls.append(len(engine.memories()))
        if len(calls) == 1:  # another instance commits while this one is working
            theirs.run("alice", remember("their write"))
        return engine.remember("my write", kind="episode", importance=0.9)

    mine.run("alice", operation)
    assert calls == [1, 2]  # re-applied on the state that includes their write
    assert sorted(texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice")) == [
        "base", "my write", "their write"]
    assert mine.counters.conflicts == 1 and generations(store) == [1, 2, 3]


def test_endless_losing_ends_in_a_busy_error_and_writes_nothing(store: SnapshotStore, tmp_path: Path) -> None:
    mine = make_snapshotter(store, tmp_path / "mine", attempts=3)
    theirs = make_snapshotter(store, tmp_path / "theirs")

    def operation(engine):
        theirs.run("alice", remember(f"their write {len(engine.memories())}"))
        return engine.remember("my write", kind="episode", importance=0.9)

    with pytest.raises(BusyError, match="busy.*nothing was written, retry"):
        mine.run("alice", operation)
    texts = texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice")
    assert texts == ["their write 0", "their write 1", "their write 2"] and mine.counters.conflicts == 3


def test_purge_leaves_no_generation_holding_the_purged_text(store: SnapshotStore, tmp_path: Path) -> None:
    snapshots = make_snapshotter(store, tmp_path / "cache")
    secret = "Zyrtecillin-4471 is my prescription"
    memory_id = snapshots.run("alice", lambda e: e.remember(secret, kind="fact", importance=0.9)).memories[0].id
    snapshots.run("alice", remember("unrelated note one"))
    snapshots.run("alice", remember("unrelated note two"))
    snapshots.run("alice", lambda e: e.forget(memory_id, purge=True))
    assert generations(store) == [4]
    keys = TenantKeys("alice")
    payload = store.get(keys.generation(4))
    raw = zstandard.ZstdDecompressor().decompress(payload.data)
    assert b"Zyrtecillin" not in raw and b"zyrtecillin" not in raw
    assert texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice") == ["unrelated note one",
                                                                              "unrelated note two"]
    cached = b"".join(p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert b"Zyrtecillin" not in cached


def test_a_warm_instance_never_serves_or_forks_from_a_generation_a_purge_deleted(store: SnapshotStore,
                                                                                 tmp_path: Path) -> None:
    purger, warm = make_snapshotter(store, tmp_path / "purger"), make_snapshotter(store, tmp_path / "warm")
    secret = "Zyrtecillin-4471 is my prescription"
    memory_id = purger.run("alice", lambda e: e.remember(secret, kind="fact", importance=0.9)).memories[0].id
    assert texts_in(warm, "alice") == [secret]  # the warm instance now caches generation 1
    purger.run("alice", remember("unrelated note"))
    purger.run("alice", lambda e: e.forget(memory_id, purge=True))  # generation 3; 1 and 2 are deleted
    assert texts_in(warm, "alice") == ["unrelated note"]
    warm.run("alice", remember("written by the warm instance"))
    assert generations(store) == [3, 4]
    assert texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice") == ["unrelated note",
                                                                              "written by the warm instance"]


def test_gc_keeps_the_newest_and_the_young(store: SnapshotStore, tmp_path: Path) -> None:
    snapshots = make_snapshotter(store, tmp_path / "cache", retention=RetentionPolicy(3, timedelta(hours=1)))
    for n in range(7):
        snapshots.run("alice", remember(f"note {n}"))
    now = datetime.now(timezone.utc)
    young = collect_garbage(snapshots, "alice", now)
    assert young.deleted == () and generations(store) == list(range(1, 8))
    later = collect_garbage(snapshots, "alice", now + timedelta(hours=2))
    assert later.deleted == (1, 2, 3, 4) and later.kept == (5, 6, 7) and generations(store) == [5, 6, 7]
    assert len(texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice")) == 7


def test_restore_writes_an_old_generation_as_the_newest(store: SnapshotStore, tmp_path: Path) -> None:
    snapshots = make_snapshotter(store, tmp_path / "cache")
    for text in ("one", "two", "three"):
        snapshots.run("alice", remember(text))
    assert restore(snapshots, "alice", 1) == 4
    assert generations(store) == [1, 2, 3, 4]
    assert texts_in(snapshots, "alice") == ["one"]
    listing = list_generations(snapshots, "alice")
    assert [g.number for g in listing.generations] == [1, 2, 3, 4] and listing.hint == 4
    shown = describe(snapshots, "alice", 4)
    assert shown["schema_version"] == LATEST_SCHEMA and shown["memories"] == {"active": 1}


def _database_at(path: Path, version: int) -> bytes:
    """A real Engram database at an older (or a made-up newer) schema version."""
    with sqlite3.connect(path) as conn:
        for number, sql in _migrations():
            if number <= version:
                conn.executescript(sql)
        conn.execute(f"PRAGMA user_version = {version}")
    return path.read_bytes()


def test_an_older_schema_is_migrated_in_the_next_generation(store: SnapshotStore, tmp_path: Path) -> None:
    old = seal(_database_at(tmp_path / "old.sqlite", LATEST_SCHEMA - 1))
    keys = TenantKeys("alice")
    store.put_new(keys.generation(1), old.payload, old.metadata())
    snapshots = make_snapshotter(store, tmp_path / "cache")
    assert snapshots.run("alice", lambda e: e.stats()["schema_version"]) == LATEST_SCHEMA
    assert generations(store) == [1]  # reading migrated only the working copy
    snapshots.run("alice", remember("written after the upgrade"))
    newest = store.get(keys.generation(2))
    raw = zstandard.ZstdDecompressor().decompress(newest.data)
    assert schema_of(raw) == LATEST_SCHEMA and newest.metadata["schema"] == str(LATEST_SCHEMA)


def test_a_newer_schema_is_refused_and_never_downgraded(store: SnapshotStore, tmp_path: Path) -> None:
    newer = seal(_database_at(tmp_path / "new.sqlite", LATEST_SCHEMA + 1))
    keys = TenantKeys("alice")
    store.put_new(keys.generation(1), newer.payload, newer.metadata())
    snapshots = make_snapshotter(store, tmp_path / "cache")
    with pytest.raises(SchemaTooNewError, match="newer than this Engram"):
        snapshots.run("alice", remember("would downgrade"))
    assert generations(store) == [1] and store.list(keys.quarantine_prefix) == []


@pytest.mark.parametrize("tenant", ["../etc", "", "a/b", "x" * 200, ".hidden"])
def test_tenant_names_are_validated(tmp_path: Path, tenant: str) -> None:
    from engram_core.snapshots.local import LocalDirStore

    snapshots = make_snapshotter(LocalDirStore(tmp_path / "store"), tmp_path / "cache")
    with pytest.raises(ValidationError) as caught:
        snapshots.run(tenant, remember("x"))
    assert caught.value.field == "tenant"


def test_the_warm_cache_stays_within_its_bound(tmp_path: Path) -> None:
    from engram_core.snapshots.local import LocalDirStore

    store = LocalDirStore(tmp_path / "store")
    snapshots = make_snapshotter(store, tmp_path / "cache", cache_bytes=1)
    for tenant in ("alice", "bob", "carol"):
        snapshots.run(tenant, remember(f"{tenant}'s note"))
    cached = [p for p in (tmp_path / "cache").rglob("*.sqlite") if "work" not in p.parts]
    assert len(cached) == 1 and cached[0].parent.name == "carol"
    assert texts_in(snapshots, "alice") == ["alice's note"]


def test_waiting_writers_share_one_commit_and_a_failing_one_leaves_no_trace(tmp_path: Path) -> None:
    import threading
    import time

    from engram_core.snapshots.local import LocalDirStore

    store = LocalDirStore(tmp_path / "store")
    snapshots = make_snapshotter(store, tmp_path / "cache")
    started, go, outcomes = threading.Event(), threading.Event(), {}

    def slow_first(engine):
        started.set()
        go.wait(30)
        return engine.remember("first, while the others queue", kind="episode", importance=0.9)

    def half_then_fail(engine):
        engine.remember("half-done write that must vanish", kind="episode", importance=0.9)
        raise ValueError("changed my mind")

    def call(name: str, operation) -> None:
        try:
            outcomes[name] = snapshots.run("alice", operation)
        except ValueError as exc:
            outcomes[name] = exc

    threads = [threading.Thread(target=call, args=("first", slow_first))]
    threads[0].start()
    assert started.wait(30)  # the first writer holds the turn
    for name, operation in (("failing", half_then_fail), ("second", remember("queued second"))):
        threads.append(threading.Thread(target=call, args=(name, operation)))
        threads[-1].start()
    deadline = time.monotonic() + 30
    while snapshots.queued("alice") < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    go.set()
    for thread in threads:
        thread.join()
    assert isinstance(outcomes["failing"], ValueError) and outcomes["second"].memories[0].text == "queued second"
    assert texts_in(snapshots, "alice") == ["first, while the others queue", "queued second"]
    assert generations(store) == [1, 2]  # the two queued writers shared one commit
