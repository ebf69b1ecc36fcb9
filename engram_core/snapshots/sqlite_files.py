"""File-level SQLite chores of the snapshot layer: integrity checks, sealing-ready files."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from engram_core.core.errors import CorruptSnapshotError, StoreError

FREE_PAGE_SHARE_FOR_VACUUM = 0.25


def quick_check(path: Path, where: str) -> None:
    """``PRAGMA quick_check`` must answer ``ok``; anything else means the file is never served.

    Only evidence about the file quarantines it: an operational failure of this machine (no file
    handles, disk full, I/O error) says nothing about the generation, so it is a retryable store error.
    """
    try:
        with closing(sqlite3.connect(path)) as conn:
            verdict = [row[0] for row in conn.execute("PRAGMA quick_check")]
    except sqlite3.OperationalError as exc:
        raise StoreError(f"{where}: could not check the downloaded copy ({exc}); retry") from exc
    except sqlite3.DatabaseError as exc:
        raise CorruptSnapshotError(f"{where}: not a readable SQLite database ({exc})") from exc
    if verdict != ["ok"]:
        raise CorruptSnapshotError(f"{where}: integrity check failed: {'; '.join(map(str, verdict[:3]))}")


def finalize(path: Path, *, vacuum: bool) -> bool:
    """Fold the WAL into the main file (and compact it) so the file alone is the whole database.
    True when it compacted (every page may have moved)."""
    try:
        with closing(sqlite3.connect(path, isolation_level=None)) as conn:
            conn.execute("PRAGMA synchronous = OFF")  # the sealed upload is the durable copy
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if vacuum or _mostly_free(conn):
                conn.execute("VACUUM")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                return True
    except sqlite3.Error as exc:
        raise StoreError(f"cannot prepare {path.name} for a snapshot: {exc}") from exc
    return False


def _mostly_free(conn: sqlite3.Connection) -> bool:
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    return pages > 0 and free / pages > FREE_PAGE_SHARE_FOR_VACUUM
