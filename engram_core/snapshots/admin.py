"""Operator views and chores on a tenant's generations: list, show, restore (garbage collection: collection.py)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engram_core.core.errors import BusyError, GenerationExistsError, NotFoundError
from engram_core.snapshots.codec import schema_of, seal
from engram_core.snapshots.heads import WORKING_FILE
from engram_core.snapshots.layout import TenantKeys, generation_of, parse_hint, quarantined_generation_of
from engram_core.snapshots.ports import StoredObject
from engram_core.snapshots.snapshotter import Snapshotter


@dataclass(frozen=True)
class GenerationRow:
    number: int
    size: int
    modified: datetime
    quarantined: bool


@dataclass(frozen=True)
class Listing:
    tenant: str
    generations: tuple[GenerationRow, ...]
    hint: int | None


def list_generations(snapshotter: Snapshotter, tenant: str) -> Listing:
    keys = TenantKeys(tenant)
    objects = snapshotter.store.list(keys.root)
    bad = {n for i in objects if (n := quarantined_generation_of(i.key))}
    rows = tuple(GenerationRow(n, i.size, i.modified, n in bad) for i in objects if (n := generation_of(i.key)))
    hint = snapshotter.store.get(keys.hint)
    return Listing(tenant, rows, parse_hint(hint.data) if hint is not None else None)


def describe(snapshotter: Snapshotter, tenant: str, number: int) -> dict[str, object]:
    """Metadata and contents of one generation, after the checks a load makes."""
    from engram_core.adapters.sqlite_store import SqliteStore

    workdir = snapshotter.cache.workspace()
    try:
        found = _download(snapshotter, tenant, number, workdir)
        schema = schema_of((workdir / WORKING_FILE).read_bytes()[:100])
        store = SqliteStore(workdir / WORKING_FILE)
        try:
            counts, embedder, beliefs = store.count_memories(), store.get_meta("embedder"), store.current_beliefs()
        finally:
            store.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"tenant": tenant, "generation": number, "payload_bytes": len(found.data),
            "sha256": found.metadata.get("sha256"), "codec": found.metadata.get("codec"),
            "raw_bytes": int(found.metadata.get("raw-size", 0)), "schema_version": schema,
            "embedder": embedder, "memories": counts, "current_beliefs": len(beliefs)}


def _download(snapshotter: Snapshotter, tenant: str, number: int, workdir: Path) -> StoredObject:
    found = snapshotter.download_verified(tenant, number, workdir / WORKING_FILE)
    if found is None:
        raise NotFoundError(f"tenant {tenant!r} has no generation {number}", field="generation")
    return found


def restore(snapshotter: Snapshotter, tenant: str, number: int) -> int:
    """Write an old good generation again as the newest (create-only); returns its new number."""
    keys = TenantKeys(tenant)
    workdir = snapshotter.cache.workspace()
    try:
        _download(snapshotter, tenant, number, workdir)
        sealed = seal((workdir / WORKING_FILE).read_bytes())  # whole, even when the old one was a delta
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for _ in range(snapshotter.retry.max_attempts):
        target = snapshotter.newest_generation(tenant) + 1
        try:
            snapshotter.publish(keys, target, sealed, force_hint=True)
            return target
        except GenerationExistsError:
            continue
    raise BusyError(f"tenant {tenant!r} is busy; the restore wrote nothing, retry")


def listing_view(listing: Listing) -> dict[str, object]:
    rows = [{"generation": r.number, "bytes": r.size, "modified": r.modified.isoformat(),
             "quarantined": r.quarantined} for r in listing.generations]
    return {"tenant": listing.tenant, "hint": listing.hint, "generations": rows}
