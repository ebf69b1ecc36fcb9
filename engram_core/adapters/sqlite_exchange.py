"""Whole-table rows in the export file's encoding, and back: the SQLite side of export and import."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from engram_core.adapters import sqlite_rows as rows
from engram_core.core.errors import UnreadableRecordError

_JSON_COLUMNS = frozenset({"provenance", "detail", "actions", "rejected"})
_BOOLEAN_COLUMNS = frozenset({"critical"})


def export_row(row: sqlite3.Row, table: str = "row") -> dict[str, Any]:
    """Every stored column but the event sequence: vectors base64, JSON columns parsed, flags as booleans.

    A JSON column that does not parse names its row (UnreadableRecordError) instead of failing anyhow."""
    record: dict[str, Any] = {}
    for key in row.keys():
        value = row[key]
        if key == "seq":
            continue
        if key == "embedding" and value is not None:
            value = base64.b64encode(value).decode("ascii")
        elif key in _JSON_COLUMNS:
            value = _parsed(value, table, row, key)
        elif key in _BOOLEAN_COLUMNS:
            value = bool(value)
        record[key] = value
    return record


def _parsed(value: str | bytes, table: str, row: sqlite3.Row, key: str) -> object:
    try:
        return json.loads(value)
    except (TypeError, ValueError) as exc:
        row_id = row["id"] if "id" in row.keys() else row["seq"] if "seq" in row.keys() else "?"
        raise UnreadableRecordError(table, str(row_id), f"{key} is not JSON: {str(exc)[:80]}") from exc


def import_params(record: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of ``export_row``: the column values to insert."""
    params = dict(record)
    for key in _JSON_COLUMNS & params.keys():
        params[key] = json.dumps(params[key])
    if params.get("embedding") is not None:
        params["embedding"] = base64.b64decode(params["embedding"])
    for key in _BOOLEAN_COLUMNS & params.keys():
        params[key] = int(params[key])
    return params


class ExchangeRows:
    """Mixed into ``SqliteStore``: its connection, its transactions."""

    conn: sqlite3.Connection

    def export_rows(self, table: str) -> list[dict[str, Any]]:
        order = "seq" if table == "events" else "rowid"
        found = self.conn.execute(f"SELECT * FROM {table} ORDER BY {order}")  # table names are ours, never input
        return [export_row(row, table) for row in found]

    def row_exists(self, table: str, row_id: str, key: str = "id") -> bool:
        """``table`` and ``key`` are ours, never caller text."""
        return self.conn.execute(f"SELECT 1 FROM {table} WHERE {key} = ?", (row_id,)).fetchone() is not None

    def import_row(self, table: str, record: Mapping[str, Any]) -> None:
        """Raw insert for imports; ``table`` is one of ours, never caller text."""
        rows.insert(self.conn, table, import_params(record))
        if table == "memories":
            self.conn.executemany("INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
                                  [(record["id"], mid) for mid in record.get("provenance") or []])
