"""Garbage collection: delete the generations the retention policy no longer needs, and their quarantine notes.

It asks the snapshotter only for its store, its chains and its retention policy (``Owner``), so the
Snapshotter's sleep-job entry (``Snapshotter.collect_garbage``) and the operator's command share it
without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from engram_core.snapshots.chain import ChainLoader
from engram_core.snapshots.layout import TenantKeys, generation_of, quarantined_generation_of
from engram_core.snapshots.local import LocalDirStore
from engram_core.snapshots.ports import SnapshotStore
from engram_core.snapshots.retention import GenerationAge, RetentionPolicy, collectable


class Owner(Protocol):
    """What garbage collection asks of the snapshotter."""

    store: SnapshotStore
    chains: ChainLoader
    retention: RetentionPolicy


@dataclass(frozen=True)
class GcReport:
    tenant: str
    deleted: tuple[int, ...]
    kept: tuple[int, ...]


def collect_garbage(snapshotter: Owner, tenant: str, now: datetime) -> GcReport:
    """Delete generations the retention policy no longer needs (and their quarantine notes)."""
    keys = TenantKeys(tenant)
    objects = snapshotter.store.list(keys.root)
    ages = [GenerationAge(n, i.modified) for i in objects if (n := generation_of(i.key))]
    doomed = chain_needs(snapshotter, keys, set(collectable(ages, snapshotter.retention, now)), ages)
    notes = [i.key for i in objects if quarantined_generation_of(i.key) in doomed]
    snapshotter.store.delete([keys.generation(n) for n in sorted(doomed)] + notes)
    if isinstance(snapshotter.store, LocalDirStore):
        snapshotter.store.sweep_temp_files(now - snapshotter.retention.grace)
    kept = tuple(sorted(a.number for a in ages if a.number not in doomed))
    return GcReport(tenant, tuple(sorted(doomed)), kept)


def chain_needs(snapshotter: Owner, keys: TenantKeys, doomed: set[int], ages: list[GenerationAge]) -> set[int]:
    """Never collect the full snapshot (or the deltas) the oldest kept generation is built from."""
    kept = [a.number for a in ages if a.number not in doomed]
    if not doomed or not kept:
        return doomed
    lineage = snapshotter.chains.lineage(keys, min(kept))
    if lineage is None:  # unknown: keep everything rather than guess
        return set()
    return {n for n in doomed if n < lineage.base}
