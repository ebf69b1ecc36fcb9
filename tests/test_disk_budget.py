"""The snapshot cache and the read replicas are bounded by the instance's disk (FC's diskSize)."""

from __future__ import annotations

import os

import pytest
from deploy_support import functions
from snapshot_support import hashing_engine, remember

from engram_core.core.errors import ConfigurationError
from engram_core.snapshots.disk import disk_budget
from engram_core.snapshots.settings import budget_of, load_oss_settings, load_snapshot_settings
from engram_core.tenants.tenancy_snapshots import FILES_PER_REPLICA, SnapshotTenantStores, replica_limit


@pytest.mark.parametrize("disk_mb", [512, 10240])
def test_the_shares_add_up_to_the_disk_and_leave_room_for_operations(disk_mb: int) -> None:
    budget = disk_budget(disk_mb)
    assert budget.reserve_mb + budget.cache_mb + budget.replica_mb + budget.in_flight_mb == disk_mb
    assert budget.in_flight_mb >= budget.cache_mb  # a write's working copy and upload fit beside a full cache
    assert budget.cache_mb < disk_mb // 3


def test_on_fcs_smallest_disk_the_default_cache_shrinks_to_fit() -> None:
    assert disk_budget(512).cache_mb == 134 and disk_budget(512).replica_mb == 134  # was 512 MiB of cache alone
    assert disk_budget(None).cache_mb == 512 and disk_budget(None).replica_mb == 256  # no disk given


def test_an_explicit_cache_that_cannot_fit_is_a_start_up_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_DISK_MB", "512")
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_MB", "512")
    with pytest.raises(ConfigurationError, match="does not fit ENGRAM_DISK_MB=512"):
        budget_of(load_snapshot_settings())
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_MB", "100")
    assert budget_of(load_snapshot_settings()).cache_mb == 100


def test_s_yaml_gives_every_function_a_budget_its_disk_can_hold() -> None:
    for props in functions().values():
        settings = load_snapshot_settings(disk_mb=int(props["environmentVariables"]["ENGRAM_DISK_MB"]))
        budget = budget_of(settings)
        assert budget.disk_mb == props["diskSize"]
        assert budget.cache_mb + budget.replica_mb + budget.reserve_mb < props["diskSize"]


def test_read_replicas_beyond_their_share_of_the_disk_are_let_go(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_DIR", str(tmp_path / "cache"))
    settings, oss = load_snapshot_settings(), load_oss_settings()
    stores = SnapshotTenantStores(str(tmp_path / "store"), hashing_engine, settings=settings, oss=oss,
                                  replica_bytes=1)  # any replica is over
    for tenant in ("alice", "bob", "carol"):
        stores.run(tenant, remember(f"{tenant} likes tea"), write=True)
        assert stores.run(tenant, lambda e: len(e.memories()), write=False) == 1
    assert list(stores._replicas) == ["carol"]
    roomy = SnapshotTenantStores(str(tmp_path / "store"), hashing_engine, settings=settings, oss=oss,
                                 replica_bytes=1 << 30)
    for tenant in ("alice", "bob", "carol"):
        roomy.run(tenant, lambda e: len(e.memories()), write=False)
    assert list(roomy._replicas) == ["alice", "bob", "carol"]
    stores.close()
    roomy.close()


def test_the_replica_count_is_bounded_by_file_descriptors_not_a_fixed_32() -> None:
    assert replica_limit(1024) == 170  # half of the common soft limit, three files each
    assert replica_limit(65536) == 1024 and replica_limit(4) == 1


def test_with_the_defaults_a_hundred_small_tenants_all_keep_a_replica(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ENGRAM_SNAPSHOT_CACHE_DIR", str(tmp_path / "cache"))
    settings, oss = load_snapshot_settings(), load_oss_settings()
    writer = SnapshotTenantStores(str(tmp_path / "store"), hashing_engine, settings=settings, oss=oss)
    tenants = [f"t{n:03d}" for n in range(100)]
    for tenant in tenants:
        writer.run(tenant, remember(f"{tenant} likes tea"), write=True)
    writer.close()
    reader = SnapshotTenantStores(str(tmp_path / "store"), hashing_engine, settings=settings, oss=oss)
    files_before = len(os.listdir("/proc/self/fd"))
    for tenant in tenants:
        assert reader.run(tenant, lambda e: len(e.memories()), write=False) == 1
    assert list(reader._replicas) == tenants  # none was let go
    assert len(os.listdir("/proc/self/fd")) - files_before <= FILES_PER_REPLICA * len(tenants)
    replica = reader._replicas["t000"]
    assert reader.run("t000", lambda e: len(e.memories()), write=False) == 1
    assert reader._replicas["t000"] is replica  # kept and reused, not loaded again
    reader.close()
    assert not reader._replicas
