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
write-ahead log was left behind). A half-applied file is deleted, never opened. The fresh load starts from
what the refresh read (its listing, and the newest generation's object when it fetched one), so giving up
costs one listing in all, not two.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engram_core.snapshots import pages
from engram_core.snapshots.checkout import Base, Checkout, Seen

if TYPE_CHECKING:
    from engram_core.snapshots.snapshotter import Snapshotter


@dataclass(frozen=True)
class GaveUp:
    """The replica is gone (its file deleted): load the tenant afresh, from ``seen`` when it is given."""

    seen: Seen | None = None


def refreshed(snapshotter: Snapshotter, replica: Checkout) -> Checkout | GaveUp:
    """``replica`` when it holds the newest generation; a checkout on the same file brought up to the newest
    with its deltas; else GaveUp, with what this refresh read for the fresh load (one listing, and the
    newest generation's object when it was fetched), so that load does not read it again.

    The one listing starts at the lower of the replica's generation and the warm cache's, so it answers both
    questions a fresh load from the cache asks too. A store error while listing leaves the replica as it was
    (still a good state) and raises."""
    keys, known = replica.keys, replica.base.generation
    if known == 0:  # a tenant with no generation yet when the replica was made
        if snapshotter.resolve(keys, None)[0] == 0:
            return replica
        return _give_up(replica)
    cached = snapshotter.cache.newest(keys.tenant)
    seen = snapshotter.listing(keys, min(known, cached.generation) if cached is not None else known)
    if known not in seen.numbers:  # purged or collected: the fresh load lists from scratch
        return _give_up(replica)
    newest = seen.newest
    if newest == known:
        return replica
    if replica.changed():
        return _give_up(replica, seen)
    replica.close_engine()
    if not replica.file_untouched() or pages.wal_path(replica.path).exists():  # the file is not `known` any more
        return _give_up(replica, seen)
    try:
        head = snapshotter.chains.good(keys, newest)
        advanced = head is not None and snapshotter.chains.advance(keys, known, newest, replica.path, head)
    except BaseException:
        _give_up(replica)
        raise
    if not advanced:
        return _give_up(replica, Seen(seen.floor, seen.numbers, head))
    opened = pages.stamp(replica.path)
    try:
        engine = snapshotter.open_engine(replica.path)
    except BaseException:
        _give_up(replica)
        raise
    snapshotter.counters.bump("replica_advances")
    return Checkout(snapshotter, keys, Base(newest, newest + 1, None), replica.workdir, engine, opened)


def _give_up(replica: Checkout, seen: Seen | None = None) -> GaveUp:
    """Close the replica and delete its file: it is never used again, nor kept as the tenant's head."""
    replica.close_engine()
    shutil.rmtree(replica.workdir, ignore_errors=True)
    return GaveUp(seen)
