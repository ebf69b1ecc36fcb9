"""The Snapshotter: a tenant's SQLite database, loaded from its newest generation and committed as the next.

    snapshotter.run("alice", lambda engine: engine.remember("Prefers aisle seats"))

``run`` loads the newest good generation (this process's head, else the warm cache: one listing to
check it still exists and nothing newer does), opens a private working copy, runs the operation, and,
if it changed anything, writes generation N+1 create-only (a delta when it can: deltas.py). A writer
that loses the race reloads and re-applies its operation, with jittered backoff, up to a bounded number of
attempts; then it raises BusyError and nothing was written. Read-only operations never
write a generation.
"""

from __future__ import annotations

import logging
import random
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from engram_core.core.errors import BusyError, EngramError, GenerationExistsError, StoreError
from engram_core.snapshots import pages, sqlite_files
from engram_core.snapshots.batch import Lane, Ticket, abandon
from engram_core.snapshots.cache import CachedGeneration, WarmCache
from engram_core.snapshots.chain import ChainLoader, Stopped
from engram_core.snapshots.checkout import Base, Checkout, CommitResult, RetryPolicy, Seen
from engram_core.snapshots.codec import DEFAULT_LEVEL, Sealed
from engram_core.snapshots.collection import GcReport, collect_garbage
from engram_core.snapshots.compaction import compact, delete_older, lineage_after, sealed_commit
from engram_core.snapshots.deltas import CompactionPolicy, SealedDelta
from engram_core.snapshots.heads import WORKING_FILE, Heads
from engram_core.snapshots.layout import TenantKeys, generation_of, parse_hint, tenant_of
from engram_core.snapshots.ports import SnapshotStore, StoredObject
from engram_core.snapshots.retention import RetentionPolicy

if TYPE_CHECKING:
    from engram_core.usecases.engine import Engine

T = TypeVar("T")
log = logging.getLogger("engram.snapshots")
# The hint only shortens the listing a cold load makes, so it is refreshed every few generations
# instead of costing every commit a second request.
HINT_EVERY = 16


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Counters:
    """What this instance did, for benchmarks and operators."""

    warm_hits: int = 0
    downloads: int = 0
    commits: int = 0
    conflicts: int = 0
    quarantined: int = 0
    replica_advances: int = 0  # read replicas brought up to date in place (replicas.py)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def bump(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)


