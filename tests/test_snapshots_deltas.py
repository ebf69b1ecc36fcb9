"""Delta generations over every adapter: a commit writes only the pages it changed, readers rebuild the
newest state from the last full snapshot (or their warm copy) and its deltas byte for byte, chains stay
bounded, and the storage guarantees hold for deltas: a damaged delta is quarantined and the state before
it served, a purge leaves no object holding the purged text, gc keeps what a reader of a kept generation
needs. (Concurrency and crashes with deltas: test_snapshots_concurrency.py, test_snapshots_faults.py,
test_functions_snapshots.py.)"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import zstandard
from snapshot_support import (  # noqa: F401 - fixtures
    DELTAS, make_snapshotter, moto_endpoint, oss_like, remember, store, texts_in,
)

from engram_core.snapshots.admin import restore
from engram_core.snapshots.collection import collect_garbage
from engram_core.snapshots.deltas import CompactionPolicy
from engram_core.snapshots.layout import TenantKeys
from engram_core.snapshots.local import LocalDirStore
from engram_core.snapshots.ports import SnapshotStore
from engram_core.snapshots.retention import RetentionPolicy

KEYS = TenantKeys("alice")


def codecs(store: SnapshotStore) -> list[str]:
    return [store.head(i.key).metadata.get("codec") for i in store.list(KEYS.snap_prefix)]


def cached_bytes(snapshots) -> bytes:
    """The instance's newest copy: its head (the file its last operation left), else its cached generation."""
    head = snapshots.heads.peek("alice")
    return (head.path if head is not None else snapshots.cache.newest("alice").path).read_bytes()


def test_commits_after_the_first_write_only_their_changed_pages(store: SnapshotStore, tmp_path: Path) -> None:
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    for n in range(5):
        writer.run("alice", remember(f"note {n} about the garden"))
    assert codecs(store) == ["zstd"] + ["zstd-pages"] * 4
    full = store.head(KEYS.generation(1)).size
    assert all(store.head(KEYS.generation(n)).size < full for n in range(2, 6))
    reader = make_snapshotter(store, tmp_path / "reader")
    assert texts_in(reader, "alice") == [f"note {n} about the garden" for n in range(5)]
    assert cached_bytes(reader) == cached_bytes(writer)  # base + deltas is the writer's file, byte for byte


def _operations(memory_ids: list[str]):
    return [
        ("remember", lambda e: memory_ids.append(e.remember("I live in Paris", kind="fact", importance=0.8)
                                                 .memories[0].id)),
        ("supersede", lambda e: e.remember("I live in Berlin now", kind="fact", importance=0.8)),
        ("chat", lambda e: e.chat("Where do I live? Also I like green tea.", session_id="s1")),
        ("recall and reinforce", lambda e: e.recall("where do I live", 200)),
        ("forget", lambda e: e.forget(memory_ids[0])),
        ("many at once", lambda e: [e.remember(f"bulk note {n} " + "word " * 80, kind="episode") for n in range(40)]),
        ("sleep", lambda e: e.sleep()),
        ("purge", lambda e: e.forget(memory_ids[0], purge=True)),
        ("after the purge", lambda e: e.remember("A note after the purge", kind="episode")),
    ]


