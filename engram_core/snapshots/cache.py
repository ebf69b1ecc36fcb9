"""The warm cache: the last generation an instance saw of each tenant, on local disk.

Files are immutable and named by generation, so several threads (or processes
sharing the directory) can read them while others add newer ones; a file that
vanishes under a reader is just a cache miss. The cache is bounded in bytes
and evicts the least recently used tenant first.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engram_core.adapters.private_files import PRIVATE_FILE, private_dir

_CACHED = re.compile(r"^(\d{12})\.sqlite$")
STALE_WORKSPACE_SECONDS = 6 * 3600


@dataclass(frozen=True)
class CachedGeneration:
    generation: int
    path: Path


def _children(path: Path) -> list[Path]:
    """Entries of a directory that other threads or processes may be changing; none if it is gone."""
    try:
        return list(path.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []


def namespace_of(location: str) -> str:
    """Two stores (buckets, prefixes, directories) never share cache entries."""
    return hashlib.sha256(location.encode("utf-8")).hexdigest()[:20]


class WarmCache:
    def __init__(self, root: str | Path, location: str, max_bytes: int) -> None:
        self.root = Path(root)
        self.dir = self.root / namespace_of(location)
        self.work = self.root / "work"
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        private_dir(self.root)
        private_dir(self.work)
        self._sweep_stale_workspaces()

    def _tenant_dir(self, tenant: str) -> Path:
        return self.dir / tenant

    def _entries(self, tenant: str) -> list[CachedGeneration]:
        found = [CachedGeneration(int(m.group(1)), p) for p in _children(self._tenant_dir(tenant))
                 if (m := _CACHED.match(p.name))]
        return sorted(found, key=lambda e: e.generation)

    def newest(self, tenant: str) -> CachedGeneration | None:
        entries = self._entries(tenant)
        return entries[-1] if entries else None

    def copy_to(self, entry: CachedGeneration, dest: Path) -> bool:
        """Copy a cached generation to a working file; False when it was evicted meanwhile."""
        pin = dest.with_name(dest.name + ".pin")
        try:
            with self._lock:  # adopt() deletes under the same lock: link first, copy at leisure
                pin.hardlink_to(entry.path)
            entry.path.touch()  # the mtime is the LRU clock
            shutil.copyfile(pin, dest)
            os.chmod(dest, PRIVATE_FILE)
        except FileNotFoundError:
            return False
        finally:
            pin.unlink(missing_ok=True)
        return True

    def adopt(self, tenant: str, generation: int, source: Path) -> CachedGeneration:
        """Move a finished SQLite file in as this tenant's cached generation; older ones go."""
        target = self._tenant_dir(tenant) / f"{generation:012d}.sqlite"
        with self._lock:
            private_dir(target.parent)
            os.chmod(source, PRIVATE_FILE)
            source.replace(target)
            newest = max(e.generation for e in self._entries(tenant))
            for entry in self._entries(tenant):
                if entry.generation < newest:
                    entry.path.unlink(missing_ok=True)
            self._evict(keep=target)
        return CachedGeneration(generation, target)

    def forget(self, tenant: str) -> None:
        with self._lock:
            shutil.rmtree(self._tenant_dir(tenant), ignore_errors=True)

    def workspace(self) -> Path:
        """A private directory for one working copy, on the cache's file system, named after this process."""
        return Path(tempfile.mkdtemp(prefix=f"ws-{os.getpid()}-", dir=self.work))

    def _cached_files(self) -> list[tuple[float, int, Path]]:
        """(last use, size, path) of every cached generation of every store under the root."""
        found = []
        for store_dir in _children(self.root):
            if store_dir == self.work:
                continue
            for path in (p for tenant_dir in _children(store_dir) for p in _children(tenant_dir)):
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    continue
                if _CACHED.match(path.name):
                    found.append((stat.st_mtime, stat.st_size, path))
        return found

    def _evict(self, keep: Path) -> None:
        files = self._cached_files()
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.max_bytes:
                return
            if path != keep:
                path.unlink(missing_ok=True)
                total -= size

    def _sweep_stale_workspaces(self) -> None:
        """Working copies left behind by a process that died mid-operation: at once when the process that
        made one is gone, and after hours untouched whatever made it."""
        cutoff = time.time() - STALE_WORKSPACE_SECONDS
        for folder in self.work.glob("ws-*"):
            if _owner_gone(folder.name) or _last_touched(folder) < cutoff:
                shutil.rmtree(folder, ignore_errors=True)


def _owner_gone(name: str) -> bool:
    """Is the process that made workspace ``ws-<pid>-...`` gone? (A reused pid keeps it until the hours pass.)"""
    pid = name.split("-")[1] if name.count("-") >= 2 else ""
    if not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def _last_touched(folder: Path) -> float:
    """The newest mtime of a folder and its files: an open working copy counts as in use."""
    stamps = []
    for path in (folder, *_children(folder)):
        try:
            stamps.append(path.stat().st_mtime)
        except FileNotFoundError:
            continue
    return max(stamps, default=time.time())
