"""Tenant stores over snapshot storage (``oss://bucket/prefix``): one Snapshotter shared by every thread.

A write loads the tenant's newest generation (warm cache first), runs the
operation and commits the next generation create-only, re-applying the
operation when another instance won the race. A read runs on a warm read
replica: an open working copy of the newest generation, kept per tenant and
checked with one request (is there a generation after it?) before each use, so
a warm read neither downloads nor rebuilds the recall index. Function Compute
hands each request fresh STS credentials in ``x-fc-*`` headers;
``use_request_credentials`` moves the object store client onto them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from engram_core.tenancy import check_tenant_id

if TYPE_CHECKING:
    from engram_core.due_index import DueIndex
    from engram_core.engine import Engine
    from engram_core.snapshots import OssSettings, Snapshotter
    from engram_core.snapshots.snapshotter import Checkout

T = TypeVar("T")
FC_KEY_ID_HEADER = "x-fc-access-key-id"
MAX_REPLICAS = 32  # warm read replicas kept per instance (least recently used go first)


class SnapshotTenantStores:
    """The object store client is built on first use, so a process answers /healthz before it loads oss2."""

    def __init__(self, location: str, open_engine: Callable[[Path], Engine], *,
                 replica_bytes: int | None = None) -> None:
        self.location = location
        self._open_engine = open_engine
        self._replica_bytes = replica_bytes  # None: from ENGRAM_DISK_MB when the snapshotter opens
        self._snapshotter: Snapshotter | None = None
        self._oss: OssSettings | None = None
        self._key_id: str | None = None
        self._lock = threading.Lock()
        self._replicas: OrderedDict[str, Checkout] = OrderedDict()
        self._tenant_locks: dict[str, threading.Lock] = {}

    @property
    def snapshotter(self) -> Snapshotter:
        with self._lock:
            if self._snapshotter is None:
                from engram_core.snapshots import MIB, open_snapshotter
                from engram_core.snapshots.settings import budget_of, load_oss_settings, load_snapshot_settings

                settings = load_snapshot_settings()
                replica_mb = budget_of(settings).replica_mb
                if self._replica_bytes is None and replica_mb is not None:
                    self._replica_bytes = replica_mb * MIB
                self._oss = load_oss_settings()
                self._snapshotter = open_snapshotter(self.location, self._open_engine, oss=self._oss,
                                                     settings=settings)
                self._snapshotter.on_new_tenant = self._register
            return self._snapshotter

    def _register(self, tenant: str) -> None:
        self.due_index().schedule(tenant, datetime.now(timezone.utc))

    def due_index(self) -> DueIndex:
        """Beside the tenants, under the same prefix (no tenant id starts with an underscore)."""
        from engram_core.due_index import DueIndex

        return DueIndex(lambda: self.snapshotter.store)

    def has_tenant(self, tenant: str) -> bool:
        return self.snapshotter.newest_generation(check_tenant_id(tenant)) > 0

    def run(self, tenant: str, operation: Callable[[Engine], T], *, write: bool) -> T:
        tenant = check_tenant_id(tenant)
        if write:
            return self.snapshotter.run(tenant, operation, write=True)
        with self._tenant_lock(tenant):
            return operation(self._fresh_replica(tenant).engine)

    def _tenant_lock(self, tenant: str) -> threading.Lock:
        with self._lock:
            return self._tenant_locks.setdefault(tenant, threading.Lock())

    def _fresh_replica(self, tenant: str) -> Checkout:
        """The tenant's replica, replaced when a newer generation exists (caller holds the tenant's lock)."""
        replica = self._replicas.get(tenant)
        known = replica.base.generation if replica is not None else None
        if replica is not None and self.snapshotter.newest_generation(tenant, known) == known:
            with self._lock:
                self._replicas.move_to_end(tenant)
            return replica
        if replica is not None:
            replica.discard()
        replica = self.snapshotter.checkout(tenant)
        with self._lock:
            self._replicas[tenant] = replica
            idle = self._over_bounds(tenant)
        for name in idle:
            self._drop_replica(name, wait=False)
        return replica

    def _over_bounds(self, keep: str) -> list[str]:
        """Least recently used replicas beyond MAX_REPLICAS, or beyond the disk's replica share (caller holds _lock)."""
        others = [t for t in self._replicas if t != keep]  # least recently used first
        excess = max(0, len(self._replicas) - MAX_REPLICAS)
        total = sum(_size(r.path) for r in self._replicas.values()) if self._replica_bytes is not None else 0
        doomed = []
        for number, tenant in enumerate(others):
            if number >= excess and (self._replica_bytes is None or total <= self._replica_bytes):
                break
            doomed.append(tenant)
            total -= _size(self._replicas[tenant].path)
        return doomed

    def _drop_replica(self, tenant: str, *, wait: bool) -> None:
        lock = self._tenant_lock(tenant)
        if not lock.acquire(blocking=wait):
            return  # in use right now: it goes next time
        try:
            with self._lock:
                replica = self._replicas.pop(tenant, None)
            if replica is not None:
                replica.discard()
        finally:
            lock.release()

    def tenants(self) -> list[str]:
        return self.snapshotter.tenants()

    def collect_garbage(self, tenant: str) -> int:
        """Old generations past the newest K and the grace period go (run after each sleep cycle)."""
        return len(self.snapshotter.collect_garbage(check_tenant_id(tenant)).deleted)

    def close(self) -> None:
        """Close every read replica (their working copies are private and never committed)."""
        with self._lock:
            tenants = list(self._replicas)
        for tenant in tenants:
            self._drop_replica(tenant, wait=True)
        if self._snapshotter is not None:
            self._snapshotter.close()

    def use_request_credentials(self, headers: Mapping[str, str]) -> None:
        """Switch to the STS credentials a Function Compute request carries, when they changed."""
        key_id = headers.get(FC_KEY_ID_HEADER)
        if not key_id or key_id == self._key_id:
            return
        from engram_core.snapshots import open_snapshot_store

        snapshotter = self.snapshotter
        with self._lock:
            if key_id != self._key_id:
                snapshotter.store = open_snapshot_store(self.location, self._oss.with_fc_credentials(headers))
                self._key_id = key_id


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def open_snapshot_tenant_stores(location: str, open_engine: Callable[[Path], Engine] | None = None
                                ) -> SnapshotTenantStores:
    if open_engine is None:
        from engram_core import open_engine as open_default

        open_engine = open_default
    return SnapshotTenantStores(location, open_engine)
