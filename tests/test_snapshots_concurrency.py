"""Sixteen writers, fifty read-modify-write commits each, one tenant: all 800 memories arrive, none twice.

Writers are spread over four instances (each with its own warm cache), as threads of one process and
as separate processes, so that create-only commits really race; every lost race must reload and
re-apply its operations. Writers queued inside one instance may share a commit. Each runs with whole
generations and with delta generations (a lost race there must also rebuild from the winner's delta).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from snapshot_support import (  # noqa: F401
    DELTAS, WHOLE, make_snapshotter, moto_endpoint, new_bucket, oss_store, remember, texts_in,
)

from engram_core.snapshots.local import LocalDirStore

HERE = Path(__file__).resolve().parent
WRITERS, COMMITS, INSTANCES = 16, 50, 4


def expected_texts(label: str) -> list[str]:
    return [f"{label} worker {w} item {i}" for w in range(WRITERS // INSTANCES) for i in range(COMMITS)]


def check_everything_arrived_once(store, tmp_path: Path, labels: list[str]) -> None:
    reader = make_snapshotter(store, tmp_path / "final-reader")
    counted = Counter(texts_in(reader, "shared"))
    wanted = Counter(t for label in labels for t in expected_texts(label))
    assert sum(counted.values()) == WRITERS * COMMITS
    assert counted == wanted  # zero lost, zero duplicated
    assert reader.newest_generation("shared") <= WRITERS * COMMITS  # queued writers may share a commit


@pytest.fixture(params=["local", "moto-s3"])
def shared_store(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "local":
        return f"local:{tmp_path / 'store'}", LocalDirStore(tmp_path / "store")
    endpoint = request.getfixturevalue("moto_endpoint")
    bucket = new_bucket(endpoint)
    return f"s3:{endpoint}/{bucket}", oss_store(endpoint, "s3", bucket=bucket)


@pytest.fixture(params=["whole", "deltas"])
def generations(request: pytest.FixtureRequest) -> str:
    return request.param


def _policy(generations: str) -> dict:
    return {"compaction": DELTAS if generations == "deltas" else WHOLE}


def test_sixteen_threads_lose_nothing(shared_store, generations: str, tmp_path: Path) -> None:
    _, store = shared_store
    instances = [make_snapshotter(store, tmp_path / f"instance{i}", attempts=1000, **_policy(generations))
                 for i in range(INSTANCES)]
    failures: list[BaseException] = []

    def work(writer: int) -> None:
        instance, label = instances[writer % INSTANCES], f"instance{writer % INSTANCES}"
        for item in range(COMMITS):
            try:
                instance.run("shared", remember(f"{label} worker {writer // INSTANCES} item {item}"))
            except BaseException as exc:
                failures.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    check_everything_arrived_once(store, tmp_path, [f"instance{i}" for i in range(INSTANCES)])
    assert sum(i.counters.conflicts for i in instances) > 0  # the commits really raced
    assert sum(i.counters.quarantined for i in instances) == 0
    _check_kinds(store, generations)


def _check_kinds(store, generations: str) -> None:
    codecs = {store.head(i.key).metadata.get("codec") for i in store.list("shared/snap/")}
    assert codecs == ({"zstd", "zstd-pages"} if generations == "deltas" else {"zstd"})


def test_sixteen_writers_in_four_processes_lose_nothing(shared_store, generations: str,
                                                         tmp_path: Path) -> None:
    spec, store = shared_store
    per_process = WRITERS // INSTANCES
    flags = ["--deltas"] if generations == "deltas" else ["--whole"]
    procs = [subprocess.Popen([sys.executable, str(HERE / "snapshot_writer.py"), spec, "shared",
                               str(tmp_path / f"process{p}"), "rmw", str(per_process), str(COMMITS), f"process{p}",
                               *flags],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for p in range(INSTANCES)]
    summaries, logs = [], []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        summaries.append(json.loads(out.strip().splitlines()[-1]))
        logs.append(err)
    assert [s["failures"] for s in summaries] == [[]] * INSTANCES, logs
    assert [s["quarantined"] for s in summaries] == [0] * INSTANCES, logs  # healthy writers write no bad generation
    check_everything_arrived_once(store, tmp_path, [f"process{p}" for p in range(INSTANCES)])
    assert sum(s["conflicts"] for s in summaries) > 0
    _check_kinds(store, generations)