class Snapshotter:
    """Thread-safe; share one per process so threads share the warm cache."""

    def __init__(self, store: SnapshotStore, open_engine: Callable[[Path], Engine], cache: WarmCache, *,
                 retention: RetentionPolicy | None = None, retry: RetryPolicy | None = None,
                 compression_level: int = DEFAULT_LEVEL, compaction: CompactionPolicy | None = None,
                 rng: random.Random | None = None,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], datetime] = utc_now) -> None:
        self.store, self.cache = store, cache
        self.retention = retention or RetentionPolicy()
        self.retry = retry or RetryPolicy()
        self.counters = Counters()
        self.open_engine, self.compression_level = open_engine, compression_level
        self._sleep, self._clock = sleep, clock
        self._rng = rng or random.Random()
        self.chains = ChainLoader(store, cache, clock, lambda: self.counters.bump("quarantined"))
        self.compaction = compaction or CompactionPolicy()
        self.heads = Heads(max_bytes=cache.max_bytes)
        self._lanes: dict[str, Lane] = {}
        self._lanes_guard = threading.Lock()
        # Called with the tenant before its first generation is written (the due index registers it there).
        self.on_new_tenant: Callable[[str], None] | None = None

    def run(self, tenant: str, operation: Callable[[Engine], T], *, write: bool = True) -> T:
        """Run ``operation`` on the tenant's newest state; commit its changes when ``write``.

        Concurrent writers of one tenant in this process are grouped into one commit (see batch.py).
        """
        if not write:
            with self.turn(tenant), self.checkout_for_turn(tenant) as checkout:
                return operation(checkout.engine)
        ticket, lane = Ticket(operation), self._lane(tenant)
        lane.enqueue(ticket)
        with lane.turn:
            if not ticket.done:
                batch = lane.take_all()
                try:
                    self._run_batch(tenant, batch)
                except EngramError as exc:  # the store failed: every operation of the batch alike
                    for queued in batch:
                        if not queued.done:
                            queued.finish(exc)
                finally:
                    abandon(batch)
        return ticket.outcome()

    def queued(self, tenant: str) -> int:
        """Writers of this tenant waiting for their turn in this process."""
        return len(self._lane(tenant).pending)

    def turn(self, tenant: str) -> threading.Lock:  # held while a thread works on the tenant's head
        return self._lane(tenant).turn

    def _lane(self, tenant: str) -> Lane:
        with self._lanes_guard:
            return self._lanes.setdefault(tenant, Lane())

    def _run_batch(self, tenant: str, batch: list[Ticket[object]]) -> None:
        """Apply every queued operation to one checkout and commit once; a lost race re-applies them all."""
        for attempt in range(self.retry.max_attempts):
            batch = self._apply_batch(tenant, batch)
            if not batch:
                return
            if attempt + 1 < self.retry.max_attempts:
                self._sleep(self.retry.delay(attempt, self._rng))
        busy = BusyError(f"tenant {tenant!r} is busy: {self.retry.max_attempts} commits in a row lost the race "
                         "to other writers; nothing was written, retry")
        for ticket in batch:
            ticket.finish(busy)

    def _apply_batch(self, tenant: str, batch: list[Ticket[object]]) -> list[Ticket[object]]:
        """One attempt; returns the tickets still to do (empty once committed)."""
        while batch:
            with self.checkout_for_turn(tenant) as checkout:
                for ticket in batch:
                    ticket.apply(checkout.engine)
                failed = [t for t in batch if t.error is not None]
                if failed and len(batch) > 1:  # its partial writes must not ride along: redo the rest
                    for ticket in failed:
                        ticket.finish()
                    batch = [t for t in batch if t.error is None]
                    continue
                if failed or self._committed(checkout):
                    for ticket in batch:
                        ticket.finish()
                    return []
                return batch
        return []

    def _committed(self, checkout: Checkout) -> bool:
        try:
            checkout.commit()
        except GenerationExistsError:
            self.counters.bump("conflicts")
            checkout.take_back()
            return False
        return True

    def checkout_for_turn(self, tenant: str) -> Checkout:  # under the turn: the head, else a fresh copy
        return self._head_checkout(tenant) or self.checkout(tenant)

    def _head_checkout(self, tenant: str) -> Checkout | None:
        """A checkout on the tenant's head (heads.py) when it is the newest generation or can be brought up to
        it with deltas; None (and the head gone) otherwise."""
        head = self.heads.take(tenant)
        if head is None:
            return None
        keys = TenantKeys(tenant)
        try:
            newest, exists = self.resolve(keys, head.generation)
            if exists and head.path.exists() and (
                    newest == head.generation or self.chains.advance(keys, head.generation, newest, head.path)):
                self.counters.bump("warm_hits")
                opened = pages.stamp(head.path)
                return Checkout(self, keys, Base(newest, newest + 1, None), head.workdir,
                                self.open_engine(head.path), opened)
        except BaseException:
            shutil.rmtree(head.workdir, ignore_errors=True)
            raise
        shutil.rmtree(head.workdir, ignore_errors=True)
        return None

    def checkout(self, tenant: str, seen: Seen | None = None) -> Checkout:
        """A fresh working copy of the newest generation (``seen``: what a replica's refresh already read)."""
        keys = TenantKeys(tenant)
        workdir = self.cache.workspace()
        try:
            base = self._materialise(keys, workdir / WORKING_FILE, seen)
            opened = pages.stamp(workdir / WORKING_FILE) if base.cached is not None else None
            return Checkout(self, keys, base, workdir, self.open_engine(workdir / WORKING_FILE), opened)
        except BaseException:
            shutil.rmtree(workdir, ignore_errors=True)
            raise

    def _materialise(self, keys: TenantKeys, dest: Path, seen: Seen | None = None) -> Base:
        """Load the newest good generation into ``dest`` (nothing at all for a new tenant)."""
        for _ in range(3):
            base, seen = self._load(keys, seen), None  # a second try lists again
            if base.cached is None or self.cache.copy_to(base.cached, dest):
                return base
        raise StoreError(f"tenant {keys.tenant!r}: the warm cache kept losing its copy; is it too small?")

    # -- loading ----------------------------------------------------------------------
    def _load(self, keys: TenantKeys, seen: Seen | None = None) -> Base:
        cached = self.cache.newest(keys.tenant)
        if seen is not None and (cached is None or seen.covers(cached.generation)):
            newest, cached_exists = seen.newest, cached is not None and cached.generation in seen.numbers
        else:
            newest, cached_exists = self.resolve(keys, cached.generation if cached else None)
            seen = None
        if cached is not None and not cached_exists:  # purged or collected: never serve it again
            self.cache.forget(keys.tenant)
            cached = None
        if newest == 0:
            return Base(0, 1, None)
        number = newest
        while number > 0:
            if cached is not None and number == cached.generation:
                self.counters.bump("warm_hits")
                return Base(number, newest + 1, cached)
            fetched = seen.newest_object if seen is not None and number == newest else None
            entry = self._fetch(keys, number, cached, fetched)
            if isinstance(entry, CachedGeneration):
                return Base(number, newest + 1, entry)
            if not self.chains.is_bad(keys.tenant, entry.generation):
                break  # collected: nothing older survives either
            number = entry.generation - 1
        raise StoreError(f"tenant {keys.tenant!r}: no readable generation (newest is {newest}); "
                         "see `engram snapshots list`")

    def newest_generation(self, tenant: str, known: int | None = None) -> int:
        """The newest generation number (0 if none)."""
        return self.resolve(TenantKeys(tenant), known)[0]

    def resolve(self, keys: TenantKeys, known: int | None) -> tuple[int, bool]:
        """(newest generation, does ``known`` still exist). From a known generation, one listing that
        starts at it: it must still be there (a purge deletes every older generation), and anything
        newer shows. Otherwise a listing from the hint, and the whole prefix when that finds nothing."""
        if known is not None:
            listed = self._listed(keys, known)
            if known in listed:
                return max(listed), True
        floor = self._hinted(keys)
        newest = max(self._listed(keys, floor), default=0) if floor else 0
        return newest or max(self._listed(keys, None), default=0), False

    def _hinted(self, keys: TenantKeys) -> int | None:
        hint = self.store.get(keys.hint)
        return parse_hint(hint.data) if hint is not None else None

    def listing(self, keys: TenantKeys, floor: int) -> Seen:
        """One listing of the generations at and above ``floor``."""
        return Seen(floor, frozenset(self._listed(keys, floor)))

    def _listed(self, keys: TenantKeys, floor: int | None) -> list[int]:
        """Generation numbers at or above ``floor`` (the whole prefix without one)."""
        start = keys.generation(floor - 1) if floor is not None and floor > 1 else ""
        return [n for info in self.store.list(keys.snap_prefix, start_after=start) if (n := generation_of(info.key))]

    def _fetch(self, keys: TenantKeys, number: int, warm: CachedGeneration | None,
               fetched: StoredObject | None = None) -> CachedGeneration | Stopped:
        """Download (unless ``fetched``), verify and cache one generation (from the warm copy when it is a delta
        on its chain)."""
        workdir = self.cache.workspace()
        try:
            found = self.chains.load(keys, number, workdir / WORKING_FILE, warm, fetched)
            if isinstance(found, Stopped):
                return found
            self.counters.bump("downloads")
            return self.cache.adopt(keys.tenant, number, workdir / WORKING_FILE)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def download_verified(self, tenant: str, number: int, dest: Path) -> StoredObject | None:
        """Write generation ``number`` to ``dest`` after every check a load makes; None if it is gone."""
        return self.chains.load_verified(TenantKeys(tenant), number, dest)

    # -- committing ---------------------------------------------------------------------
    def commit_checkout(self, checkout: Checkout, purge: bool, delta: pages.PageDelta | None) -> CommitResult:
        keys, target = checkout.keys, checkout.base.next_generation
        if target == 1 and self.on_new_tenant is not None:
            self.on_new_tenant(keys.tenant)  # first, so a tenant never exists without its schedule
        vacuumed = sqlite_files.finalize(checkout.path, vacuum=purge)
        checkout.captured = None if vacuumed else checkout.captured
        sealed = sealed_commit(self, checkout, None if vacuumed else delta)
        self.publish(keys, target, sealed, force_hint=purge)
        self.chains.record(keys.tenant, lineage_after(target, sealed))
        if purge or target == 1:  # the cache holds what readers of other tenants' turns and processes load
            self.cache.adopt(keys.tenant, target, checkout.path)
            self.heads.drop(keys.tenant)
        else:
            checkout.keep_as(target)
        deleted = delete_older(self.store, keys, target) if purge else 0
        self.counters.bump("commits")
        log.info("snapshot committed: tenant=%s generation=%d bytes=%d", keys.tenant, target, len(sealed.payload))
        return CommitResult(target, len(sealed.payload), sealed.raw_size, deleted)

    def publish(self, keys: TenantKeys, target: int, sealed: Sealed | SealedDelta, *, force_hint: bool = False) -> None:
        """Create-only upload of one generation (then, now and again, the advisory hint)."""
        key = keys.generation(target)
        try:
            self.store.put_new(key, sealed.payload, sealed.metadata())
        except GenerationExistsError:
            raise  # another writer's: the store answered, so this upload did not land
        except StoreError as exc:
            if not self._holds(key, sealed.sha256):
                raise StoreError(f"commit of {keys.tenant} generation {target} failed, nothing was committed: "
                                 f"{exc.message}") from exc
        if target % HINT_EVERY == 0 or force_hint:
            self._write_hint(keys, target)

    def _holds(self, key: str, sha256: str) -> bool:
        """After an error: did our upload land anyway (the answer was lost, not the write)?"""
        try:
            info = self.store.head(key)
        except StoreError as exc:
            raise StoreError(f"commit outcome unknown for {key}: {exc.message}; retry (a retry is safe)") from exc
        return info is not None and info.metadata.get("sha256") == sha256

    def _write_hint(self, keys: TenantKeys, number: int) -> None:
        try:
            self.store.put(keys.hint, str(number).encode("ascii"), {})
        except StoreError as exc:  # the hint is advisory: the generation is committed either way
            log.warning("could not update the hint of %s: %s", keys.tenant, exc.message)

    def collect_garbage(self, tenant: str, now: datetime | None = None) -> GcReport:
        """Compact a delta chain, then delete what the retention policy no longer needs (the sleep job calls this)."""
        compact(self, tenant)
        return collect_garbage(self, tenant, now or self._clock())

    def tenants(self) -> list[str]:
        return sorted({t for i in self.store.list("") if "/snap/" in i.key and (t := tenant_of(i.key))})

    def close(self) -> None:
        """Working copies are closed per operation and cached files stay warm; heads go."""
        self.heads.drop_all()
