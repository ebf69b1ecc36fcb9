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
This module only keeps them (it imports nothing of the snapshot layer): the
Snapshotter opens a checkout on a head (``checkout_for_turn``), and a checkout
keeps its file as one (checkout.py).
"""

from __future__ import annotations

import shutil
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

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


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
