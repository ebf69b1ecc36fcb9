"""Faults: corrupt, truncated and unreadable generations, bad hints, failing and unreachable servers,
and writers killed mid-upload. Each leaves the last good generation readable and says what happened."""

from __future__ import annotations

import logging
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import zstandard
from object_servers import FaultProxy, free_port
from snapshot_support import (  # noqa: F401 - fixtures
    DELTAS, make_snapshotter, moto_endpoint, new_bucket, oss_like, oss_settings, oss_store, remember, store, texts_in,
)

from engram_core.core.errors import StoreError
from engram_core.snapshots.admin import list_generations
from engram_core.snapshots.collection import collect_garbage
from engram_core.snapshots.codec import seal
from engram_core.snapshots.layout import TenantKeys
from engram_core.snapshots.local import LocalDirStore
from engram_core.snapshots.oss import OssStore
from engram_core.snapshots.ports import SnapshotStore, StoredObject

HERE = Path(__file__).resolve().parent
KEYS = TenantKeys("alice")


def two_good_generations(store: SnapshotStore, cache: Path, **extra: object):
    snapshots = make_snapshotter(store, cache, **extra)
    snapshots.run("alice", remember("good one"))
    snapshots.run("alice", remember("good two"))
    return snapshots


def truncated(payload: bytes) -> bytes:
    return payload[: len(payload) // 2]


def flipped(payload: bytes) -> bytes:
    middle = len(payload) // 2
    return payload[:middle] + bytes([payload[middle] ^ 0x40]) + payload[middle + 1:]


@pytest.mark.parametrize("damage", [truncated, flipped])
def test_a_damaged_newest_generation_is_quarantined_and_the_previous_one_served(
        store: SnapshotStore, tmp_path: Path, damage, caplog: pytest.LogCaptureFixture) -> None:
    two_good_generations(store, tmp_path / "writer")
    good = store.get(KEYS.generation(2))
    store.put_new(KEYS.generation(3), damage(good.data), good.metadata)
    reader = make_snapshotter(store, tmp_path / "reader")
    with caplog.at_level(logging.WARNING, logger="engram.snapshots"):
        assert texts_in(reader, "alice") == ["good one", "good two"]
    assert "quarantined: tenant=alice generation=3 reason=alice generation 3: checksum mismatch" in caplog.text
    assert [g.number for g in list_generations(reader, "alice").generations if g.quarantined] == [3]
    reader.run("alice", remember("after the damage"))  # builds on 2, lands past the damaged 3
    assert [g.number for g in list_generations(reader, "alice").generations] == [1, 2, 3, 4]
    fresh = make_snapshotter(store, tmp_path / "fresh")
    assert texts_in(fresh, "alice") == ["good one", "good two", "after the damage"]
    assert fresh.counters.quarantined == 0  # the newest is good again: nobody fetches 3 any more


class DamagesFirstRead:
    """A store whose first read of one key comes back damaged (a bad read, not a bad object)."""

    def __init__(self, inner: SnapshotStore, key: str) -> None:
        self.inner, self.key, self.location, self.damaged_reads = inner, key, inner.location, 0

    def get(self, key: str):
        found = self.inner.get(key)
        if key == self.key and found is not None and self.damaged_reads == 0:
            self.damaged_reads += 1
            return StoredObject(found.key, flipped(found.data), found.metadata)
        return found

    def __getattr__(self, name: str):  # noqa: ANN204 - every other call goes to the real store
        return getattr(self.inner, name)


def test_one_bad_read_of_a_good_generation_costs_nothing(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    two_good_generations(store, tmp_path / "writer")
    flaky = DamagesFirstRead(store, KEYS.generation(2))
    reader = make_snapshotter(flaky, tmp_path / "reader")
    reader.run("alice", remember("three"))
    assert flaky.damaged_reads == 1 and reader.counters.quarantined == 0
    assert texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice") == ["good one", "good two", "three"]


def test_a_generation_with_a_valid_checksum_but_a_broken_database_is_quarantined(
        store: SnapshotStore, tmp_path: Path) -> None:
    two_good_generations(store, tmp_path / "writer")
    raw = bytearray(zstandard.ZstdDecompressor().decompress(store.get(KEYS.generation(2)).data))
    page = int.from_bytes(raw[16:18], "big")
    for page_number in range(1, len(raw) // page):  # scribble over every b-tree page header but the first
        raw[page_number * page: page_number * page + 8] = b"\xff" * 8
    broken = seal(bytes(raw))
    store.put_new(KEYS.generation(3), broken.payload, broken.metadata())
    reader = make_snapshotter(store, tmp_path / "reader")
    assert texts_in(reader, "alice") == ["good one", "good two"]
    marker = store.get(KEYS.quarantine(3))
    assert marker is not None and (b"integrity check failed" in marker.data or b"not a readable" in marker.data)


def test_a_truncated_file_in_a_local_store_is_quarantined(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    two_good_generations(store, tmp_path / "writer")
    path = tmp_path / "store" / KEYS.generation(2)
    path.write_bytes(path.read_bytes()[:100])
    reader = make_snapshotter(store, tmp_path / "reader")
    assert texts_in(reader, "alice") == ["good one"]
    marker = store.get(KEYS.quarantine(2))
    assert marker is not None and b"stored object is 100 bytes" in marker.data


def test_a_missing_hint_is_harmless(store: SnapshotStore, tmp_path: Path) -> None:
    two_good_generations(store, tmp_path / "writer")
    store.put(KEYS.hint, b"2", {})
    store.delete([KEYS.hint])
    assert texts_in(make_snapshotter(store, tmp_path / "reader"), "alice") == ["good one", "good two"]


@pytest.mark.parametrize("hint", [b"1", b"99", b"not a number"])
def test_a_hint_at_a_deleted_or_bogus_generation_is_harmless(store: SnapshotStore, tmp_path: Path,
                                                              hint: bytes) -> None:
    snapshots = two_good_generations(store, tmp_path / "writer")
    snapshots.run("alice", remember("good three"))
    store.delete([KEYS.generation(1)])
    store.put(KEYS.hint, hint, {})
    reader = make_snapshotter(store, tmp_path / "reader")
    assert texts_in(reader, "alice") == ["good one", "good two", "good three"]


@pytest.fixture
def proxy(moto_endpoint: str) -> FaultProxy:
    server = FaultProxy(moto_endpoint).start()
    yield server
    server.release.set()
    server.stop()


def test_a_server_error_on_upload_is_reported_and_nothing_is_committed(proxy: FaultProxy, tmp_path: Path) -> None:
    store = oss_store(proxy.endpoint, "s3")
    snapshots = two_good_generations(store, tmp_path / "writer")
    proxy.fail_next_puts(1, status=500)
    with pytest.raises(StoreError, match="nothing was committed.*HTTP 500 InternalError"):
        snapshots.run("alice", remember("lost to a 500"))
    reader = make_snapshotter(store, tmp_path / "reader")
    assert texts_in(reader, "alice") == ["good one", "good two"]
    snapshots.run("alice", remember("after the outage"))
    assert texts_in(reader, "alice") == ["good one", "good two", "after the outage"]


def test_a_refused_connection_is_reported_clearly(moto_endpoint: str, tmp_path: Path) -> None:
    bucket = new_bucket(moto_endpoint)
    good = oss_store(moto_endpoint, "s3", bucket=bucket)
    two_good_generations(good, tmp_path / "writer")
    nowhere = OssStore.from_settings(oss_settings(f"http://127.0.0.1:{free_port()}"), bucket, "tenants")
    offline = make_snapshotter(nowhere, tmp_path / "offline")
    with pytest.raises(StoreError, match="cannot reach the object store at http://127.0.0.1:.*connection refused"):
        offline.run("alice", remember("nowhere to go"))
    assert texts_in(make_snapshotter(good, tmp_path / "reader"), "alice") == ["good one", "good two"]


def _writer(store_spec: str, cache: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(HERE / "snapshot_writer.py"), store_spec, "alice", str(cache), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("deltas", [False, True], ids=["whole", "deltas"])
def test_a_writer_killed_mid_upload_leaves_the_last_good_generation(proxy: FaultProxy, moto_endpoint: str,
                                                                      tmp_path: Path, deltas: bool) -> None:
    bucket = new_bucket(moto_endpoint)
    direct = oss_store(moto_endpoint, "s3", bucket=bucket)
    two_good_generations(direct, tmp_path / "writer", **({"compaction": DELTAS} if deltas else {}))
    proxy.stall_next_put()
    writer = _writer(f"s3:{proxy.endpoint}/{bucket}", tmp_path / "killed", "rmw", "1", "1", "doomed",
                     *(["--deltas"] if deltas else []))
    try:
        assert proxy.stalled.wait(60), writer.stderr.read() if writer.poll() is not None else "no upload seen"
        writer.send_signal(signal.SIGKILL)
        writer.wait(30)
    finally:
        proxy.release.set()
    assert writer.returncode == -signal.SIGKILL
    assert direct.head(KEYS.generation(3)) is None
    reader = make_snapshotter(direct, tmp_path / "reader")
    assert texts_in(reader, "alice") == ["good one", "good two"]
    reader.run("alice", remember("life goes on"))
    assert [g.number for g in list_generations(reader, "alice").generations] == [1, 2, 3]


@pytest.mark.parametrize("deltas", [False, True], ids=["whole", "deltas"])
def test_writers_killed_at_random_moments_never_leave_a_broken_local_store(tmp_path: Path, deltas: bool) -> None:
    store = LocalDirStore(tmp_path / "store")
    two_good_generations(store, tmp_path / "writer", **({"compaction": DELTAS} if deltas else {}))
    rng = random.Random(4)
    for round_number in range(3):
        writer = _writer(f"local:{tmp_path / 'store'}", tmp_path / f"killed{round_number}", "loop", f"r{round_number}",
                         *(["--deltas"] if deltas else []))
        committed = [writer.stdout.readline() for _ in range(2)]
        assert all(line.startswith("committed") for line in committed), writer.stderr.read()
        time.sleep(rng.uniform(0, 0.05))
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(30)
        reader = make_snapshotter(store, tmp_path / f"reader{round_number}")
        texts = texts_in(reader, "alice")
        assert texts[:2] == ["good one", "good two"] and f"r{round_number} item 1" in texts
        for row in list_generations(reader, "alice").generations:  # every generation on disk verifies
            assert reader.download_verified("alice", row.number, tmp_path / f"check{row.number}.sqlite")
    collect_garbage(reader, "alice", datetime.now(timezone.utc) + timedelta(days=1))
    assert not list((tmp_path / "store").rglob(".*.tmp"))
    with sqlite3.connect(tmp_path / "check1.sqlite") as conn:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
