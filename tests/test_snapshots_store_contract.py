"""One contract, every SnapshotStore adapter: a directory, moto's S3 server (S3 dialect) and an
OSS-like server (OSS dialect), the last two through the real oss2 client over loopback HTTP."""

from __future__ import annotations

import os
import threading

import pytest
from snapshot_support import moto_endpoint, oss_like, store  # noqa: F401 - fixtures

from engram_core.core.errors import GenerationExistsError
from engram_core.snapshots.ports import SnapshotStore

META = {"sha256": "ab" * 32, "codec": "zstd", "raw-size": "12", "schema": "2"}


def test_create_only_write_then_read_back(store: SnapshotStore) -> None:
    data = os.urandom(300_000)
    store.put_new("t/snap/000000000001.sqlite.zst", data, META)
    found = store.get("t/snap/000000000001.sqlite.zst")
    assert found is not None and found.data == data and dict(found.metadata) == META
    info = store.head("t/snap/000000000001.sqlite.zst")
    assert info is not None and info.size >= len(data) and dict(info.metadata) == META


def test_a_taken_key_is_never_overwritten(store: SnapshotStore) -> None:
    store.put_new("t/snap/000000000001.sqlite.zst", b"first", META)
    with pytest.raises(GenerationExistsError, match="already exists"):
        store.put_new("t/snap/000000000001.sqlite.zst", b"second", {"sha256": "cd" * 32})
    found = store.get("t/snap/000000000001.sqlite.zst")
    assert found is not None and found.data == b"first" and found.metadata["sha256"] == META["sha256"]


def test_exactly_one_of_many_racing_writers_wins(store: SnapshotStore) -> None:
    outcomes: list[str] = []
    barrier = threading.Barrier(16)

    def race(writer: int) -> None:
        barrier.wait()
        try:
            store.put_new("t/snap/000000000007.sqlite.zst", f"writer {writer}".encode(), META)
            outcomes.append(f"won {writer}")
        except GenerationExistsError:
            outcomes.append("lost")

    threads = [threading.Thread(target=race, args=(w,)) for w in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [o for o in outcomes if o.startswith("won")]
    assert len(winners) == 1 and outcomes.count("lost") == 15
    found = store.get("t/snap/000000000007.sqlite.zst")
    assert found is not None and found.data.decode() == "writer " + winners[0].split()[1]


def test_missing_objects_are_none(store: SnapshotStore) -> None:
    assert store.get("t/snap/000000000042.sqlite.zst") is None
    assert store.head("t/snap/000000000042.sqlite.zst") is None
    assert store.list("nobody/") == []


def test_put_replaces_a_small_advisory_object(store: SnapshotStore) -> None:
    store.put("t/latest", b"3", {})
    store.put("t/latest", b"4", {})
    found = store.get("t/latest")
    assert found is not None and found.data == b"4"


def test_list_is_by_prefix_in_key_order_and_can_start_after_a_key(store: SnapshotStore) -> None:
    for number in (3, 1, 2):
        store.put_new(f"a/snap/{number:012d}.sqlite.zst", b"x" * number, META)
    store.put_new("ab/snap/000000000001.sqlite.zst", b"other tenant", META)
    store.put("a/latest", b"3", {})
    listed = store.list("a/snap/")
    assert [i.key for i in listed] == [f"a/snap/{n:012d}.sqlite.zst" for n in (1, 2, 3)]
    assert [i.size for i in listed][0] >= 1 and all(i.modified.tzinfo is not None for i in listed)
    after = store.list("a/snap/", start_after="a/snap/000000000001.sqlite.zst")
    assert [i.key for i in after] == [f"a/snap/{n:012d}.sqlite.zst" for n in (2, 3)]
    assert {i.key for i in store.list("a/")} == {*(i.key for i in listed), "a/latest"}


def test_delete_removes_and_tolerates_missing_keys(store: SnapshotStore) -> None:
    store.put_new("t/snap/000000000001.sqlite.zst", b"x", META)
    store.delete(["t/snap/000000000001.sqlite.zst", "t/snap/000000000099.sqlite.zst"])
    assert store.get("t/snap/000000000001.sqlite.zst") is None and store.list("t/") == []


def test_location_names_the_store_without_credentials(store: SnapshotStore) -> None:
    assert store.location and "test-key-secret" not in store.location