def test_every_kind_of_write_rebuilds_to_the_writers_file_cold_and_warm(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    warm = make_snapshotter(store, tmp_path / "warm")
    writer.run("alice", remember("a first note"))
    texts_in(warm, "alice")
    for number, (name, operation) in enumerate(_operations([]), start=2):
        writer.run("alice", operation)
        assert writer.newest_generation("alice") == number, name
        cold = make_snapshotter(store, tmp_path / f"cold-{number}")
        assert texts_in(cold, "alice") == texts_in(warm, "alice") == texts_in(writer, "alice"), name
        assert cached_bytes(cold) == cached_bytes(warm) == cached_bytes(writer), name
    assert "zstd-pages" in codecs(store)


def test_a_chain_is_bounded_by_count_and_by_share(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    writer = make_snapshotter(store, tmp_path / "count", compaction=CompactionPolicy(max_chain=3, max_share=1000))
    for n in range(8):
        writer.run("alice", remember(f"note {n}"))
    assert codecs(store) == ["zstd", "zstd-pages", "zstd-pages", "zstd-pages"] * 2
    other = LocalDirStore(tmp_path / "other")
    small = make_snapshotter(other, tmp_path / "share", compaction=CompactionPolicy(max_chain=32, max_share=0.001))
    for n in range(3):
        small.run("alice", remember(f"note {n}"))
    assert [other.head(i.key).metadata.get("codec") for i in other.list(KEYS.snap_prefix)] == ["zstd"] * 3


def test_a_warm_reader_fetches_only_the_deltas_it_lacks(tmp_path: Path) -> None:
    from test_snapshots_snapshotter import CountingStore

    store = LocalDirStore(tmp_path / "store")
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    for n in range(3):
        writer.run("alice", remember(f"note {n}"))
    counting = CountingStore(store)
    reader = make_snapshotter(counting, tmp_path / "reader")
    texts_in(reader, "alice")
    writer.run("alice", remember("note 3"))
    writer.run("alice", remember("note 4"))
    counting.calls.clear()
    assert texts_in(reader, "alice")[-2:] == ["note 3", "note 4"]
    fetched = [c[1] for c in counting.calls if c[0] == "get" and "/snap/" in c[1]]
    assert fetched == [KEYS.generation(5), KEYS.generation(4)]  # the newest names its chain; nothing older


def _replace(store: SnapshotStore, number: int, data: bytes, metadata: dict) -> None:
    store.delete([KEYS.generation(number)])
    store.put_new(KEYS.generation(number), data, metadata)


def _flipped(payload: bytes) -> bytes:
    middle = len(payload) // 2
    return payload[:middle] + bytes([payload[middle] ^ 0x40]) + payload[middle + 1:]


def _relinked(payload: bytes, metadata: dict) -> tuple[bytes, dict]:
    """A delta with a valid checksum that claims to follow from some other generation."""
    return payload, {**metadata, "parent-sha256": hashlib.sha256(b"another generation").hexdigest()}


@pytest.mark.parametrize("damage", ["flipped", "truncated", "relinked"])
def test_a_damaged_delta_is_quarantined_and_the_state_before_it_served(store: SnapshotStore, tmp_path: Path,
                                                                       damage: str) -> None:
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    for n in range(4):
        writer.run("alice", remember(f"good {n}"))
    found = store.get(KEYS.generation(3))
    metadata = dict(found.metadata)
    if damage == "flipped":
        _replace(store, 3, _flipped(found.data), metadata)
    elif damage == "truncated":
        _replace(store, 3, found.data[: len(found.data) // 2], metadata)
    else:
        _replace(store, 3, *_relinked(found.data, metadata))
    reader = make_snapshotter(store, tmp_path / "reader")
    assert texts_in(reader, "alice") == ["good 0", "good 1"]  # generations 3 and 4 cannot be built
    assert store.get(KEYS.quarantine(3)) is not None and reader.counters.quarantined == 1
    reader.run("alice", remember("after the damage"))  # commits 5, whole: it follows from 2, not from 4
    assert codecs(store)[-1] == "zstd"
    assert texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice") == ["good 0", "good 1", "after the damage"]


def _every_stored_byte(store: SnapshotStore) -> bytes:
    blobs = []
    for info in store.list(""):
        found = store.get(info.key)
        blobs.append(found.data)
        if info.key.endswith(".zst"):
            blobs.append(zstandard.ZstdDecompressor().decompress(found.data))
    return b"".join(blobs)


def test_a_purge_leaves_no_delta_or_snapshot_holding_the_purged_text(store: SnapshotStore, tmp_path: Path) -> None:
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    warm = make_snapshotter(store, tmp_path / "warm", compaction=DELTAS)
    writer.run("alice", remember("an opening note"))
    secret = "Zyrtecillin-4471 is my prescription"
    memory_id = writer.run("alice", lambda e: e.remember(secret, kind="fact", importance=0.9)).memories[0].id
    writer.run("alice", remember("unrelated note one"))
    assert secret in texts_in(warm, "alice")
    assert b"Zyrtecillin" in _every_stored_byte(store)  # the probe finds it while it is stored
    writer.run("alice", lambda e: e.forget(memory_id, purge=True))
    warm.run("alice", remember("written by the warm instance"))  # a delta on the purged full snapshot
    stored = _every_stored_byte(store)
    assert b"Zyrtecillin" not in stored and b"zyrtecillin" not in stored
    assert codecs(store) == ["zstd", "zstd-pages"]
    assert texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice") == [
        "an opening note", "unrelated note one", "written by the warm instance"]


def test_gc_keeps_the_full_snapshot_a_kept_delta_needs_and_compaction_frees_it(store: SnapshotStore,
                                                                                tmp_path: Path) -> None:
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS,
                              retention=RetentionPolicy(1, timedelta(0)))
    for n in range(5):
        writer.run("alice", remember(f"note {n}"))
    later = datetime.now(timezone.utc) + timedelta(hours=2)
    assert collect_garbage(writer, "alice", later).deleted == ()  # 5 is a delta: 1..4 are its chain
    assert len(texts_in(make_snapshotter(store, tmp_path / "cold"), "alice")) == 5
    report = writer.collect_garbage("alice", later)  # the sleep job's call: compact, then collect
    assert report.deleted == (1, 2, 3, 4, 5) and report.kept == (6,)
    assert codecs(store) == ["zstd"]
    assert texts_in(make_snapshotter(store, tmp_path / "after"), "alice") == [f"note {n}" for n in range(5)]
    assert writer.collect_garbage("alice", later).deleted == ()  # a full newest: nothing to compact


def test_restore_of_a_delta_generation_writes_its_state_whole(store: SnapshotStore, tmp_path: Path) -> None:
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    for n in range(4):
        writer.run("alice", remember(f"note {n}"))
    assert restore(writer, "alice", 3) == 5
    assert codecs(store)[-1] == "zstd"
    assert texts_in(make_snapshotter(store, tmp_path / "fresh"), "alice") == ["note 0", "note 1", "note 2"]


def test_a_writer_commits_on_its_own_copy_in_place_and_brings_it_up_to_date_with_deltas(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    other = make_snapshotter(store, tmp_path / "other", compaction=DELTAS)
    for n in range(3):
        writer.run("alice", remember(f"note {n}"))
    head = writer.heads.peek("alice")
    assert head is not None and head.generation == 3
    other.run("alice", remember("from the other instance"))  # generation 4, a delta
    writer.run("alice", remember("note 3"))  # the head takes 4's pages in place, then commits 5
    after = writer.heads.peek("alice")
    assert after.workdir == head.workdir and after.generation == 5  # the same file, never copied again
    assert writer.counters.downloads == 0
    fresh = make_snapshotter(store, tmp_path / "fresh")
    assert texts_in(fresh, "alice") == ["note 0", "note 1", "note 2", "from the other instance", "note 3"]
    assert cached_bytes(fresh) == cached_bytes(writer)


def test_a_lost_race_or_a_failed_operation_leaves_no_head_behind(tmp_path: Path) -> None:
    store = LocalDirStore(tmp_path / "store")
    writer = make_snapshotter(store, tmp_path / "writer", compaction=DELTAS)
    for n in range(2):
        writer.run("alice", remember(f"note {n}"))

    def half_then_fail(engine):
        engine.remember("half-done write that must vanish", kind="episode", importance=0.9)
        raise ValueError("changed my mind")

    with pytest.raises(ValueError):
        writer.run("alice", half_then_fail)
    assert writer.heads.peek("alice") is None  # its pages were the failed write's
    assert texts_in(writer, "alice") == ["note 0", "note 1"]
    assert writer.heads.peek("alice") is not None  # a clean read leaves one again


def test_the_loser_of_a_race_takes_its_pages_back_and_keeps_its_copy(store: SnapshotStore, tmp_path: Path) -> None:
    mine = make_snapshotter(store, tmp_path / "mine", compaction=DELTAS)
    theirs = make_snapshotter(store, tmp_path / "theirs", compaction=DELTAS)
    mine.run("alice", remember("base"))
    mine.run("alice", remember("second"))  # generation 2: mine's head
    head = mine.heads.peek("alice")
    calls = []

    def operation(engine):
        calls.append(len(engine.memories()))
        if len(calls) == 1:  # another instance commits a delta while this one is working
            theirs.run("alice", remember("their write"))
        return engine.remember("my write " + "long " * 300, kind="episode", importance=0.9)

    mine.run("alice", operation)
    assert calls == [2, 3] and mine.counters.conflicts == 1
    assert mine.heads.peek("alice").workdir == head.workdir  # undone in place, advanced, committed: never copied
    assert codecs(store) == ["zstd", "zstd-pages", "zstd-pages", "zstd-pages"]
    fresh = make_snapshotter(store, tmp_path / "fresh")
    assert [t.split(" long")[0] for t in texts_in(fresh, "alice")] == ["base", "second", "their write", "my write"]
    assert cached_bytes(fresh) == cached_bytes(mine)
