"""Tenant stores over snapshot storage (``oss://bucket/prefix``): one Snapshotter shared by every thread.

A write loads the tenant's newest generation (warm cache first), runs the
operation and commits the next generation create-only, re-applying the
operation when another instance won the race. A read runs on a warm read
replica: an open working copy of the newest generation, kept per tenant and
checked with one request (is there a generation after it?) before each use, so
a warm read neither downloads nor rebuilds the recall index. When another
instance committed deltas meanwhile, the replica applies just those in place
(snapshots/replicas.py); anything else loads it afresh.

Function Compute hands each request fresh STS credentials in ``x-fc-*``
headers. Where the platform is trusted to have set them, the caller scopes them
to the request being served (``scope_request_credentials``, a context
variable), and every storage call made for that request is signed with them;
no other request, and no other tenant, ever sees them.
"""

from __future__ import annotations

import hashlib
import resource
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar, Token
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from engram_core.tenants.ids import check_tenant_id

if TYPE_CHECKING:
    from engram_core.tenants.due_index import DueIndex
    from engram_core.usecases.engine import Engine
    from engram_core.snapshots import OssSettings, SnapshotSettings, Snapshotter
    from engram_core.snapshots.ports import ObjectInfo, SnapshotStore, StoredObject
    from engram_core.snapshots.checkout import Checkout

T = TypeVar("T")
FC_KEY_ID_HEADER = "x-fc-access-key-id"
FC_CREDENTIAL_HEADERS = (FC_KEY_ID_HEADER, "x-fc-access-key-secret", "x-fc-security-token")
# Warm read replicas are bounded by bytes (their share of the disk, disk.py) and, so that they can never use
# up the process's file descriptors, by count: each open one holds FILES_PER_REPLICA (the database, its
# write-ahead log, the shared-memory index), and together they may hold half the soft RLIMIT_NOFILE (170
# replicas at the common 1,024), never more than MAX_REPLICAS. The least recently used go first.
FILES_PER_REPLICA = 3
MAX_REPLICAS = 1024
MAX_REQUEST_CLIENTS = 8  # object-store clients kept for request credentials (STS credentials rotate)
_REQUEST_CREDENTIALS: ContextVar[Mapping[str, str] | None] = ContextVar("engram_request_credentials", default=None)


def credentials_in(headers: Mapping[str, str]) -> dict[str, str] | None:
    """The x-fc-* storage credentials a request carries (key id and secret at least), else None."""
    found = {name: headers[name] for name in FC_CREDENTIAL_HEADERS if headers.get(name)}
    return found if len(found) >= 2 and FC_KEY_ID_HEADER in found and FC_CREDENTIAL_HEADERS[1] in found else None


def scope_request_credentials(credentials: Mapping[str, str] | None) -> Token[Mapping[str, str] | None]:
    """Storage calls in this context (one request) are signed with these credentials; ``reset`` ends it."""
    return _REQUEST_CREDENTIALS.set(dict(credentials) if credentials else None)


def reset_request_credentials(token: Token[Mapping[str, str] | None]) -> None:
    _REQUEST_CREDENTIALS.reset(token)


