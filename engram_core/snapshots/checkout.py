"""A checkout: one private working copy of a tenant, open as an Engine, and the values its commit uses.

A checkout knows its owner only as the two things it asks of it (``Owner``): the heads it leaves its
file to and the commit that writes its generation. The Snapshotter is that owner; this module does not
import it, so the helpers that take checkouts (heads, compaction) need nothing of the Snapshotter either.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engram_core.snapshots import pages
from engram_core.snapshots.cache import CachedGeneration
from engram_core.snapshots.heads import WORKING_FILE, Head, Heads
from engram_core.snapshots.layout import TenantKeys
from engram_core.snapshots.ports import StoredObject

if TYPE_CHECKING:
    from engram_core.usecases.engine import Engine


@dataclass(frozen=True)
class RetryPolicy:
    """How a commit that lost the race to another writer is tried again."""

    max_attempts: int = 8
    base_delay: float = 0.01
    max_delay: float = 0.5

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Full jitter: a uniform pick below an exponentially growing cap."""
        return rng.uniform(0, min(self.max_delay, self.base_delay * 2 ** attempt))


@dataclass(frozen=True)
class Base:
    """What a checkout starts from: a good generation (0: none yet) and the number its commit takes."""

    generation: int
    next_generation: int
    cached: CachedGeneration | None


@dataclass(frozen=True)
class Seen:
    """What a replica's refresh read before it gave up, handed to the fresh load that follows so it does not
    read it again: one listing of the generations from ``floor`` on (complete at and above it, and holding
    the replica's own generation, so its newest is the tenant's newest) and, when the refresh fetched it,
    the newest generation's object (already checked as a load checks it)."""

    floor: int
    numbers: frozenset[int]
    newest_object: StoredObject | None = None

    @property
    def newest(self) -> int:
        return max(self.numbers, default=0)

    def covers(self, generation: int) -> bool:
        return generation >= self.floor


@dataclass(frozen=True)
class CommitResult:
    generation: int
    payload_bytes: int
    raw_bytes: int
    deleted_older: int = 0


class Owner(Protocol):
    """What a checkout asks of the snapshotter that made it."""

    heads: Heads

    def commit_checkout(self, checkout: Checkout, purge: bool, delta: pages.PageDelta | None) -> CommitResult:
        ...


class Checkout:
    """One working copy of a tenant, open as an Engine; commit it or let it go."""

    def __init__(self, owner: Owner, keys: TenantKeys, base: Base, workdir: Path, engine: Engine,
                 opened: pages.FileStamp | None = None) -> None:
        self.owner, self.keys, self.base, self.workdir, self.engine = owner, keys, base, workdir, engine
        # A working copy is scratch until its upload lands: the upload is the durable step, not these writes.
        self.file = engine.working_file
        self.file.relax_durability()
        self.file.hold_log()  # its changed pages stay in the log (pages.py)
        self._opened = opened
        self._changes_at_open, self._event_seq_at_open = self.file.change_count(), self.file.last_event_seq()
        self._open, self._unchanged, self._kept = True, True, False
        self.captured: pages.Captured | None = None

    @property
    def path(self) -> Path:
        return self.workdir / WORKING_FILE

    def changed(self) -> bool:
        return self.file.change_count() != self._changes_at_open

    def file_untouched(self) -> bool:
        """The main file is as it was when the copy was opened: nothing was folded into it since."""
        return self._opened is not None and self.path.exists() and pages.stamp(self.path) == self._opened

    def commit(self) -> CommitResult | None:
        """Write the next generation if the operation changed anything; None if it did not."""
        if not self.changed():
            self.discard()
            return None
        purge = self.file.purged_since(self._event_seq_at_open)
        self.captured = None if purge or self._opened is None else pages.capture(self.file.checkpoint_log, self.path,
                                                                                 self._opened)
        self.close_engine()
        return self.owner.commit_checkout(self, purge, self.captured.delta if self.captured else None)

    def close_engine(self) -> None:
        if self._open:
            self._open, self._unchanged = False, not self.changed()
            self.engine.close()

    def keep_as(self, generation: int) -> None:
        """The working file is generation ``generation`` now: the tenant's next operation starts from it."""
        self._kept = True
        self.owner.heads.keep(self.keys.tenant, Head(generation, self.workdir))

    def take_back(self) -> None:
        """After a lost race: undo the operation's pages, so the file is its base generation again and stays on
        as the head (the next attempt brings it up to the winner's generation with the winner's delta)."""
        if self.captured is not None:
            pages.apply(self.path, self.captured.undo, f"{self.keys.tenant} working copy")
            self.keep_as(self.base.generation)

    def discard(self) -> None:
        """A copy nothing changed stays on as the tenant's head; any other is deleted."""
        self.close_engine()
        if not self._kept and self._unchanged and self.base.generation > 0 and self.path.exists():
            self.keep_as(self.base.generation)
        if not self._kept:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Checkout:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()
