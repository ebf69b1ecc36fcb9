"""The recall index's columns, read from ``memories`` in one query and decoded with numpy.

The first recall of a tenant used to decode every recallable row into a ``Memory`` (timestamps,
JSON provenance, the vector) before scoring: 4.5 to 5 s at 100,000 memories. Scoring reads a
handful of numbers and the vector of each row, so that is all this reads: the vectors joined into
one buffer and decoded by numpy in blocks, the timestamps checked and parsed by numpy, and of each
episode only the start of its text that can name its speaker. A memory's full value is read later,
for the few hundred rows recall makes candidates (``recallable_entries``).

The result equals what decoding every row gives (``index_columns.columns_from_rows``), bit for bit:
a row this path is not sure of (a timestamp not as ``to_storage`` writes it, a vector of another
size, provenance that is not a JSON list, a value of an unexpected type) is decoded the ordinary way
instead, so it is kept or skipped exactly as reading it as a ``Memory`` would (tests/test_index_load.py).
"""

from __future__ import annotations

import mmap
import sqlite3
from collections.abc import Callable, Sequence

import numpy as np

from engram_core.adapters import sqlite_rows as rows
from engram_core.adapters.sqlite_lexical import RECALLABLE_SQL
from engram_core.core.entities import SPEAKER_PREFIX, entity_key, memory_entity, speaker_entity
from engram_core.core.index_columns import KINDS, IndexColumns, epoch_hours, epoch_micros
from engram_core.core.model import Belief, Memory, MemoryKind, MemoryStatus

_BLOCK = 4096  # vectors decoded at a time: small temporaries, one pass over the matrix
_NO_TIME = "1970-01-01T00:00:00.000000Z"
_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22, 23, 24, 25]
_MARKS = {4: b"-", 7: b"-", 10: b"T", 13: b":", 16: b":", 19: b".", 26: b"Z"}
# Years whose epoch microseconds a float64 holds exactly, so that hours come out as epoch_hours gives them.
_SAFE_US = tuple(int(np.datetime64(day, "us").astype(np.int64)) for day in ("1700-01-01", "2250-01-01"))
_KIND_CASE = "CASE kind " + " ".join(f"WHEN '{k.value}' THEN {i}" for i, k in enumerate(KINDS)) + " ELSE -1 END"
# What the SQL can tell cheaply: types, the kind, provenance a JSON list, a vector of the asked size.
_SURE = " AND ".join((
    "typeof(id) = 'text'", "typeof(text) = 'text'", "typeof(importance) IN ('real', 'integer')",
    "typeof(stability_hours) IN ('real', 'integer')", "typeof(critical) = 'integer'",
    "typeof(session_id) IN ('text', 'null')", "typeof(subject) IN ('text', 'null')",
    "CASE WHEN json_valid(provenance) THEN substr(provenance, 1, 1) = '[' ELSE 0 END",
))


def _columns_sql(dim: int) -> str:
    """One row per recallable memory, each expression computed once: flags (sure, critical, archived, the vector's
    layout, kind), rowid, id, importance, stability, both times, the status time, session, speaker text or subject,
    vector."""
    episode = MemoryKind.EPISODE.value
    layout = (f"CASE WHEN embedding IS NULL THEN 0 WHEN typeof(embedding) != 'blob' THEN 3 "
              f"WHEN length(embedding) = {dim + 4} THEN 1 WHEN length(embedding) = {4 * dim} THEN 2 ELSE 3 END")
    flags = (f"coalesce(({_SURE}) AND (embedding IS NULL OR embed_dim IS {dim}), 0) + 2 * coalesce(critical != 0, 0) "
             f"+ 4 * (status = '{MemoryStatus.ARCHIVED.value}') + 8 * ({layout}) + 32 * ({_KIND_CASE})")
    return (
        f"SELECT {flags}, rowid, id, importance, stability_hours, coalesce(created_at || ' ' || last_accessed_at, ''), "
        "CASE WHEN status_changed_at != '' THEN status_changed_at END, session_id, "
        f"CASE WHEN kind != '{episode}' THEN subject WHEN instr(substr(text, 1, {SPEAKER_PREFIX}), ': ') > 0 "
        f"THEN substr(text, 1, {SPEAKER_PREFIX}) END, embedding "
        f"FROM memories NOT INDEXED WHERE status IN {RECALLABLE_SQL} ORDER BY rowid"
    )


def _ascii(texts: list[str], width: int) -> np.ndarray:
    """(n, width) bytes of each text, zero-padded; a text that is not ASCII becomes empty (so not a time)."""
    try:
        raw = np.array(texts, dtype=f"S{width}")
    except UnicodeEncodeError:
        raw = np.array([t if t.isascii() else "" for t in texts], dtype=f"S{width}")
    return raw.view(np.uint8).reshape(len(texts), width)


