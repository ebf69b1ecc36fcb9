"""Snapshot storage: a tenant's SQLite database as immutable, numbered generations.

    from engram_core.snapshots import open_snapshotter

    settings = load_settings()   # engram_core.settings, at the entry point
    snapshots = open_snapshotter("oss://my-bucket/engram", open_engine,   # or a local directory
                                 settings=settings.snapshots, oss=settings.oss)
    snapshots.run("alice", lambda engine: engine.remember("Prefers aisle seats"))

See ``snapshotter.py`` for the commit protocol and ``layout.py`` for the keys.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from engram_core.snapshots.deltas import CompactionPolicy
from engram_core.snapshots.ports import ObjectInfo, SnapshotStore, StoredObject
from engram_core.snapshots.retention import RetentionPolicy
from engram_core.snapshots.checkout import CommitResult, RetryPolicy
from engram_core.snapshots.settings import OssSettings, SnapshotSettings
from engram_core.snapshots.snapshotter import Snapshotter

if TYPE_CHECKING:
    from engram_core.usecases.engine import Engine

__all__ = [
    "CommitResult", "ObjectInfo", "OssSettings", "RetentionPolicy", "RetryPolicy", "SnapshotSettings",
    "SnapshotStore", "Snapshotter", "StoredObject", "is_remote", "open_snapshot_store", "open_snapshotter",
]
MIB = 1024 * 1024


def is_remote(location: str) -> bool:
    return str(location).startswith("oss://")


def open_snapshot_store(location: str | Path, oss: OssSettings) -> SnapshotStore:
    """``oss://bucket/prefix`` (OSS, or S3-compatible with ENGRAM_OSS_DIALECT=s3) or a local directory."""
    if is_remote(str(location)):
        from engram_core.snapshots.oss import OssStore
        from engram_core.snapshots.settings import parse_oss_url

        bucket, prefix = parse_oss_url(str(location))
        return OssStore.from_settings(oss, bucket, prefix)
    from engram_core.snapshots.local import LocalDirStore

    return LocalDirStore(location)


def default_cache_dir() -> Path:
    from platformdirs import user_cache_path  # only the default needs it

    return user_cache_path("engram") / "snapshots"


def open_snapshotter(location: str | Path, open_engine: Callable[[Path], Engine], *,
                     settings: SnapshotSettings, oss: OssSettings, store: SnapshotStore | None = None) -> Snapshotter:
    """The Snapshotter over ``location`` (or over ``store``, when given), on the settings the entry point read."""
    from engram_core.snapshots.cache import WarmCache

    from engram_core.snapshots.settings import budget_of

    store = store or open_snapshot_store(location, oss)
    cache = WarmCache(settings.cache_dir or default_cache_dir(), store.location, budget_of(settings).cache_mb * MIB)
    return Snapshotter(
        store, open_engine, cache,
        retention=RetentionPolicy(settings.keep, timedelta(seconds=settings.grace_seconds)),
        retry=RetryPolicy(max_attempts=settings.max_attempts),
        compression_level=settings.compression_level,
        compaction=CompactionPolicy(settings.delta_chain, settings.delta_share),
    )
