"""Tenants: one store per tenant, reached only through ``TenantStores.run``.

A caller never opens another tenant's store: the tenant id comes from its
credentials, and every operation runs against exactly that tenant's store.
``run`` takes the operation as a callable so that a store backed by immutable
snapshot generations can re-apply it after losing a commit race.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from engram_core.tenants.ids import check_tenant_id

if TYPE_CHECKING:
    from engram_core.settings import Settings
    from engram_core.tenants.due_index import DueIndex
    from engram_core.usecases.engine import Engine

T = TypeVar("T")

class TenantStores(Protocol):
    def run(self, tenant: str, operation: Callable[[Engine], T], *, write: bool) -> T:
        """Run ``operation`` on the tenant's engine; persist its changes when ``write``."""
        ...

    def tenants(self) -> list[str]:
        """Every tenant that has a store."""
        ...

    def has_tenant(self, tenant: str) -> bool:
        """Whether this tenant has a store (a cheap check, unlike ``tenants()``)."""
        ...

    def due_index(self) -> DueIndex:
        """When each tenant is next due for a sleep cycle (see due_index.py)."""
        ...

    def collect_garbage(self, tenant: str) -> int:
        """Delete stored generations the retention policy no longer needs; how many were deleted."""
        ...

    def close(self) -> None:
        ...


def _private_tenant_files(path: Path) -> None:
    """The tenant's directory and files are private, those an older version made included."""
    from engram_core.adapters.private_files import private_dir, tighten

    private_dir(path.parent)
    for managed in (path.parent.parent, path.parent, *path.parent.glob(path.name + "*")):
        tighten(managed)


class LocalTenantStores:
    """One SQLite file per tenant under a directory; engines stay open (warm) per tenant."""

    def __init__(self, root: str | Path, open_engine: Callable[[Path], Engine]) -> None:
        self.root = Path(root)
        self._open = open_engine
        self._engines: dict[str, Engine] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._due: DueIndex | None = None

    def _path(self, tenant: str) -> Path:
        return self.root / check_tenant_id(tenant) / "engram.sqlite"

    def _lock(self, tenant: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(tenant, threading.Lock())

    def run(self, tenant: str, operation: Callable[[Engine], T], *, write: bool) -> T:
        path = self._path(tenant)
        with self._lock(tenant):
            engine = self._engines.get(tenant)
            if engine is None:
                if not path.exists():  # a new tenant: on the schedule before it has a file
                    self.due_index().schedule(tenant, datetime.now(timezone.utc))
                _private_tenant_files(path)
                engine = self._open(path)
                with self._guard:
                    self._engines[tenant] = engine
            return operation(engine)

    def has_tenant(self, tenant: str) -> bool:
        return self._path(tenant).exists()

    def due_index(self) -> DueIndex:
        """Kept in ``<root>/_index`` (no tenant id starts with an underscore)."""
        from engram_core.tenants.due_index import DueIndex
        from engram_core.snapshots.local import LocalDirStore

        with self._guard:
            if self._due is None:
                store = LocalDirStore(self.root / "_index")
                self._due = DueIndex(lambda: store)
            return self._due

    def collect_garbage(self, tenant: str) -> int:
        """A local store is one file updated in place: there are no old generations."""
        check_tenant_id(tenant)
        return 0

    def tenants(self) -> list[str]:
        if not self.root.exists():
            return []
        return sorted(p.parent.name for p in self.root.glob("*/engram.sqlite"))

    def close(self) -> None:
        """Close every warm engine under its tenant's lock: an operation in flight finishes first, and the
        next one opens the store again. A connection in use is never closed under it."""
        with self._guard:
            tenants = list(self._engines)
        for tenant in tenants:
            with self._lock(tenant):
                with self._guard:
                    engine = self._engines.pop(tenant, None)
                if engine is not None:
                    engine.close()


def open_tenant_stores(location: str | Path, open_engine: Callable[[Path], Engine], settings: Settings) -> TenantStores:
    """A directory path gives local per-tenant SQLite files; ``oss://bucket/prefix`` gives snapshot storage.

    ``open_engine`` builds each tenant's engine (from the providers the entry point built); ``settings`` are
    the ones the entry point read (the snapshot and object store parts serve ``oss://``)."""
    text = str(location)
    if text.startswith("oss://"):
        from engram_core.tenants.tenancy_snapshots import SnapshotTenantStores

        return SnapshotTenantStores(text, open_engine, settings=settings.snapshots, oss=settings.oss)
    return LocalTenantStores(Path(text), open_engine)
