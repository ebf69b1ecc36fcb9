"""The ``WorkingFile`` port over a store's own connection: what the snapshot layer asks of a working copy."""

from __future__ import annotations

import sqlite3


class WorkingFileRows:
    """Mixed into ``SqliteStore``: its connection."""

    conn: sqlite3.Connection

    def relax_durability(self) -> None:
        self.conn.execute("PRAGMA synchronous = OFF")

    def hold_log(self) -> None:
        self.conn.execute("PRAGMA wal_autocheckpoint = 0")

    def checkpoint_log(self) -> int:
        _, logged, _ = self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(logged)

    def change_count(self) -> int:
        return self.conn.total_changes

    def last_event_seq(self) -> int:
        return int(self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def purged_since(self, seq: int) -> bool:
        row = self.conn.execute("SELECT 1 FROM events WHERE seq > ? AND kind = 'purged' LIMIT 1", (seq,)).fetchone()
        return row is not None

    def file_bytes(self) -> int:
        pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
        return int(pages) * int(self.conn.execute("PRAGMA page_size").fetchone()[0])
