"""Loading one generation, full or delta, into a file: every check a load makes, per link of the chain.

A full generation is unsealed, checked (``PRAGMA quick_check``, schema) and
written. A delta needs the state before it: the warm copy when it lies on the
chain, else the chain's full snapshot; then every delta up to the wanted one is
checked (its own checksum, then that it follows from the link before it) and its
pages written in order. A link that fails its checks twice is quarantined and
the load stops there, telling the caller which generation stopped it, so the
newest state that can still be built is served instead.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engram_core.adapters.sqlite_store import LATEST_SCHEMA
from engram_core.core.errors import CorruptSnapshotError, StoreError
from engram_core.adapters.private_files import write_private
from engram_core.snapshots import pages, sqlite_files
from engram_core.snapshots.cache import CachedGeneration, WarmCache
from engram_core.snapshots.codec import check_schema, unseal
from engram_core.snapshots.deltas import Lineage, is_delta, lineage_of, unseal_delta
from engram_core.snapshots.layout import TenantKeys
from engram_core.snapshots.ports import SnapshotStore, StoredObject

log = logging.getLogger("engram.snapshots")
LINEAGES = 4096


@dataclass(frozen=True)
class Stopped:
    """The load could not finish: ``generation`` is gone (collected) or was just quarantined."""

    generation: int


class ChainLoader:
    """Thread-safe; one per Snapshotter. Remembers the lineage of generations it wrote or read."""

    def __init__(self, store: SnapshotStore, cache: WarmCache, clock: Callable[[], datetime],
                 on_quarantine: Callable[[], None]) -> None:
        self.store, self.cache, self._clock, self._on_quarantine = store, cache, clock, on_quarantine
        self._lineages: OrderedDict[tuple[str, int], Lineage] = OrderedDict()  # the newest LINEAGES seen
        self._bad: set[tuple[str, int]] = set()
        self._guard = threading.Lock()

    def is_bad(self, tenant: str, number: int) -> bool:
        return (tenant, number) in self._bad

    def _quarantine(self, keys: TenantKeys, number: int, exc: CorruptSnapshotError) -> None:
        """Never serve it again; leave it in place so generation numbers stay contiguous."""
        self._bad.add((keys.tenant, number))
        self._on_quarantine()
        log.warning("snapshot quarantined: tenant=%s generation=%d reason=%s", keys.tenant, number, exc.message)
        marker = {"generation": number, "reason": exc.message, "detected_at": self._clock().isoformat()}
        try:
            self.store.put(keys.quarantine(number), json.dumps(marker).encode("utf-8"), {})
        except StoreError as err:
            log.warning("could not record the quarantine of %s generation %d: %s", keys.tenant, number, err.message)

    # -- lineage --------------------------------------------------------------------------
    def record(self, tenant: str, lineage: Lineage) -> None:
        with self._guard:
            self._lineages[(tenant, lineage.generation)] = lineage
            while len(self._lineages) > LINEAGES:
                self._lineages.popitem(last=False)  # forgotten ones are one HEAD away

    def lineage(self, keys: TenantKeys, number: int) -> Lineage | None:
        """What this instance knows of a generation, or its metadata (one HEAD) when it knows nothing."""
        with self._guard:
            known = self._lineages.get((keys.tenant, number))
        if known is not None:
            return known
        info = self.store.head(keys.generation(number))
        found = lineage_of(number, info.metadata, info.size) if info is not None else None
        if found is not None:
            self.record(keys.tenant, found)
        return found

    # -- loading --------------------------------------------------------------------------
    def load(self, keys: TenantKeys, number: int, dest: Path, warm: CachedGeneration | None = None,
             fetched: StoredObject | None = None) -> StoredObject | Stopped:
        """Write generation ``number`` to ``dest``; its object, or where the load stopped. ``fetched``: that
        generation's object as ``good`` just returned it (not read again)."""
        head = fetched if fetched is not None and not self.is_bad(keys.tenant, number) else self.good(keys, number)
        if head is None:
            return Stopped(number)
        if not is_delta(head.metadata):
            return self._load_full(keys, number, head, dest)
        stopped = self._load_chain(keys, number, head, dest, warm)
        return head if stopped is None else stopped

    def load_verified(self, keys: TenantKeys, number: int, dest: Path) -> StoredObject | None:
        """``load`` for operators: None when it is gone, CorruptSnapshotError when it cannot be built."""
        found = self.load(keys, number, dest)
        if isinstance(found, Stopped):
            if self.is_bad(keys.tenant, found.generation):
                raise CorruptSnapshotError(f"{keys.tenant} generation {number} cannot be read: generation "
                                           f"{found.generation} is quarantined")
            return None
        return found

    def advance(self, keys: TenantKeys, start: int, newest: int, dest: Path,
                fetched: StoredObject | None = None) -> bool:
        """Bring the file at ``dest`` (generation ``start``) up to ``newest`` in place, when every generation
        in between is a delta on its chain; False when it cannot (then ``dest`` must not be used).
        ``fetched``: the newest generation's object as ``good`` returned it (not read again)."""
        head = fetched if fetched is not None else self.good(keys, newest)
        parent = self.lineage(keys, start)
        if head is None or parent is None or not is_delta(head.metadata):
            return False
        if int(head.metadata.get("base", "0") or 0) > start:
            return False  # a full snapshot came in between
        links = self._links(keys, newest, head, start)
        if isinstance(links, Stopped):
            return False
        return self._apply_links(keys, links, parent.sha256, dest, checked=True) is None

    def good(self, keys: TenantKeys, number: int) -> StoredObject | None:
        """The object if its envelope and (for a delta) its own checksum hold, read twice before giving up
        on it; None if gone or bad. A full generation's deeper checks run in _load_full."""
        if self.is_bad(keys.tenant, number):
            return None
        error = None
        for _ in range(2):  # a damaged object fails every read; a read that went wrong once must not cost it
            try:
                found = self.store.get(keys.generation(number))
            except CorruptSnapshotError as exc:
                error = exc
                continue
            if found is None or not is_delta(found.metadata) or _checksum_holds(found):
                return found
            error = CorruptSnapshotError(f"{keys.tenant} generation {number}: checksum mismatch")
            log.warning("snapshot failed its checks, reading it again: tenant=%s generation=%d", keys.tenant, number)
        self._quarantine(keys, number, error)
        return None

    def _load_full(self, keys: TenantKeys, number: int, found: StoredObject, dest: Path) -> StoredObject | Stopped:
        try:
            _write_full(found, dest, f"{keys.tenant} generation {number}")
            return found
        except CorruptSnapshotError as first:
            log.warning("snapshot failed its checks, reading it again: tenant=%s generation=%d reason=%s",
                        keys.tenant, number, first.message)
        try:
            again = self.store.get(keys.generation(number))
            if again is None:
                return Stopped(number)
            _write_full(again, dest, f"{keys.tenant} generation {number}")
            return again
        except CorruptSnapshotError as exc:
            self._quarantine(keys, number, exc)
            return Stopped(number)

    def _load_chain(self, keys: TenantKeys, number: int, head: StoredObject, dest: Path,
                    warm: CachedGeneration | None) -> Stopped | None:
        base = int(head.metadata.get("base", "0") or 0)
        if not 1 <= base < number:
            self._quarantine(keys, number, CorruptSnapshotError(f"{keys.tenant} generation {number}: no chain base"))
            return Stopped(number)
        start = warm if warm is not None and base <= warm.generation < number else None
        links = self._links(keys, number, head, start.generation if start else base)
        if isinstance(links, Stopped):
            return links
        parent = self._start(keys, base, start, dest)
        if isinstance(parent, Stopped):
            return parent
        return self._apply_links(keys, links, parent, dest, checked=start is not None)

    def _links(self, keys: TenantKeys, number: int, head: StoredObject,
               after: int) -> list[tuple[int, StoredObject]] | Stopped:
        """The deltas ``after+1 .. number``, oldest first."""
        links = [(number, head)]
        for n in range(number - 1, after, -1):
            found = self.good(keys, n)
            if found is None or not is_delta(found.metadata):
                return Stopped(n)
            links.append((n, found))
        return links[::-1]

    def _start(self, keys: TenantKeys, base: int, start: CachedGeneration | None, dest: Path) -> str | Stopped:
        """Put the state the first link applies to in ``dest``; the checksum that link must name."""
        if start is not None and self.cache.copy_to(start, dest):
            known = self.lineage(keys, start.generation)
            if known is not None:
                return known.sha256
        found = self.good(keys, base)
        if found is None or is_delta(found.metadata):
            return Stopped(base)
        loaded = self._load_full(keys, base, found, dest)
        return loaded if isinstance(loaded, Stopped) else loaded.metadata.get("sha256", "")

    def _apply_links(self, keys: TenantKeys, links: list[tuple[int, StoredObject]], parent: str, dest: Path,
                     checked: bool) -> Stopped | None:
        for n, found in links:
            where = f"{keys.tenant} generation {n}"
            try:
                pages.apply(dest, unseal_delta(found.data, found.metadata, parent, where), where)
            except CorruptSnapshotError as exc:
                self._quarantine(keys, n, exc)
                return Stopped(n)
            parent = found.metadata["sha256"]
            self.record(keys.tenant, lineage_of(n, found.metadata, len(found.data)) or Lineage(n, parent, n))
        last_n, last = links[-1]
        where = f"{keys.tenant} generation {last_n}"
        try:
            if not checked:  # built from the full snapshot: check the whole file once, as a full load does
                sqlite_files.quick_check(dest, where)
            check_schema(pages.header_of(dest), last.metadata, where, LATEST_SCHEMA)
        except CorruptSnapshotError as exc:
            self._quarantine(keys, last_n, exc)
            return Stopped(last_n)
        return None


def _checksum_holds(found: StoredObject) -> bool:
    return hashlib.sha256(found.data).hexdigest() == found.metadata.get("sha256")


def _write_full(found: StoredObject, dest: Path, where: str) -> None:
    raw = unseal(found.data, found.metadata, where)
    write_private(dest, raw)
    sqlite_files.quick_check(dest, where)  # integrity first: a damaged header is damage, not a newer schema
    check_schema(raw, found.metadata, where, LATEST_SCHEMA)