def _stamps(raw: np.ndarray, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(epoch microseconds, fine) of (n, 27) bytes holding times as ``to_storage`` writes them; ``ended``: the
    text stops after them. A time of another form, or not a real one (30 February), is not fine."""
    fine = ended & np.all((raw[:, _DIGITS] >= ord("0")) & (raw[:, _DIGITS] <= ord("9")), axis=1)
    for column, mark in _MARKS.items():
        fine &= raw[:, column] == mark[0]
    stamps = np.ascontiguousarray(raw[:, :26]).view("S26").ravel().copy()
    stamps[~fine] = _NO_TIME[:26].encode()
    try:
        micros = stamps.astype("datetime64[us]").astype(np.int64)
    except ValueError:  # a day, hour or minute out of range somewhere: find it
        micros = np.zeros(len(stamps), dtype=np.int64)
        for i in np.flatnonzero(fine).tolist():
            try:
                micros[i] = stamps[i : i + 1].astype("datetime64[us]").astype(np.int64)[0]
            except ValueError:
                fine[i] = False
    return micros, fine & (micros >= _SAFE_US[0]) & (micros < _SAFE_US[1])


class _Rows:
    """The query's answer as columns, and which rows are to be decoded the ordinary way (not ``sure``)."""

    def __init__(self, found: list[tuple], dim: int) -> None:
        flags, self.rowids, self.ids, importance, stability, times, changed, self.sessions, self.names, self.blobs = (
            list(c) for c in zip(*found, strict=True))
        flag = np.array(flags, dtype=np.int64)
        self.sure = (flag & 1).astype(bool) & (flag >= 0)
        self.critical, self.archived, self.kinds = (flag & 2) > 0, (flag & 4) > 0, (flag >> 5).astype(np.int8)
        both = _ascii(times, 56)  # "created accessed": 27 + 1 + 27 characters, then nothing
        self.created_us, created_fine = _stamps(both[:, :27], both[:, 27] == ord(" "))
        self.accessed_us, accessed_fine = _stamps(both[:, 28:55], both[:, 55] == 0)
        self.sure &= created_fine & accessed_fine
        stated = [i for i, t in enumerate(changed) if t is not None]
        if stated:
            told = _ascii([t if isinstance(t, str) else "" for t in (changed[i] for i in stated)], 28)
            self.sure[stated] &= _stamps(told[:, :27], told[:, 27] == 0)[1]
        layout = (flag >> 3) & 3  # no vector, int8 and its scale, float32, or anything else (not sure)
        self.sizes = np.array([0, dim + 4, 4 * dim, 0], dtype=np.int64)[layout]
        self.sure &= layout != 3
        unsure = np.flatnonzero(~self.sure).tolist()
        for i in unsure:  # values the fast path must not read
            importance[i] = stability[i] = 0.0
        self.sizes[unsure] = 0
        self.importance, self.stability = np.array(importance, np.float64), np.array(stability, np.float64)
        self.created_h = self.created_us / 1e6 / 3600.0  # as epoch_hours: exact while microseconds fit 53 bits
        self.accessed_h = self.accessed_us / 1e6 / 3600.0
        self.readable = self.sure.copy()
        self.indexed = self.sure & (self.sizes > 0)
        self.decoded: dict[int, Memory] = {}  # rows decoded the ordinary way

    def take(self, i: int, memory: Memory | None, dim: int) -> None:
        """Row ``i`` as decoded the ordinary way (None: unreadable, skipped as every read skips it)."""
        self.readable[i] = memory is not None
        if memory is None or memory.embedding is None or memory.embedding.dim != dim:
            return
        self.decoded[i] = memory
        self.indexed[i] = True
        self.ids[i], self.kinds[i], self.sessions[i] = memory.id, KINDS.index(memory.kind), memory.session_id
        self.importance[i], self.stability[i] = memory.importance, memory.stability_hours
        self.created_h[i], self.accessed_h[i] = epoch_hours(memory.created_at), epoch_hours(memory.last_accessed_at)
        self.created_us[i] = epoch_micros(memory.created_at)
        self.critical[i], self.archived[i] = memory.critical, memory.status is MemoryStatus.ARCHIVED

    def entity_keys(self, keep: list[int]) -> list[str | None]:
        """``memory_entity`` of each kept row: of an episode's text start, or of the subject."""
        if not self.decoded and all(name is None for name in self.names):
            return [None] * len(keep)
        episode, known = KINDS.index(MemoryKind.EPISODE), {}
        found: list[str | None] = []
        kinds = self.kinds.tolist()
        for i in keep:
            name = self.names[i]
            if i in self.decoded:
                found.append(memory_entity(self.decoded[i]))
            elif name is None:
                found.append(None)
            else:
                key = (kinds[i] == episode, name)
                if key not in known:
                    known[key] = speaker_entity(name) if key[0] else entity_key(name) if name else None
                found.append(known[key])
        return found

    def fill_vectors(self, out: np.ndarray, keep: np.ndarray, dim: int) -> None:
        """The kept rows' vectors into ``out`` in order, int8 and float32 layouts alike, a block at a time."""
        sizes = self.sizes[keep]
        for width, dtype in ((dim + 4, np.int8), (4 * dim, np.uint8)):
            targets = np.flatnonzero(sizes == width)
            for start in range(0, len(targets), _BLOCK):
                block = targets[start:start + _BLOCK]
                raw = np.frombuffer(b"".join([self.blobs[i] for i in keep[block].tolist()]), dtype=dtype)
                raw = raw.reshape(len(block), width)
                where = slice(int(block[0]), int(block[-1]) + 1) if block[-1] - block[0] == len(block) - 1 else block
                if dtype is np.int8:  # as blob_to_vector: int8 components (cast to float32) times their scale
                    scales = raw[:, :4].copy().view(np.float32)
                    if isinstance(where, slice):
                        np.multiply(raw[:, 4:], scales, out=out[where])
                    else:
                        out[where] = np.multiply(raw[:, 4:], scales, dtype=np.float32)
                else:
                    out[where] = raw.view(np.float32)
        for pos, i in enumerate(keep.tolist()):
            if i in self.decoded:
                out[pos] = self.decoded[i].embedding.vector  # type: ignore[union-attr]


class RecallRows:
    """Mixed into ``SqliteStore``: its connection."""

    conn: sqlite3.Connection

    def recall_columns(self, dim: int, room: Callable[[int], int]) -> IndexColumns:
        """The recallable memories with a vector of ``dim`` as columns, in row order (``index_columns.py``);
        the vector matrix has ``room(readable rows)`` rows."""
        cursor = self.conn.cursor()
        cursor.row_factory = None  # plain tuples
        found = cursor.execute(_columns_sql(dim)).fetchall()
        if not found:
            return _empty(dim, room(0))
        got = _Rows(found, dim)
        self._decode_unsure(got, dim)
        keep = np.flatnonzero(got.indexed)
        readable = int(np.count_nonzero(got.readable))
        vectors = _matrix(room(readable), dim)
        got.fill_vectors(vectors, keep, dim)
        kept = keep.tolist()
        whole = len(kept) == len(found)
        return IndexColumns(
            readable=readable, ids=got.ids if whole else [got.ids[i] for i in kept],
            vectors=vectors, kinds=got.kinds[keep], importance=got.importance[keep], stability=got.stability[keep],
            accessed_h=got.accessed_h[keep], created_h=got.created_h[keep], created_us=got.created_us[keep],
            critical=got.critical[keep], archived=got.archived[keep],
            sessions=got.sessions if whole else [got.sessions[i] for i in kept], entities=got.entity_keys(kept),
        )

    def _decode_unsure(self, got: _Rows, dim: int) -> None:
        """The rows the fast path is not sure of, read as every other read does (one query per 500)."""
        unsure = np.flatnonzero(~got.sure).tolist()
        at = {got.rowids[i]: i for i in unsure}
        for start in range(0, len(unsure), 500):
            chunk = [got.rowids[i] for i in unsure[start:start + 500]]
            sql = f"SELECT rowid AS r, * FROM memories WHERE rowid IN ({', '.join('?' * len(chunk))})"
            for row in self.conn.execute(sql, chunk):
                got.take(at[row["r"]], rows.decoded_or_none(row, rows.memory_from_row), dim)

    def recallable_entries(self, ids: Sequence[str]) -> list[tuple[Memory, Belief | None]]:
        """These memories (any status) with the current belief each states, as ``active_with_beliefs`` pairs
        them."""
        memories: list[Memory] = []
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            sql = f"SELECT * FROM memories WHERE id IN ({', '.join('?' * len(chunk))})"
            memories += rows.each(self.conn.execute(sql, chunk), rows.memory_from_row)
        wanted = sorted({m.belief_id for m in memories if m.belief_id})
        beliefs: dict[str, Belief] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            sql = (f"SELECT * FROM beliefs WHERE id IN ({', '.join('?' * len(chunk))}) "
                   "AND valid_to IS NULL AND expired_at IS NULL")
            beliefs.update((b.id, b) for b in rows.each(self.conn.execute(sql, chunk), rows.belief_from_row))
        return [(m, beliefs.get(m.belief_id) if m.belief_id else None) for m in memories]


def _matrix(rows: int, dim: int) -> np.ndarray:
    """A zeroed float32 matrix in its own anonymous mapping. numpy advises the kernel to back a large array with
    huge pages, and where memory is fragmented (a full page cache) the first touch of a 150 MB matrix then
    waited on compaction: 300 to 470 ms of CPU in most fresh processes, against 90 to 140 ms in ordinary pages
    (docs/benchmarks.md, section 4). The mapping is unmapped when the array is freed."""
    if rows * dim == 0:
        return np.zeros((rows, dim), dtype=np.float32)
    return np.frombuffer(mmap.mmap(-1, rows * dim * 4), dtype=np.float32).reshape(rows, dim)


def _empty(dim: int, room: int) -> IndexColumns:
    none = np.zeros(0, dtype=np.float64)
    return IndexColumns(readable=0, ids=[], vectors=np.zeros((room, dim), dtype=np.float32),
                        kinds=np.zeros(0, dtype=np.int8), importance=none, stability=none, accessed_h=none,
                        created_h=none, created_us=np.zeros(0, dtype=np.int64), critical=np.zeros(0, dtype=bool),
                        archived=np.zeros(0, dtype=bool), sessions=[], entities=[])
