"""The rows a purge reads and rewrites, by id and in raw form: a row that no longer decodes must go too."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from engram_core.core.timeutil import to_storage


class PurgeRows:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def text_of(self, memory_id: str) -> str | None:
        row = self.conn.execute("SELECT text FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return row[0] if row else None

    def exists(self, memory_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone() is not None

    def kind_of(self, memory_id: str) -> str | None:
        row = self.conn.execute("SELECT kind FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return row[0] if row else None

    def archived_into(self, memory_id: str) -> str | None:
        """The gist (or merged memory) this memory was archived into, if any."""
        row = self.conn.execute("SELECT superseded_by FROM memories WHERE id = ? AND status = 'archived'",
                                (memory_id,)).fetchone()
        return row[0] if row and row[0] else None

    def archived_members(self, memory_id: str) -> list[str]:
        """The originals a gist (or merged memory) stands for."""
        found = self.conn.execute("SELECT id FROM memories WHERE superseded_by = ? AND status = 'archived' "
                                  "ORDER BY rowid", (memory_id,))
        return [row[0] for row in found]

    def source_message_ids(self, memory_id: str) -> list[str]:
        found = self.conn.execute("SELECT message_id FROM memory_sources WHERE memory_id = ?", (memory_id,))
        return [row[0] for row in found]

    def belief_texts(self, memory_id: str) -> list[tuple[str, str, str]]:
        """(statement, predicate, object) of the memory's beliefs."""
        found = self.conn.execute("SELECT statement, predicate, object FROM beliefs WHERE memory_id = ?", (memory_id,))
        return [(row[0] or "", row[1] or "", row[2] or "") for row in found]

    def redact_beliefs(self, memory_id: str, replacement: str, when: datetime) -> None:
        """The memory's beliefs keep their history but lose their text; current ones are retired."""
        self.conn.execute("UPDATE beliefs SET statement = ?, object = '', expired_at = COALESCE(expired_at, ?) "
                          "WHERE memory_id = ?", (replacement, to_storage(when), memory_id))

    def mark_deleted(self, memory_id: str, when: datetime) -> None:
        self.conn.execute("UPDATE memories SET status = 'deleted', status_changed_at = ? WHERE id = ?",
                          (to_storage(when), memory_id))

    def message_texts(self, skip: str) -> list[tuple[str, str]]:
        """(id, text) of every message whose text is not ``skip`` (the redaction marker)."""
        return [(row[0], row[1]) for row in self.conn.execute("SELECT id, text FROM messages WHERE text != ?",
                                                               (skip,))]

    def proposals(self) -> list[tuple[str, str]]:
        return [(row[0], row[1]) for row in self.conn.execute("SELECT id, actions FROM dream_proposals")]

    def set_proposal_actions(self, proposal_id: str, actions: str) -> None:
        self.conn.execute("UPDATE dream_proposals SET actions = ? WHERE id = ?", (actions, proposal_id))

    def meta_items(self) -> list[tuple[str, str]]:
        return [(row[0], row[1]) for row in self.conn.execute("SELECT key, value FROM meta")]