class RequestScopedStore:
    """The SnapshotStore port on the credentials of the request being served, else on the process's own.

    One client per set of credentials (a few kept, least recently used dropped), so two requests
    never share a client unless they carry the same credentials.
    """

    def __init__(self, default: SnapshotStore, open_with: Callable[[Mapping[str, str]], SnapshotStore]) -> None:
        self._default = default
        self._open_with = open_with
        self._clients: OrderedDict[str, SnapshotStore] = OrderedDict()
        self._lock = threading.Lock()
        self.location = default.location

    def current(self) -> SnapshotStore:
        credentials = _REQUEST_CREDENTIALS.get()
        if credentials is None:
            return self._default
        digest = hashlib.sha256("\0".join(credentials.get(h, "") for h in FC_CREDENTIAL_HEADERS).encode()).hexdigest()
        with self._lock:
            client = self._clients.get(digest)
            if client is not None:
                self._clients.move_to_end(digest)
                return client
        client = self._open_with(credentials)
        with self._lock:
            self._clients[digest] = client
            while len(self._clients) > MAX_REQUEST_CLIENTS:
                self._clients.popitem(last=False)
        return client

    def get(self, key: str) -> StoredObject | None:
        return self.current().get(key)

    def head(self, key: str) -> ObjectInfo | None:
        return self.current().head(key)

    def put_new(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        self.current().put_new(key, data, metadata)

    def put(self, key: str, data: bytes, metadata: Mapping[str, str]) -> None:
        self.current().put(key, data, metadata)

    def list(self, prefix: str, start_after: str = "", limit: int | None = None) -> list[ObjectInfo]:
        return self.current().list(prefix, start_after, limit)

    def delete(self, keys: Sequence[str]) -> None:
        self.current().delete(keys)


class SnapshotTenantStores:
    """The object store client is built on first use, so a process answers /healthz before it loads oss2."""

    def __init__(self, location: str, open_engine: Callable[[Path], Engine], *, settings: SnapshotSettings,
                 oss: OssSettings, replica_bytes: int | None = None, max_replicas: int | None = None) -> None:
        self.location = location
        self._max_replicas = max_replicas or replica_limit()
        self._open_engine = open_engine
        self._settings = settings
        self._oss = oss
        self._replica_bytes = replica_bytes  # None: from ENGRAM_DISK_MB when the snapshotter opens
        self._snapshotter: Snapshotter | None = None
        self._lock = threading.Lock()
        self._replicas: OrderedDict[str, Checkout] = OrderedDict()
        self._tenant_locks: dict[str, threading.Lock] = {}

    @property
    def snapshotter(self) -> Snapshotter:
        with self._lock:
            if self._snapshotter is None:
                from engram_core.snapshots import MIB, open_snapshot_store, open_snapshotter
                from engram_core.snapshots.settings import budget_of

                settings, oss = self._settings, self._oss
                if self._replica_bytes is None:
                    self._replica_bytes = budget_of(settings).replica_mb * MIB
                store = RequestScopedStore(
                    open_snapshot_store(self.location, oss),
                    lambda found: open_snapshot_store(self.location, oss.with_fc_credentials(found)))
                self._snapshotter = open_snapshotter(self.location, self._open_engine, oss=oss, store=store,
                                                     settings=settings)
                self._snapshotter.on_new_tenant = self._register
            return self._snapshotter

    def _register(self, tenant: str) -> None:
        self.due_index().schedule(tenant, datetime.now(timezone.utc))

    def due_index(self) -> DueIndex:
        """Beside the tenants, under the same prefix (no tenant id starts with an underscore)."""
        from engram_core.tenants.due_index import DueIndex

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
        """The tenant's replica, brought up to the newest generation in place with its deltas, else loaded
        afresh (caller holds the tenant's lock)."""
        from engram_core.snapshots.replicas import GaveUp, refreshed

        replica, seen = self._replicas.get(tenant), None
        if replica is not None:
            try:
                fresh = refreshed(self.snapshotter, replica)
            except BaseException:  # the store failed: the next read starts from a fresh checkout
                with self._lock:
                    self._replicas.pop(tenant, None)
                replica.discard()
                raise
            with self._lock:
                if isinstance(fresh, GaveUp):
                    self._replicas.pop(tenant, None)
                else:
                    self._replicas[tenant] = fresh
                    self._replicas.move_to_end(tenant)
            if not isinstance(fresh, GaveUp):
                return fresh
            seen = fresh.seen
        replica = self.snapshotter.checkout(tenant, seen)
        with self._lock:
            self._replicas[tenant] = replica
            idle = self._over_bounds(tenant)
        for name in idle:
            self._drop_replica(name, wait=False)
        return replica

    def _over_bounds(self, keep: str) -> list[str]:
        """Least recently used replicas beyond the count bound or the disk's replica share (caller holds _lock)."""
        others = [t for t in self._replicas if t != keep]  # least recently used first
        excess = max(0, len(self._replicas) - self._max_replicas)
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
        """This request's storage calls (this context only) use the STS credentials it carries, if any."""
        scope_request_credentials(credentials_in(headers))


def replica_limit(open_files: int | None = None) -> int:
    """Open replicas a process may keep: half its soft file-descriptor limit, FILES_PER_REPLICA each."""
    soft = open_files if open_files is not None else resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return MAX_REPLICAS
    return max(1, min(MAX_REPLICAS, soft // 2 // FILES_PER_REPLICA))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
