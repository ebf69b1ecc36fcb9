"""FTS5 BM25 search answered from per-word postings cached in numpy.

FTS5 scores an OR query as the sum, in query order, of each phrase's own BM25
term (same row count, average length, document length and IDF as when the
phrase is asked alone). So each word's term is fetched once, with
``-bm25()`` of that word alone, and a query adds the cached terms in the same
order: bit-identical scores, and ties ordered by rowid as SQLite's sort leaves
them (tests/test_recall_fast_path.py checks both against the plain query). Walking
the posting lists of common words ("the", "my", "I") on every recall cost
~20 ms of a 10,000-memory recall, the cached sum ~1 ms (docs/benchmarks.md,
section 4).

The cache is valid for one state of the store, keyed by
``(PRAGMA data_version, total_changes)``: another connection's commit or any
row change on this one invalidates it, except writes the store declares to
leave memories' text, status and rowids alone (``carry``).
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from engram_core.core.retention import RECALLABLE

_MAX_WORDS = 2048  # cached words; the least recently used go first
RECALLABLE_SQL = "(" + ", ".join(f"'{status.value}'" for status in RECALLABLE) + ")"  # the statuses recall reads
_WORD_SQL = "SELECT rowid, -bm25(memories_fts) AS term FROM memories_fts WHERE memories_fts MATCH ?"
_OR_SQL = (
    "SELECT m.id AS id, -bm25(memories_fts) AS score FROM memories_fts "
    "JOIN memories m ON m.rowid = memories_fts.rowid "
    f"WHERE memories_fts MATCH ? AND (m.status IN {RECALLABLE_SQL} OR ?) ORDER BY bm25(memories_fts) LIMIT ?"
)
_ROWS_SQL = f"SELECT rowid, id, status IN {RECALLABLE_SQL} AS active FROM memories ORDER BY rowid"

CacheKey = tuple[int, int]


@dataclass(frozen=True, eq=False)
class _Rows:
    """Memory ids, existence and status by rowid (``active``: recallable, i.e. active, or decayed or archived:
    the cold tier)."""

    ids: np.ndarray  # object array of memory ids, None where no memory has the rowid
    exists: np.ndarray
    active: np.ndarray


@dataclass(frozen=True, eq=False)
class _Postings:
    rowids: np.ndarray
    terms: np.ndarray


def quote_word(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def fts_search(conn: sqlite3.Connection, words: list[str], limit: int, active_only: bool) -> list[tuple[str, float]]:
    """FTS5 answering the OR query itself: what a cold cache does, and what the cache reproduces."""
    found = conn.execute(_OR_SQL, (" OR ".join(quote_word(w) for w in words), int(not active_only), limit))
    return [(r[0], max(0.0, float(r[1]))) for r in found]


def _plain_rows(conn: sqlite3.Connection, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows as plain tuples, not ``sqlite3.Row``: a word in every memory of 100,000 loads in
    110 ms instead of 158 (docs/benchmarks.md, section 4)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()


def _load_rows(conn: sqlite3.Connection) -> _Rows:
    found = _plain_rows(conn, _ROWS_SQL)
    size = (found[-1][0] + 1) if found else 0
    rows = _Rows(np.full(size, None, dtype=object), np.zeros(size, dtype=bool), np.zeros(size, dtype=bool))
    if found:
        rowids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
        rows.ids[rowids] = [r[1] for r in found]
        rows.exists[rowids] = True
        rows.active[rowids] = np.fromiter((bool(r[2]) for r in found), dtype=bool, count=len(found))
    return rows


def _load_postings(conn: sqlite3.Connection, word: str, rows: int) -> _Postings:
    """One word's (rowid, term) pairs, kept only for rowids below ``rows``: a full-text row
    without its memory is never returned."""
    found = _plain_rows(conn, _WORD_SQL, (quote_word(word),))
    rowids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    terms = np.fromiter((r[1] for r in found), dtype=np.float64, count=len(found))
    known = rowids < rows
    return _Postings(rowids[known], terms[known])


class LexicalCache:
    """Per-word BM25 terms and the rowid -> memory map, for one state of the store."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._key: CacheKey | None = None
        self._asked: CacheKey | None = None
        self._rows: _Rows | None = None
        self._words: OrderedDict[str, _Postings] = OrderedDict()

    def clear(self) -> None:
        self._key, self._asked, self._rows = None, None, None
        self._words.clear()

    def carry(self, before: CacheKey, after: CacheKey) -> None:
        """A write between ``before`` and ``after`` changed nothing the search reads."""
        if self._key == before:
            self._key = after
        if self._asked == before:
            self._asked = after

    def _warm(self, key: CacheKey) -> _Rows | None:
        """A state searched twice is worth loading; a store opened for one search is not."""
        if self._key == key and self._rows is not None:
            return self._rows
        if self._asked != key:
            self.clear()
            self._asked = key
            return None
        self._words.clear()
        self._rows, self._key = _load_rows(self._conn), key
        return self._rows

    def _postings(self, word: str, rows: int) -> _Postings:
        found = self._words.get(word)
        if found is None:
            found = self._words[word] = _load_postings(self._conn, word, rows)
            if len(self._words) > _MAX_WORDS:
                self._words.popitem(last=False)
        else:
            self._words.move_to_end(word)
        return found

    def search(self, words: list[str], limit: int, active_only: bool,
               key: CacheKey) -> list[tuple[str, float]] | None:
        """The rows of the OR query over ``words``: best BM25 first, ties by rowid, at most ``limit``.

        None while the cache is cold for ``key``: the caller asks FTS5 directly.
        """
        rows = self._warm(key)
        if rows is None:
            return None
        total, matched = np.zeros(len(rows.ids), dtype=np.float64), np.zeros(len(rows.ids), dtype=bool)
        for word in words:  # in query order, as FTS5 sums its phrases
            postings = self._postings(word, len(total))
            total[postings.rowids] = total[postings.rowids] + postings.terms
            matched[postings.rowids] = True
        matched &= rows.active if active_only else rows.exists
        best = _best_first(np.flatnonzero(matched), total, limit)
        evidence = total[best]
        return list(zip(rows.ids[best].tolist(), np.where(evidence > 0.0, evidence, 0.0).tolist(),  # max(0.0, e)
                        strict=True))


def _best_first(found: np.ndarray, total: np.ndarray, limit: int) -> np.ndarray:
    """Rowids by score descending then rowid ascending, at most ``limit`` (negative: all)."""
    scores = total[found]
    if 0 <= limit < len(found):
        if limit == 0:
            return found[:0]
        cut = -np.partition(-scores, limit - 1)[limit - 1]  # the limit-th best score: keep it and its ties
        found, scores = found[scores >= cut], scores[scores >= cut]
    ordered = found[np.lexsort((found, -scores))]
    return ordered if limit < 0 else ordered[:limit]
