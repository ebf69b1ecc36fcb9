"""Page deltas: the pages one working copy changed, read from its write-ahead log, and applied to a base.

A working copy opens in WAL mode with automatic checkpoints off, so every page
the operation wrote is in ``tenant.sqlite-wal`` and the main file is still the
base generation byte for byte. Reading the committed frames (last version of
each page, the database size of the last commit) gives exactly what a
checkpoint would write: the base plus these pages *is* the new database. This
is how Litestream ships SQLite changes (its LTX files hold the same thing: page
size, database size after the commit, then page number and page data).

Costs follow the change, not the store: only the log and the changed pages are
read, never the whole file.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from engram_core.core.errors import CorruptSnapshotError

WAL_MAGICS = (0x377F0682, 0x377F0683)
WAL_HEADER = struct.Struct(">IIIIIIII")  # magic, version, page size, checkpoint seq, salt-1, salt-2, checksums
FRAME_HEADER = struct.Struct(">IIII")  # page number, database pages after commit (0: not a commit), salts
FRAME_HEADER_BYTES = 24
DELTA_MAGIC = b"EGPD1\x00\x00\x00"
DELTA_HEADER = struct.Struct(">8sIII")  # magic, page size, database pages after, page count
PAGE_NUMBER = struct.Struct(">I")


@dataclass(frozen=True)
class PageDelta:
    page_size: int
    db_pages: int
    pages: Mapping[int, bytes]

    @property
    def changed_bytes(self) -> int:
        return len(self.pages) * self.page_size


@dataclass(frozen=True)
class FileStamp:
    """What the main file looked like when the working copy opened (it must not change before capture)."""

    size: int
    modified_ns: int


def stamp(path: Path) -> FileStamp:
    info = os.stat(path)
    return FileStamp(info.st_size, info.st_mtime_ns)


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def read_committed_frames(wal: bytes) -> tuple[PageDelta | None, int]:
    """(the committed pages, how many frames they span); (None, 0) for an empty or missing log."""
    if len(wal) < WAL_HEADER.size:
        return None, 0
    magic, _, page_size, _, salt1, salt2, _, _ = WAL_HEADER.unpack_from(wal)
    if magic not in WAL_MAGICS:
        return None, 0
    committed: dict[int, bytes] = {}
    pending: dict[int, bytes] = {}
    db_pages, frames, offset, step = 0, 0, WAL_HEADER.size, FRAME_HEADER_BYTES + page_size
    for index in range(1, (len(wal) - WAL_HEADER.size) // step + 1):
        number, after, frame_salt1, frame_salt2 = FRAME_HEADER.unpack_from(wal, offset)
        if (frame_salt1, frame_salt2) != (salt1, salt2):
            break  # left over from before the log was restarted
        pending[number] = wal[offset + FRAME_HEADER_BYTES: offset + step]
        if after:
            committed.update(pending)
            pending, db_pages, frames = {}, after, index
        offset += step
    if not frames:
        return None, 0
    return PageDelta(page_size, db_pages, {n: p for n, p in committed.items() if n <= db_pages}), frames


@dataclass(frozen=True)
class Captured:
    """The pages an operation changed, and the same pages as they were (to take the change back)."""

    delta: PageDelta
    undo: PageDelta


def capture(checkpoint: Callable[[], int], path: Path, opened: FileStamp) -> Captured | None:
    """The pages the working copy committed since the file was ``opened`` (then folded into the file by
    ``checkpoint``, which gives the frames SQLite logged), or
    None when they cannot be told apart from the base (something checkpointed meanwhile): the caller then
    writes a whole snapshot."""
    if stamp(path) != opened:
        return None
    try:
        wal = wal_path(path).read_bytes()
    except FileNotFoundError:
        return None
    delta, frames = read_committed_frames(wal)
    if delta is None:
        return None
    undo = _before(path, delta, opened.size // delta.page_size)
    return Captured(delta, undo) if checkpoint() == frames else None  # SQLite's own count of frames must agree


def _before(path: Path, delta: PageDelta, old_pages: int) -> PageDelta:
    """The base's own copies of every page the delta writes or cuts off."""
    touched = {n for n in delta.pages if n <= old_pages} | set(range(delta.db_pages + 1, old_pages + 1))
    with open(path, "rb") as handle:
        pages = {}
        for number in sorted(touched):
            handle.seek((number - 1) * delta.page_size)
            pages[number] = handle.read(delta.page_size)
    return PageDelta(delta.page_size, old_pages, pages)


def encode(delta: PageDelta) -> bytes:
    parts = [DELTA_HEADER.pack(DELTA_MAGIC, delta.page_size, delta.db_pages, len(delta.pages))]
    for number in sorted(delta.pages):
        parts += [PAGE_NUMBER.pack(number), delta.pages[number]]
    return b"".join(parts)


def decode(raw: bytes, where: str) -> PageDelta:
    if len(raw) < DELTA_HEADER.size:
        raise CorruptSnapshotError(f"{where}: page delta too short ({len(raw)} bytes)")
    magic, page_size, db_pages, count = DELTA_HEADER.unpack_from(raw)
    step = PAGE_NUMBER.size + page_size
    if magic != DELTA_MAGIC or page_size < 512 or len(raw) != DELTA_HEADER.size + count * step:
        raise CorruptSnapshotError(f"{where}: not a page delta this Engram wrote")
    pages, offset = {}, DELTA_HEADER.size
    for _ in range(count):
        (number,) = PAGE_NUMBER.unpack_from(raw, offset)
        if not 1 <= number <= db_pages:
            raise CorruptSnapshotError(f"{where}: page {number} lies outside the {db_pages}-page database")
        pages[number] = raw[offset + PAGE_NUMBER.size: offset + step]
        offset += step
    return PageDelta(page_size, db_pages, pages)


def header_of(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(100)


def page_size_of(path: Path) -> int:
    """SQLite keeps the page size at bytes 16..17 of the header (1 means 65,536)."""
    raw = header_of(path)
    size = int.from_bytes(raw[16:18], "big") if len(raw) >= 18 else 0
    return 65536 if size == 1 else size


def apply(path: Path, delta: PageDelta, where: str) -> None:
    """Write the delta's pages into the database file at ``path`` (what a checkpoint does)."""
    if page_size_of(path) != delta.page_size:
        raise CorruptSnapshotError(f"{where}: page size {delta.page_size} does not match the base's")
    with open(path, "r+b") as handle:
        handle.truncate(delta.db_pages * delta.page_size)
        for number, page in sorted(delta.pages.items()):
            handle.seek((number - 1) * delta.page_size)
            handle.write(page)
