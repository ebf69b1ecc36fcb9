"""Read replicas brought up to date in place (replicas.py): a replica that applies the new deltas equals one
loaded fresh, byte for byte; a damaged or missing delta, a purge, a full snapshot in between or a replica
file that something wrote to make it give up (its file deleted), so the caller loads afresh and never serves
a wrong state. Over every adapter, and through the tenant stores the HTTP service uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from snapshot_support import (  # noqa: F401 - fixtures
    DELTAS, hashing_engine, make_snapshotter, moto_endpoint, oss_like, remember, store, texts_in,
)
from test_snapshots_snapshotter import CountingStore

from engram_core.core.errors import StoreError
from engram_core.settings import load_settings
from engram_core.snapshots.checkout import Checkout
from engram_core.snapshots.layout import TenantKeys
from engram_core.snapshots.local import LocalDirStore
from engram_core.snapshots.ports import SnapshotStore, StoredObject
from engram_core.snapshots.replicas import GaveUp, refreshed
from engram_core.snapshots.snapshotter import Snapshotter
from engram_core.tenants.tenancy_snapshots import SnapshotTenantStores

KEYS = TenantKeys("alice")


def _texts(replica: Checkout) -> list[str]:
    return [m.text for m in replica.engine.memories(limit=1000)]


def _writer_file(writer: Snapshotter) -> bytes:
    head = writer.heads.peek("alice")
    assert head is not None  # the writer's own copy, committed in place
    return head.path.read_bytes()


def _written(store: SnapshotStore, tmp_path: Path, count: int) -> Snapshotter:
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    for n in range(count):
        writer.run("alice", remember(f"note {n} about the garden"))
    return writer


def test_a_replica_that_applies_deltas_equals_one_loaded_fresh(store: SnapshotStore, tmp_path: Path) -> None:
    writer = _written(store, tmp_path, 2)
    reader = make_snapshotter(store, tmp_path / "reader")
    replica = reader.checkout("alice")
    assert _texts(replica) == ["note 0 about the garden", "note 1 about the garden"]
    assert refreshed(reader, replica) is replica  # nothing newer: the same replica, nothing downloaded
    downloads = reader.counters.downloads
    for n in range(2, 5):
        writer.run("alice", remember(f"note {n} about the garden"))
    fresh = refreshed(reader, replica)
    assert isinstance(fresh, Checkout) and fresh is not replica
    assert fresh.workdir == replica.workdir and fresh.base.generation == 5  # the same file, three deltas on
    assert reader.counters.replica_advances == 1 and reader.counters.downloads == downloads
    assert _texts(fresh) == [f"note {n} about the garden" for n in range(5)]
    assert fresh.path.read_bytes() == _writer_file(writer)  # base + deltas in place is the writer's file
    loaded = make_snapshotter(store, tmp_path / "fresh").checkout("alice")
    assert loaded.path.read_bytes() == fresh.path.read_bytes()  # and a fresh load's
    assert loaded.engine.recall("garden notes", 256).block == fresh.engine.recall("garden notes", 256).block
    loaded.discard()
    fresh.discard()


def _replace(store: SnapshotStore, number: int, data: bytes, metadata: dict) -> None:
    store.delete([KEYS.generation(number)])
    store.put_new(KEYS.generation(number), data, metadata)


@pytest.mark.parametrize("damage", ["flipped", "missing"])
def test_a_damaged_or_missing_delta_makes_the_replica_give_up(store: SnapshotStore, tmp_path: Path,
                                                             damage: str) -> None:
    writer = _written(store, tmp_path, 2)
    reader = make_snapshotter(store, tmp_path / "reader")
    replica = reader.checkout("alice")
    writer.run("alice", remember("note 2, to be damaged"))
    writer.run("alice", remember("note 3, after it"))
    found = store.get(KEYS.generation(3))
    assert found is not None
    if damage == "flipped":
        middle = len(found.data) // 2
        _replace(store, 3, found.data[:middle] + bytes([found.data[middle] ^ 0x40]) + found.data[middle + 1:],
                 dict(found.metadata))
    else:
        store.delete([KEYS.generation(3)])
    assert isinstance(refreshed(reader, replica), GaveUp)
    assert not replica.workdir.exists()  # the half-brought-up file is deleted, never opened
    if damage == "flipped":
        assert store.get(KEYS.quarantine(3)) is not None
        again = reader.checkout("alice")  # the fresh load serves the newest state that can be built
        assert _texts(again) == ["note 0 about the garden", "note 1 about the garden"]
        again.discard()


def test_a_purge_or_a_full_snapshot_in_between_makes_the_replica_load_afresh(store: SnapshotStore,
                                                                            tmp_path: Path) -> None:
    writer = _written(store, tmp_path, 2)
    secret = "Zyrtecillin-4471 is my prescription"
    memory_id = writer.run("alice", lambda e: e.remember(secret, kind="fact", importance=0.9)).memories[0].id
    reader = make_snapshotter(store, tmp_path / "reader")
    replica = reader.checkout("alice")
    assert secret in _texts(replica)
    writer.run("alice", lambda e: e.forget(memory_id, purge=True))  # a whole generation; older ones deleted
    writer.run("alice", remember("after the purge"))
    assert isinstance(refreshed(reader, replica), GaveUp) and not replica.workdir.exists()
    again = reader.checkout("alice")
    assert secret not in _texts(again) and "after the purge" in _texts(again)
    writer.collect_garbage("alice")  # compaction: a full snapshot after `again`'s generation
    writer.run("alice", remember("after the compaction"))
    assert isinstance(refreshed(reader, again), GaveUp) and reader.counters.replica_advances == 0
    assert "after the compaction" in texts_in(reader, "alice")


def test_a_replica_that_gives_up_hands_its_listing_and_object_on_to_one_fresh_load(store: SnapshotStore,
                                                                                    tmp_path: Path) -> None:
    writer, counting = _written(store, tmp_path, 2), CountingStore(store)
    reader = make_snapshotter(counting, tmp_path / "reader")
    replica = reader.checkout("alice")  # generation 2, also the warm cache's
    writer.run("alice", remember("note 2 about the garden"))
    advanced = refreshed(reader, replica)
    assert isinstance(advanced, Checkout) and advanced.base.generation == 3  # in place: the cache stays at 2
    writer.collect_garbage("alice")  # compaction: generation 4 is a full snapshot
    writer.run("alice", remember("after the compaction"))
    counting.calls.clear()
    gave_up = refreshed(reader, advanced)
    assert isinstance(gave_up, GaveUp) and gave_up.seen is not None
    assert gave_up.seen.floor == 2 and gave_up.seen.newest == 5  # listed from the cache's generation, not 3
    again = reader.checkout("alice", gave_up.seen)
    listings = [c for c in counting.calls if c[0] == "list"]
    gets = [c[1] for c in counting.calls if c[0] == "get"]
    assert len(listings) == 1  # one listing for the refresh and the fresh load together
    assert gets.count(KEYS.generation(5)) == 1 and gets.count(KEYS.generation(4)) == 1
    loaded = make_snapshotter(store, tmp_path / "fresh").checkout("alice")
    assert again.base.generation == loaded.base.generation == 5
    assert again.path.read_bytes() == loaded.path.read_bytes()  # as a load from nothing
    assert _texts(again)[-1] == "after the compaction"
    loaded.discard()
    again.discard()


def test_a_handed_on_listing_is_not_used_when_it_does_not_cover_the_warm_cache(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    writer, counting = _written(store, tmp_path, 3), CountingStore(store)
    reader = make_snapshotter(counting, tmp_path / "reader")
    seen = reader.listing(KEYS, 3)  # from generation 3; the warm cache gets generation 1 below
    reader.cache.adopt("alice", 1, _generation_file(store, tmp_path, 1))
    counting.calls.clear()
    fresh = reader.checkout("alice", seen)
    assert [c[0] for c in counting.calls].count("list") == 1  # it listed again, from the cache's generation
    assert fresh.base.generation == 3 and len(_texts(fresh)) == 3
    fresh.discard()
    writer.close()


def _generation_file(store: SnapshotStore, tmp_path: Path, number: int) -> Path:
    dest = tmp_path / f"generation-{number}.sqlite"
    assert make_snapshotter(store, tmp_path / "loader").download_verified("alice", number, dest) is not None
    return dest


def test_a_replica_something_wrote_to_is_never_brought_up_in_place(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    writer = _written(store, tmp_path, 2)
    reader = make_snapshotter(store, tmp_path / "reader")
    replica = reader.checkout("alice")
    replica.engine.remember("written on the replica, never committed", importance=0.9)
    writer.run("alice", remember("note 2 about the garden"))
    assert isinstance(refreshed(reader, replica), GaveUp) and not replica.workdir.exists()
    assert "written on the replica, never committed" not in texts_in(reader, "alice")


def test_the_tenant_stores_bring_their_replica_up_with_the_other_instances_deltas(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ENGRAM_SNAPSHOT_DELTA_SHARE", "1000")  # a tiny tenant's commits are deltas too
    settings = load_settings()
    a, b = (SnapshotTenantStores(str(tmp_path / "generations"), hashing_engine,
                                 settings=settings.snapshots, oss=settings.oss) for _ in range(2))
    a.run("alice", lambda e: e.remember("Prefers aisle seats.", importance=0.8), write=True)
    a.run("alice", lambda e: e.remember("Lives in Lisbon.", importance=0.8), write=True)
    read = lambda: sorted(b.run("alice", lambda e: [m.text for m in e.memories(limit=100)], write=False))  # noqa: E731
    assert read() == ["Lives in Lisbon.", "Prefers aisle seats."]
    workdir, downloads = b._replicas["alice"].workdir, b.snapshotter.counters.downloads
    a.run("alice", lambda e: e.remember("Allergic to shellfish.", importance=0.95), write=True)
    assert read() == ["Allergic to shellfish.", "Lives in Lisbon.", "Prefers aisle seats."]
    assert b._replicas["alice"].workdir == workdir and b.snapshotter.counters.replica_advances == 1
    assert b.snapshotter.counters.downloads == downloads
    a.close()
    b.close()


class FailingGets:
    """A fake of the SnapshotStore port: the local store, whose reads of objects fail while ``failing``."""

    def __init__(self, inner: SnapshotStore) -> None:
        self.inner, self.location, self.failing = inner, inner.location, False

    def get(self, key: str) -> StoredObject | None:
        if self.failing:
            raise StoreError(f"cannot read {key}: the store is unreachable")
        return self.inner.get(key)

    def __getattr__(self, name: str) -> object:  # every other call goes to the store as it is
        return getattr(self.inner, name)


def test_a_store_failure_mid_refresh_is_a_clear_error_and_the_next_read_loads_afresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_DIR", str(tmp_path / "cache"))
    settings = load_settings()
    store = FailingGets(LocalDirStore(tmp_path / "store"))
    writer = _written(store.inner, tmp_path, 2)
    stores = SnapshotTenantStores("unused", hashing_engine, settings=settings.snapshots, oss=settings.oss)
    stores._snapshotter = make_snapshotter(store, tmp_path / "reader")  # type: ignore[arg-type]
    read = lambda: stores.run("alice", lambda e: [m.text for m in e.memories(limit=100)], write=False)  # noqa: E731
    assert len(read()) == 2
    writer.run("alice", remember("note 2 about the garden"))  # a delta the replica must fetch
    store.failing = True
    with pytest.raises(StoreError, match="unreachable"):
        read()
    store.failing = False
    assert read() == [f"note {n} about the garden" for n in range(3)]
    stores.close()
