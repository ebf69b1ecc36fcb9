"""Read replicas brought up to date in place: a stale replica applies only the new deltas, as a head does.

A read replica is an open, never committed checkout of a tenant's newest generation (tenancy_snapshots.py
keeps one per tenant). Before each use one listing from its generation says whether anything newer exists.
When only deltas follow it, its engine is closed, their pages are written into its file (every check a
load makes: each delta's own checksum, its link to the generation before it, the schema) and the file is
opened again: a recall after a small remote change costs that change, not a copy, a second listing and a
download of everything since the warm cache's generation.

Anything else gives the replica up and the caller loads the tenant afresh: its generation is gone (a purge
or garbage collection deleted it), a full snapshot came in between (a purge, a compaction, a commit after a
quarantine), a delta is missing or fails its checks (it is quarantined, and the fresh load serves the newest
state that can be built), or the file is not exactly its generation any more (something wrote to it, or its
write-ahead log was left behind). A half-applied file is deleted, never opened.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from engram_core.snapshots import pages
from engram_core.snapshots.checkout import Base, Checkout

if TYPE_CHECKING:
    from engram_core.snapshots.snapshotter import Snapshotter


def refreshed(snapshotter: Snapshotter, replica: Checkout) -> Checkout | None:
    """``replica`` when it holds the newest generation; a checkout on the same file brought up to the newest
    with its deltas; None when neither can be had (the replica is then gone: load the tenant afresh).

    A store error while listing leaves the replica as it was (still a good state) and raises."""
    keys, known = replica.keys, replica.base.generation
    newest, exists = snapshotter.resolve(keys, known)
    if newest == known and (exists or known == 0):
        return replica
    if not exists or known == 0 or replica.changed():
        _give_up(replica)
        return None
    replica.close_engine()
    if not replica.file_untouched() or pages.wal_path(replica.path).exists():  # the file is not `known` any more
        _give_up(replica)
        return None
    try:
        advanced = snapshotter.chains.advance(keys, known, newest, replica.path)
    except BaseException:
        _give_up(replica)
        raise
    if not advanced:
        _give_up(replica)
        return None
    opened = pages.stamp(replica.path)
    try:
        engine = snapshotter.open_engine(replica.path)
    except BaseException:
        _give_up(replica)
        raise
    snapshotter.counters.bump("replica_advances")
    return Checkout(snapshotter, keys, Base(newest, newest + 1, None), replica.workdir, engine, opened)


def _give_up(replica: Checkout) -> None:
    """Close the replica and delete its file: it is never used again, nor kept as the tenant's head."""
    replica.close_engine()
    shutil.rmtree(replica.workdir, ignore_errors=True)
