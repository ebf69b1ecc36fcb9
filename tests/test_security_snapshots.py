"""Snapshot loads check integrity first, then the schema: a damaged header is quarantined like any damage,
and the previous good generation is served; only an intact generation from a newer Engram is refused."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from pathlib import Path

import pytest
import zstandard
from snapshot_support import make_snapshotter, moto_endpoint, oss_like, remember, store, texts_in  # noqa: F401

from engram_core.adapters.sqlite_store import LATEST_SCHEMA
from engram_core.core.errors import SchemaTooNewError
from engram_core.snapshots.admin import list_generations
from engram_core.snapshots.codec import seal
from engram_core.snapshots.layout import TenantKeys
from engram_core.snapshots.ports import SnapshotStore

KEYS = TenantKeys("alice")


def _two_good(store: SnapshotStore, cache: Path) -> bytes:
    snapshots = make_snapshotter(store, cache)
    snapshots.run("alice", remember("good one"))
    snapshots.run("alice", remember("good two"))
    return zstandard.ZstdDecompressor().decompress(store.get(KEYS.generation(2)).data)


def _resealed(store: SnapshotStore, raw: bytes) -> None:
    """Generation 3 from damaged bytes, re-sealed with a matching checksum and the writer's other metadata."""
    metadata = dict(store.get(KEYS.generation(2)).metadata)
    payload = zstandard.ZstdCompressor(level=1).compress(raw)
    store.put_new(KEYS.generation(3), payload, {**metadata, "sha256": hashlib.sha256(payload).hexdigest()})


@pytest.mark.parametrize("bit", [0x40, 0x01])
def test_a_damaged_schema_header_is_quarantined_and_the_previous_generation_served(
        store: SnapshotStore, tmp_path: Path, bit: int, caplog: pytest.LogCaptureFixture) -> None:
    raw = bytearray(_two_good(store, tmp_path / "writer"))
    raw[60] ^= bit  # one bit of PRAGMA user_version
    _resealed(store, bytes(raw))
    reader = make_snapshotter(store, tmp_path / "reader")
    with caplog.at_level(logging.WARNING, logger="engram.snapshots"):
        assert texts_in(reader, "alice") == ["good one", "good two"]
    assert "quarantined: tenant=alice generation=3" in caplog.text
    assert [g.number for g in list_generations(reader, "alice").generations if g.quarantined] == [3]
    reader.run("alice", remember("after the damage"))
    assert texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice") == ["good one", "good two",
                                                                              "after the damage"]


def test_an_intact_generation_from_a_newer_engram_is_refused_and_kept(store: SnapshotStore, tmp_path: Path) -> None:
    raw = _two_good(store, tmp_path / "writer")
    newer = tmp_path / "newer.sqlite"
    newer.write_bytes(raw)
    conn = sqlite3.connect(newer, isolation_level=None)
    conn.execute(f"PRAGMA user_version = {LATEST_SCHEMA + 1}")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file alone holds the database again
    conn.close()
    sealed = seal(newer.read_bytes())
    store.put_new(KEYS.generation(3), sealed.payload, sealed.metadata())
    reader = make_snapshotter(store, tmp_path / "reader")
    with pytest.raises(SchemaTooNewError, match="newer than this Engram"):
        texts_in(reader, "alice")
    assert not any(g.quarantined for g in list_generations(reader, "alice").generations)
