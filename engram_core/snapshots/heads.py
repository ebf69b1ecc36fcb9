"""Heads: this process's own working copy of a tenant, kept from one operation to the next.

A checkout normally copies the cached generation into a private working file,
and that copy costs as much as the tenant is big (about 0.2 s at 100,000
memories). A head is the working file an operation left behind when it ended
cleanly (a commit that landed, or a read that changed nothing): the next
operation of the tenant in this process opens it in place, after the same one
listing a warm load makes. When another instance committed meanwhile, its
deltas are applied to the head in place; anything else (a full snapshot in
between, a lost race, a failed operation, a purge) drops the head and the
operation starts from a copy as before.

Heads are used only under the tenant's turn (see batch.py), so one thread at a
time owns a head; at most ``limit`` are kept, the least recently used go first.
"""

from __future__ import annotations

import shutil
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engram_core.snapshots import pages
from engram_core.snapshots.layout import TenantKeys

if TYPE_CHECKING:
    from engram_core.snapshots.snapshotter import Checkout, Snapshotter

WORKING_FILE = "tenant.sqlite"


@dataclass(frozen=True)
class Head:
    generation: int
    workdir: Path

    @property
    def path(self) -> Path:
        return self.workdir / WORKING_FILE


class Heads:
    """At most ``limit`` heads, together at most ``max_bytes`` (the warm cache's bound: a head is one more
    copy of a tenant on the instance's disk)."""

    def __init__(self, limit: int = 16, max_bytes: int | None = None) -> None:
        self.limit, self.max_bytes = limit, max_bytes
        self._heads: OrderedDict[str, Head] = OrderedDict()
        self._guard = threading.Lock()

    def take(self, tenant: str) -> Head | None:
        """The tenant's head, now owned by the caller (who keeps it again or lets it go)."""
        with self._guard:
            return self._heads.pop(tenant, None)

    def peek(self, tenant: str) -> Head | None:
        with self._guard:
            return self._heads.get(tenant)

    def keep(self, tenant: str, head: Head) -> None:
        with self._guard:
            old = self._heads.pop(tenant, None)
            self._heads[tenant] = head
            doomed = [self._heads.popitem(last=False)[1] for _ in range(len(self._heads) - self.limit)]
            doomed += self._over_bytes()
        for gone in ([old] if old is not None and old.workdir != head.workdir else []) + doomed:
            shutil.rmtree(gone.workdir, ignore_errors=True)

    def _over_bytes(self) -> list[Head]:
        """Least recently used heads beyond the byte bound, the newest too if it alone is over (caller holds _guard)."""
        if self.max_bytes is None:
            return []
        sizes = {t: _size(h.path) for t, h in self._heads.items()}
        total, doomed = sum(sizes.values()), []
        for tenant in list(self._heads):
            if total <= self.max_bytes:
                break
            doomed.append(self._heads.pop(tenant))
            total -= sizes[tenant]
        return doomed

    def drop(self, tenant: str) -> None:
        head = self.take(tenant)
        if head is not None:
            shutil.rmtree(head.workdir, ignore_errors=True)

    def drop_all(self) -> None:
        with self._guard:
            heads, self._heads = list(self._heads.values()), OrderedDict()
        for head in heads:
            shutil.rmtree(head.workdir, ignore_errors=True)


def head_checkout(owner: Snapshotter, tenant: str) -> Checkout | None:
    """A checkout on the tenant's head when it is the newest generation or can be brought up to it with
    deltas; None (and the head gone) otherwise."""
    from engram_core.snapshots.snapshotter import Base, Checkout

    head = owner.heads.take(tenant)
    if head is None:
        return None
    keys = TenantKeys(tenant)
    try:
        newest, exists = owner.resolve(keys, head.generation)
        current = exists and head.path.exists() and (
            newest == head.generation or owner.chains.advance(keys, head.generation, newest, head.path))
        if current:
            owner.counters.bump("warm_hits")
            opened = pages.stamp(head.path)
            return Checkout(owner, keys, Base(newest, newest + 1, None), head.workdir,
                            owner.open_engine(head.path), opened)
    except BaseException:
        shutil.rmtree(head.workdir, ignore_errors=True)
        raise
    shutil.rmtree(head.workdir, ignore_errors=True)
    return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def take_back(checkout: Checkout) -> None:
    """After a lost race: undo the operation's pages, so the file is its base generation again and stays on
    as the head (the next attempt brings it up to the winner's generation with the winner's delta)."""
    if checkout.captured is not None:
        pages.apply(checkout.path, checkout.captured.undo, f"{checkout.keys.tenant} working copy")
        checkout.keep_as(checkout.base.generation)
