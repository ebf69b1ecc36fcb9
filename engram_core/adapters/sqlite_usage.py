"""Rows of ``model_usage``: one per metered model call, stored with the use case that made it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from engram_core.core.model import ModelCall
from engram_core.core.timeutil import to_storage


class UsageRows:
    """Mixed into ``SqliteStore``: its connection, its transactions."""

    conn: sqlite3.Connection

    def insert_usage(self, calls: Sequence[tuple[str, ModelCall]], at: datetime, turn_id: str | None) -> None:
        self.conn.executemany(
            "INSERT INTO model_usage (id, at, turn_id, purpose, model, prompt_tokens, completion_tokens, "
            "reasoning_tokens, latency_ms, attempts, outcome, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(cid, to_storage(at), turn_id, c.purpose.value, c.model, c.prompt_tokens, c.completion_tokens,
              c.reasoning_tokens, c.latency_ms, c.attempts, c.outcome.value, c.cost_usd) for cid, c in calls],
        )

    def usage_by_purpose(self) -> list[dict[str, Any]]:
        """Calls, tokens, cost and latency per (purpose, model)."""
        return [dict(row) for row in self.conn.execute(
            "SELECT purpose, model, COUNT(*) AS calls, SUM(prompt_tokens) AS prompt_tokens, "
            "SUM(completion_tokens) AS completion_tokens, SUM(reasoning_tokens) AS reasoning_tokens, "
            "SUM(cost_usd) AS cost_usd, AVG(latency_ms) AS latency_ms, SUM(outcome != 'ok') AS not_ok "
            "FROM model_usage GROUP BY purpose, model ORDER BY purpose, model"
        )]

    def usage_by_turn(self) -> list[dict[str, Any]]:
        """Calls and cost per chat turn, oldest turn first."""
        return [dict(row) for row in self.conn.execute(
            "SELECT turn_id, COUNT(*) AS calls, SUM(cost_usd) AS cost_usd, SUM(purpose = 'reply') AS replies "
            "FROM model_usage WHERE turn_id IS NOT NULL GROUP BY turn_id ORDER BY MIN(rowid)"
        )]
