"""The due index: which tenants are due for a sleep cycle, kept as small objects beside the tenant stores.

    _due/2026010509/alice              alice is due from 2026-01-05 09:00 UTC on (an empty object)
    _claims/20260105T090000Z/alice     the 09:00 timer event dispatched alice's job (create-only)
    _index/built                       every tenant that existed when the index was built is in it

Tenant ids start with a letter or digit, so none of these can be mistaken for a tenant's objects.
The timer lists ``_due/`` in key order and stops at the first entry after its own hour: an hour in
which nobody is due costs one listing, and the fan-out never opens a tenant's store. The index is a
schedule, not the truth: each sleep job checks the tenant's own marks before it does any work, so a
stale or doubled entry costs at most one job that skips. A new tenant is added before its first
generation is committed; an index that was never built is built once from a listing of the tenants.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from engram_core.core.errors import GenerationExistsError
from engram_core.snapshots.ports import SnapshotStore

log = logging.getLogger("engram.due")
DUE = "_due/"
CLAIMS = "_claims/"
BUILT = "_index/built"
PAGE = 1000  # one listing request returns at most this many keys (OSS and S3 alike)
FIRST_PAGE = 10  # an idle hour needs one key to see that nobody is due: keep that listing small
_HOUR = "%Y%m%d%H"


def due_hour(at: datetime) -> datetime:
    """The first whole hour at or after ``at`` (UTC): the timer runs on the hour."""
    at = at.astimezone(timezone.utc)
    floor = at.replace(minute=0, second=0, microsecond=0)
    return floor if floor == at else floor + timedelta(hours=1)


@dataclass(frozen=True)
class DueEntry:
    tenant: str
    hour: datetime

    @property
    def key(self) -> str:
        return f"{DUE}{self.hour.strftime(_HOUR)}/{self.tenant}"


def _entry(key: str) -> DueEntry | None:
    hour, _, tenant = key[len(DUE):].partition("/")
    try:
        return DueEntry(tenant, datetime.strptime(hour, _HOUR).replace(tzinfo=timezone.utc)) if tenant else None
    except ValueError:
        return None


@dataclass(frozen=True)
class DueTenants:
    """What one timer event found: each due tenant with its entries, and whether more were left over."""

    entries: dict[str, list[DueEntry]]
    truncated: bool
    requests: int


class DueIndex:
    """Over a SnapshotStore; ``store`` is a callable because the client is rebuilt when credentials rotate."""

    def __init__(self, store: Callable[[], SnapshotStore]) -> None:
        self._store = store

    def schedule(self, tenant: str, at: datetime) -> DueEntry:
        entry = DueEntry(tenant, due_hour(at))
        self._store().put(entry.key, b"", {})
        return entry

    def move(self, tenant: str, old: Iterable[DueEntry], at: datetime) -> None:
        """Due again at ``at``: the new entry first, so a failure in between leaves a doubled entry, not none."""
        new = self.schedule(tenant, at)
        stale = [e.key for e in old if e != new]
        if stale:
            self._store().delete(stale)

    def drop(self, entries: Iterable[DueEntry]) -> None:
        self._store().delete([e.key for e in entries])

    def due(self, trigger: datetime, most: int) -> DueTenants:
        """Tenants due at ``trigger``, oldest entries first, at most ``most`` of them."""
        found: dict[str, list[DueEntry]] = {}
        after, requests, size = "", 0, FIRST_PAGE
        while True:
            page = self._store().list(DUE, start_after=after, limit=size)
            requests += 1
            for info in page:
                entry = _entry(info.key)
                if entry is None:
                    continue
                if entry.hour > trigger:
                    return DueTenants(found, False, requests)
                if entry.tenant not in found and len(found) >= most:
                    return DueTenants(found, True, requests)
                found.setdefault(entry.tenant, []).append(entry)
            if len(page) < size:
                return DueTenants(found, False, requests)
            after, size = page[-1].key, PAGE

    def claim(self, tenant: str, trigger: datetime) -> bool:
        """Create-only: exactly one handler of a (retried) timer event dispatches this tenant's job."""
        try:
            self._store().put_new(self._claim_key(tenant, trigger), b"", {})
        except GenerationExistsError:
            return False
        return True

    def release(self, tenant: str, trigger: datetime) -> None:
        """The job could not be handed over: a retried event may try again."""
        self._store().delete([self._claim_key(tenant, trigger)])

    @staticmethod
    def _claim_key(tenant: str, trigger: datetime) -> str:
        return f"{CLAIMS}{trigger.astimezone(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}/{tenant}"

    def built(self) -> bool:
        return self._store().head(BUILT) is not None

    def build(self, tenants: Iterable[str], at: datetime) -> int:
        """Every tenant not on the schedule yet becomes due at once (its job checks its own marks); how many."""
        known = {entry.tenant for info in self._store().list(DUE) if (entry := _entry(info.key)) is not None}
        now = at.astimezone(timezone.utc).replace(minute=0, second=0, microsecond=0)
        added = [tenant for tenant in tenants if tenant not in known]
        for tenant in added:
            self._store().put(DueEntry(tenant, now).key, b"", {})
        self._store().put(BUILT, at.astimezone(timezone.utc).isoformat().encode("ascii"), {})
        log.info("due index built: %d tenants added, %d already on it", len(added), len(known))
        return len(added)
