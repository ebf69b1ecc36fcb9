"""Choosing what a commit writes (a delta or the whole file), and compacting a chain into a full snapshot.

A delta is written only when it follows from the newest generation (the
working copy's base is the newest, not an older good one served after a
quarantine), its pages were captured intact, and the chain stays within the
CompactionPolicy. Otherwise, and always after a purge or a VACUUM, the whole
file is sealed as before. What these need of the Snapshotter is the ``Owner``
protocol below: this module does not import it.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from engram_core.core.errors import GenerationExistsError
from engram_core.snapshots import pages
from engram_core.snapshots.chain import ChainLoader
from engram_core.snapshots.checkout import Checkout, RetryPolicy
from engram_core.snapshots.codec import Sealed, schema_of, seal
from engram_core.snapshots.deltas import CompactionPolicy, Lineage, SealedDelta, seal_delta
from engram_core.snapshots.layout import TenantKeys, generation_of
from engram_core.snapshots.ports import SnapshotStore

log = logging.getLogger("engram.snapshots")
# zstd shrinks pages about 2-3x: a change far past the policy's share is not worth compressing twice
RAW_TO_SEALED = 4


class Owner(Protocol):
    """What choosing a commit's form and compacting a chain ask of the snapshotter."""

    compaction: CompactionPolicy
    compression_level: int
    chains: ChainLoader
    retry: RetryPolicy

    def turn(self, tenant: str) -> threading.Lock:
        ...

    def checkout_for_turn(self, tenant: str) -> Checkout:
        ...

    def publish(self, keys: TenantKeys, target: int, sealed: Sealed | SealedDelta, *, force_hint: bool = False) -> None:
        ...


def sealed_commit(owner: Owner, checkout: Checkout, delta: pages.PageDelta | None) -> Sealed | SealedDelta:
    """A delta when the change is small and follows from the newest generation; else the whole file."""
    base, policy = checkout.base, owner.compaction
    follows = delta is not None and base.generation > 0 and base.next_generation == base.generation + 1
    parent = owner.chains.lineage(checkout.keys, base.generation) if follows else None
    if delta is not None and parent is not None and delta.changed_bytes <= (
            RAW_TO_SEALED * policy.max_share * parent.base_bytes):
        sealed = seal_delta(delta, schema_of(pages.header_of(checkout.path)), parent, owner.compression_level)
        if not policy.wants_full(parent, len(sealed.payload)):
            return sealed
    return seal(checkout.path.read_bytes(), owner.compression_level)


def lineage_after(target: int, sealed: Sealed | SealedDelta) -> Lineage:
    if isinstance(sealed, SealedDelta):
        return sealed.lineage(target)
    return Lineage(target, sealed.sha256, target, base_bytes=len(sealed.payload))


def compact(owner: Owner, tenant: str) -> int | None:
    """Write the newest state whole as the next generation when the newest is a delta; its number, or None
    when there was nothing to compact (or other writers kept winning: their commits carry on the chain)."""
    keys = TenantKeys(tenant)
    for _ in range(owner.retry.max_attempts):
        with owner.turn(tenant), owner.checkout_for_turn(tenant) as checkout:
            lineage = owner.chains.lineage(keys, checkout.base.generation) if checkout.base.generation else None
            if lineage is None or lineage.is_full:
                return None
            checkout.close_engine()
            target = checkout.base.next_generation
            sealed = seal(checkout.path.read_bytes(), owner.compression_level)
            try:
                owner.publish(keys, target, sealed)
            except GenerationExistsError:
                continue
            owner.chains.record(tenant, lineage_after(target, sealed))
            checkout.keep_as(target)
            return target
    return None


def delete_older(store: SnapshotStore, keys: TenantKeys, number: int) -> int:
    """After a purge no generation (full or delta) may keep the purged data."""
    doomed = [i.key for i in store.list(keys.root)
              if (generation_of(i.key) or number) < number or i.key.startswith(keys.quarantine_prefix)]
    store.delete(doomed)
    log.info("purge: deleted %d older objects of tenant %s", len(doomed), keys.tenant)
    return len(doomed)
