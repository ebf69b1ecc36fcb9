"""Rows of ``stale_reviews``: memories demoted as possibly stale until the person confirms or forgets them."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from engram_core.core.timeutil import to_storage


class StaleReviewRows:
    """Mixed into ``SqliteStore``: its connection, its transactions."""

    conn: sqlite3.Connection

    def flag_possibly_stale(self, memory_id: str, belief_id: str, reason: str, at: datetime) -> None:
        """Flag once: a memory already waiting for review keeps its first reason."""
        self.conn.execute(
            "INSERT INTO stale_reviews (memory_id, belief_id, reason, flagged_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (memory_id) DO NOTHING", (memory_id, belief_id, reason, to_storage(at)))

    def possibly_stale(self) -> dict[str, str]:
        """Memory id -> why it may be stale, for every review still open."""
        rows = self.conn.execute("SELECT memory_id, reason FROM stale_reviews WHERE resolved_at IS NULL")
        return {r["memory_id"]: r["reason"] for r in rows}

    def resolve_possibly_stale(self, memory_ids: Sequence[str], at: datetime) -> None:
        self.conn.executemany("UPDATE stale_reviews SET resolved_at = ? WHERE memory_id = ? AND resolved_at IS NULL",
                              [(to_storage(at), mid) for mid in memory_ids])
