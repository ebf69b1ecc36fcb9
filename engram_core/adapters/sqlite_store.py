"""SQLite store: one database per tenant, numbered migrations, one transaction per use case."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from engram_core.adapters import sqlite_rows as rows
from engram_core.adapters.sqlite_lexical import RECALLABLE_SQL, CacheKey, LexicalCache, fts_search
from engram_core.adapters.sqlite_exchange import ExchangeRows
from engram_core.adapters.sqlite_purge import PurgeRows
from engram_core.adapters.sqlite_recall import RecallRows
from engram_core.adapters.sqlite_reviews import StaleReviewRows
from engram_core.adapters.sqlite_usage import UsageRows
from engram_core.adapters.sqlite_working import WorkingFileRows
from engram_core.core.errors import SchemaTooNewError, StoreError
from engram_core.migrations import LATEST_SCHEMA
from engram_core.migrations import numbered as _migrations
from engram_core.core.model import AccessState, Belief, DreamProposal, Event, Memory, MemoryStatus, Message, ModelCall
from engram_core.adapters.private_files import private_dir, private_file
from engram_core.core.timeutil import to_storage
from engram_core.core.words import content_words

_FTS_TOKEN = re.compile(r"\w+", re.UNICODE)
BUSY_TIMEOUT_MS = 10_000


def _connect(path: str) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open store {path}: {exc}") from exc
    conn.row_factory = sqlite3.Row
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA secure_delete = ON")  # purged text is zeroed on disk, not left in free pages
        if path != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path} is not a readable Engram store: {exc}") from exc
    return conn


class SqliteStore(UsageRows, StaleReviewRows, ExchangeRows, WorkingFileRows, RecallRows):
    """All SQL lives here; the engine speaks in domain values."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            private_dir(Path(self.path).parent)
            private_file(Path(self.path))
        self.conn = _connect(self.path)
        self._commit_hooks: list[Callable[[], None]] = []
        self._lexical = LexicalCache(self.conn)
        try:
            self.migrate()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise StoreError(f"{self.path} is not a readable Engram store: {exc}") from exc

    # -- schema ---------------------------------------------------------
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        current = self.schema_version()
        if current > LATEST_SCHEMA:
            raise SchemaTooNewError(
                f"store schema v{current} is newer than this Engram (v{LATEST_SCHEMA}); upgrade Engram"
            )
        for number, sql in _migrations():
            if number > current:
                self._apply_migration(number, sql)

    def _apply_migration(self, number: int, sql: str) -> None:
        """The script and its version bump commit together or not at all."""
        self._lexical.clear()
        try:
            self.conn.executescript(f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {number};\nCOMMIT;")
        except sqlite3.Error:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    @property
    def in_transaction(self) -> bool:
        """A write transaction is open on this connection (no model may be called while it is)."""
        return self.conn.in_transaction

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or roll everything back."""
        if self.conn.in_transaction:
            yield
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"store is busy: {exc}") from exc
        try:
            yield
            for hook in self._commit_hooks:
                hook()
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise StoreError(f"store write failed and was rolled back: {exc}") from exc
        except BaseException:
            self._rollback()
            raise

    def add_commit_hook(self, hook: Callable[[], None]) -> None:
        """``hook`` runs inside every outermost transaction, just before COMMIT, and commits with it."""
        self._commit_hooks.append(hook)

    def _rollback(self) -> None:
        self._lexical.clear()  # it may hold rows the rollback takes back
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def close(self) -> None:
        self.conn.close()

    def _update(self, table: str, params: dict) -> None:
        sets = ", ".join(f"{k} = :{k}" for k in params if k != "id")
        self.conn.execute(f"UPDATE {table} SET {sets} WHERE id = :id", params)

    # -- meta -------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- messages ---------------------------------------------------------
    def insert_message(self, message: Message) -> None:
        rows.insert(self.conn, "messages", rows.message_params(message))

    def message_by_external_id(self, external_id: str) -> Message | None:
        row = self.conn.execute("SELECT * FROM messages WHERE external_id = ?", (external_id,)).fetchone()
        return rows.message_from_row(row) if row else None

    def get_message(self, message_id: str) -> Message | None:
        row = self.conn.execute("SELECT * FROM messages WHERE id = ?", (message_id,)).fetchone()
        return rows.message_from_row(row) if row else None

    def messages(self, session_id: str | None = None) -> list[Message]:
        sql, args = "SELECT * FROM messages", ()
        if session_id is not None:
            sql, args = sql + " WHERE session_id = ?", (session_id,)
        return rows.each(self.conn.execute(sql + " ORDER BY occurred_at, rowid", args), rows.message_from_row)

    def previous_message(self, role: str, speaker: str | None, before: datetime) -> Message | None:
        found = self.conn.execute(
            "SELECT * FROM messages WHERE role = ? AND speaker IS ? AND occurred_at < ? "
            "ORDER BY occurred_at DESC, rowid DESC LIMIT 1", (role, speaker, to_storage(before))).fetchone()
        return rows.message_from_row(found) if found is not None else None

    # -- memories ---------------------------------------------------------
    def insert_memory(self, memory: Memory) -> None:
        rows.insert(self.conn, "memories", rows.memory_params(memory))
        self.conn.executemany(
            "INSERT OR IGNORE INTO memory_sources (memory_id, message_id) VALUES (?, ?)",
            [(memory.id, mid) for mid in memory.provenance],
        )

    def update_memory(self, memory: Memory) -> None:
        self._update("memories", rows.memory_params(memory))

    def get_memory(self, memory_id: str) -> Memory | None:
        row = self.conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return rows.memory_from_row(row) if row else None

    def memories_by_ids(self, ids: Sequence[str]) -> list[Memory]:
        found: list[Memory] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            found += rows.each(self.conn.execute(f"SELECT * FROM memories WHERE id IN ({marks})", chunk),
                               rows.memory_from_row)
        return found

    def stability_and_count(self, ids: Sequence[str]) -> list[tuple[str, float, int]]:
        """(id, stability_hours, access_count): only what reinforcement reads, no row decoding."""
        found: list[tuple[str, float, int]] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            sql = f"SELECT id, stability_hours, access_count FROM memories WHERE id IN ({', '.join('?' * len(chunk))})"
            found += [(r[0], float(r[1]), int(r[2])) for r in self.conn.execute(sql, chunk)]
        return found

    def record_access(self, states: Sequence[AccessState]) -> None:
        """Writes the access columns alone: a full-row update also re-indexes the text for full-text search."""
        with self._leaves_lexical_alone():
            self.conn.executemany(
                "UPDATE memories SET stability_hours = ?, last_accessed_at = ?, access_count = ? WHERE id = ?",
                [(s.stability_hours, to_storage(s.last_accessed_at), s.access_count, s.memory_id) for s in states],
            )

    def memories(self, statuses: Sequence[MemoryStatus] = (), kinds: Sequence[str] = (),
                 text: str | None = None, limit: int = -1, offset: int = 0,
                 created_by: datetime | None = None) -> list[Memory]:
        clauses, args = [], []
        if created_by is not None:
            clauses.append("created_at <= ?")
            args.append(to_storage(created_by))
        if statuses:
            clauses.append(f"status IN ({', '.join('?' * len(statuses))})")
            args += [s.value for s in statuses]
        if kinds:
            clauses.append(f"kind IN ({', '.join('?' * len(kinds))})")
            args += list(kinds)
        if text:
            clauses.append("text LIKE ? ESCAPE '\\'")
            args.append("%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = f"SELECT * FROM memories{where} ORDER BY created_at, rowid LIMIT ? OFFSET ?"
        return rows.each(self.conn.execute(sql, [*args, limit, offset]), rows.memory_from_row)

    def memories_from_message(self, message_id: str) -> list[Memory]:
        sql = "SELECT m.* FROM memories m JOIN memory_sources s ON s.memory_id = m.id WHERE s.message_id = ?"
        return rows.each(self.conn.execute(sql, (message_id,)), rows.memory_from_row)

    def count_memories(self) -> dict[str, int]:
        sql = "SELECT status, COUNT(*) AS n FROM memories GROUP BY status"
        return {r["status"]: r["n"] for r in self.conn.execute(sql)}

    def lexical_search(self, query: str, limit: int, active_only: bool = True) -> list[tuple[str, float]]:
        """Memories matching any query word, with BM25 evidence (higher is better), best first.

        The same rows as ``SELECT m.id, -bm25(memories_fts) ... MATCH 'w1 OR w2 ...' AND m.status = 'active'
        ORDER BY bm25(memories_fts) LIMIT ?``, answered from cached per-word terms (sqlite_lexical.py).
        """
        words = content_words(_FTS_TOKEN.findall(query))  # stop words alone are no match
        if not words:
            return []
        cached = self._lexical.search(words, limit, active_only, self._lexical_key())
        return cached if cached is not None else fts_search(self.conn, words, limit, active_only)

    def _lexical_key(self) -> CacheKey:
        return self.data_version(), self.conn.total_changes

    @contextmanager
    def _leaves_lexical_alone(self) -> Iterator[None]:
        """For writes that change no memory's text, status or rowid: the search cache stays valid."""
        before = self._lexical_key()
        yield
        self._lexical.carry(before, self._lexical_key())

    def delete_memory(self, memory_id: str) -> None:
        self.conn.execute("DELETE FROM memory_sources WHERE memory_id = ?", (memory_id,))
        self.conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    # -- beliefs ----------------------------------------------------------
    def insert_belief(self, belief: Belief) -> None:
        rows.insert(self.conn, "beliefs", rows.belief_params(belief))

    def update_belief(self, belief: Belief) -> None:
        self._update("beliefs", rows.belief_params(belief))

    def get_belief(self, belief_id: str) -> Belief | None:
        row = self.conn.execute("SELECT * FROM beliefs WHERE id = ?", (belief_id,)).fetchone()
        return rows.belief_from_row(row) if row else None

    def current_beliefs(self, subject: str | None = None, predicate: str | None = None) -> list[Belief]:
        clauses, args = ["valid_to IS NULL", "expired_at IS NULL"], []
        for column, value in (("subject", subject), ("predicate", predicate)):
            if value is not None:
                clauses.append(f"{column} = ?")
                args.append(value)
        sql = f"SELECT * FROM beliefs WHERE {' AND '.join(clauses)} ORDER BY valid_from, rowid"
        return rows.each(self.conn.execute(sql, args), rows.belief_from_row)

    def beliefs_valid_at(self, when: datetime) -> list[Belief]:
        """World-time query: what was true at ``when`` (as the engine knows it now)."""
        moment = to_storage(when)
        sql = (
            "SELECT * FROM beliefs WHERE valid_from <= ? AND (valid_to IS NULL OR valid_to > ?) "
            "AND object != '' ORDER BY subject, predicate, valid_from"
        )
        return rows.each(self.conn.execute(sql, (moment, moment)), rows.belief_from_row)

    def belief_history(self, subject: str, predicate: str | None = None) -> list[Belief]:
        sql, args = "SELECT * FROM beliefs WHERE subject = ?", [subject]
        if predicate:
            sql, args = sql + " AND predicate = ?", [*args, predicate]
        return rows.each(self.conn.execute(sql + " ORDER BY predicate, valid_from, rowid", args), rows.belief_from_row)

    def beliefs_from_message(self, message_id: str) -> list[Belief]:
        sql = "SELECT * FROM beliefs WHERE source_message_id = ?"
        return rows.each(self.conn.execute(sql, (message_id,)), rows.belief_from_row)

    def beliefs_of_memory(self, memory_id: str) -> list[Belief]:
        sql = "SELECT * FROM beliefs WHERE memory_id = ?"
        return rows.each(self.conn.execute(sql, (memory_id,)), rows.belief_from_row)

    def all_beliefs(self) -> list[Belief]:
        return rows.each(self.conn.execute("SELECT * FROM beliefs ORDER BY rowid"), rows.belief_from_row)

    # -- events -----------------------------------------------------------
    def insert_events(self, events: Sequence[Event]) -> None:
        with self._leaves_lexical_alone():
            self.conn.executemany(
                "INSERT INTO events (id, at, kind, memory_id, belief_id, message_id, detail) "
                "VALUES (:id, :at, :kind, :memory_id, :belief_id, :message_id, :detail)",
                rows.events_params(events),
            )

    def delete_events(self, kind: str, before: datetime) -> int:
        """Delete the events of one kind older than ``before``; how many went."""
        with self._leaves_lexical_alone():
            found = self.conn.execute("DELETE FROM events WHERE kind = ? AND at < ?", (kind, to_storage(before)))
        return found.rowcount

    def events(self, since: datetime | None = None, limit: int = -1) -> list[Event]:
        sql, args = "SELECT * FROM events", []
        if since is not None:
            sql, args = sql + " WHERE at >= ?", [to_storage(since)]
        return rows.each(self.conn.execute(sql + " ORDER BY seq LIMIT ?", [*args, limit]), rows.event_from_row)

    def last_event_at(self, kind: str) -> str | None:
        row = self.conn.execute("SELECT MAX(at) AS at FROM events WHERE kind = ?", (kind,)).fetchone()
        return row["at"] if row else None

    # -- model usage ----------------------------------------------------------
    def insert_usage(self, calls: Sequence[tuple[str, ModelCall]], at: datetime, turn_id: str | None) -> None:
        with self._leaves_lexical_alone():
            super().insert_usage(calls, at, turn_id)

    # -- dream proposals ----------------------------------------------------
    def insert_proposal(self, proposal: DreamProposal) -> None:
        self.conn.execute(
            "INSERT INTO dream_proposals (id, created_at, actions, rejected) VALUES (?, ?, ?, ?)",
            (proposal.id, to_storage(proposal.created_at),
             json.dumps([rows.dream_action_to_json(a) for a in proposal.actions]), json.dumps(list(proposal.rejected))),
        )

    def get_proposal(self, proposal_id: str) -> tuple[DreamProposal, bool] | None:
        row = self.conn.execute("SELECT * FROM dream_proposals WHERE id = ?", (proposal_id,)).fetchone()
        return (rows.proposal_from_row(row), row["applied_at"] is not None) if row else None

    def mark_proposal_applied(self, proposal_id: str, when: datetime) -> None:
        self.conn.execute("UPDATE dream_proposals SET applied_at = ? WHERE id = ?", (to_storage(when), proposal_id))

    # -- recall index ---------------------------------------------------------
    def data_version(self) -> int:
        """Changes when another connection commits (SQLite's own counter)."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def active_with_beliefs(self) -> list[tuple[Memory, Belief | None]]:
        """Every recallable memory (active, or decayed or archived: the cold tier) with the current belief it
        renders."""
        sql = (
            "SELECT m.*, b.id AS b_id FROM memories m LEFT JOIN beliefs b "
            "ON b.id = m.belief_id AND b.valid_to IS NULL AND b.expired_at IS NULL "
            f"WHERE m.status IN {RECALLABLE_SQL} ORDER BY m.rowid"
        )
        found = rows.each(self.conn.execute(sql), lambda r: (rows.memory_from_row(r), r["b_id"]))
        beliefs = {b.id: b for b in self.current_beliefs()}
        return [(m, beliefs.get(bid) if bid else None) for m, bid in found]

    def unreadable_rows(self) -> list[dict[str, str]]:
        """Rows that cannot be read back (reads skip them): table, id and why."""
        return rows.unreadable_rows(self.conn)

    @property
    def purging(self) -> PurgeRows:
        """Row-level access for a purge: it must reach rows that no longer decode, too."""
        return PurgeRows(self.conn)

    def redact_message(self, message_id: str, replacement: str) -> None:
        self.conn.execute("UPDATE messages SET text = ? WHERE id = ?", (replacement, message_id))

    def scrub_deleted(self) -> None:
        """After a purge: rewrite the full-text index and flush the WAL so no old text lingers."""
        self.conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
        if self.path != ":memory:":
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
