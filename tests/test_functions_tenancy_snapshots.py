"""Tenant stores over snapshot generations: writes commit generations, reads use a warm replica."""

from __future__ import annotations

from pathlib import Path

import pytest
from snapshot_support import hashing_engine

from engram_core.core.errors import ValidationError
from engram_core.settings import load_settings
from engram_core.tenants.tenancy import open_tenant_stores
from engram_core.tenants.tenancy_snapshots import SnapshotTenantStores


@pytest.fixture
def location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "generations"


def _instance(location: Path, **bounds: int) -> SnapshotTenantStores:
    """One instance's view of the store; two of them behave like two function instances."""
    settings = load_settings()  # as an entry point does, once per instance
    return SnapshotTenantStores(str(location), hashing_engine, settings=settings.snapshots, oss=settings.oss,
                                **bounds)


def _texts(stores: SnapshotTenantStores, tenant: str) -> list[str]:
    return stores.run(tenant, lambda e: [m.text for m in e.memories(limit=1000)], write=False)


def test_oss_locations_open_snapshot_tenant_stores_lazily() -> None:
    stores = open_tenant_stores("oss://engram-bucket/tenants", hashing_engine, load_settings())
    assert isinstance(stores, SnapshotTenantStores) and stores._snapshotter is None  # nothing loaded yet


def test_reads_reuse_a_warm_replica_and_see_other_instances_writes(location: Path) -> None:
    a, b = _instance(location), _instance(location)
    a.run("alice", lambda e: e.remember("Prefers aisle seats.", importance=0.8), write=True)
    assert _texts(a, "alice") == ["Prefers aisle seats."]
    replica, downloads = a._replicas["alice"], a.snapshotter.counters.downloads
    generations = a.snapshotter.newest_generation("alice")
    assert _texts(a, "alice") == ["Prefers aisle seats."]
    assert a._replicas["alice"] is replica and a.snapshotter.counters.downloads == downloads
    assert a.snapshotter.newest_generation("alice") == generations  # reads wrote nothing
    b.run("alice", lambda e: e.remember("Allergic to shellfish.", importance=0.95), write=True)
    assert sorted(_texts(a, "alice")) == ["Allergic to shellfish.", "Prefers aisle seats."]
    assert a._replicas["alice"] is not replica
    a.close()
    b.close()


def test_replicas_are_bounded_and_tenant_ids_checked(location: Path) -> None:
    stores = _instance(location, max_replicas=3)
    for n in range(6):
        stores.run(f"t{n}", lambda e: e.stats(), write=False)
    assert len(stores._replicas) == 3 and list(stores._replicas) == ["t3", "t4", "t5"]
    with pytest.raises(ValidationError):
        stores.run("../escape", lambda e: e.stats(), write=False)
    stores.close()
    assert not stores._replicas


def test_garbage_collection_after_sleep_keeps_the_newest_generations(location: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_SNAPSHOT_KEEP", "2")
    monkeypatch.setenv("ENGRAM_SNAPSHOT_GRACE_SECONDS", "0")
    stores = _instance(location)
    for n in range(5):
        stores.run("alice", lambda e, n=n: e.remember(f"note number {n}", importance=0.8), write=True)
    newest = stores.snapshotter.newest_generation("alice")
    assert stores.collect_garbage("alice") == 3
    assert stores.collect_garbage("alice") == 0
    assert stores.snapshotter.newest_generation("alice") == newest
    assert len(_texts(stores, "alice")) == 5
    stores.close()


def test_local_stores_have_no_generations_to_collect(tmp_path: Path) -> None:
    stores = open_tenant_stores(tmp_path / "local", hashing_engine, load_settings())
    assert stores.collect_garbage("alice") == 0
    with pytest.raises(ValidationError):
        stores.collect_garbage("../escape")
