"""A separate writer process for the snapshot tests (concurrency across processes, crashes).

    python snapshot_writer.py STORE TENANT CACHE_DIR rmw WORKERS COUNT LABEL [--deltas | --whole]
    python snapshot_writer.py STORE TENANT CACHE_DIR loop LABEL [--deltas | --whole]

STORE is ``local:/path`` or ``s3:http://127.0.0.1:PORT/bucket``. ``rmw`` runs WORKERS threads that
each commit COUNT memories and prints a JSON summary; ``loop`` commits until it is killed, printing
one line per commit. ``--deltas`` commits delta generations (snapshot_support.DELTAS), ``--whole`` only
whole ones.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from snapshot_support import DELTAS, WHOLE, make_snapshotter, oss_store, remember

from engram_core.snapshots.local import LocalDirStore


def open_store(spec: str):
    kind, _, rest = spec.partition(":")
    if kind == "local":
        return LocalDirStore(rest)
    endpoint, _, bucket = rest.rpartition("/")
    return oss_store(endpoint, "s3", bucket=bucket)


def read_modify_write(snapshots, tenant: str, workers: int, count: int, label: str) -> None:
    failures: list[str] = []

    def work(worker: int) -> None:
        for item in range(count):
            try:
                snapshots.run(tenant, remember(f"{label} worker {worker} item {item}"))
            except Exception as exc:
                failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counters = snapshots.counters
    print(json.dumps({"commits": counters.commits, "conflicts": counters.conflicts,
                      "quarantined": counters.quarantined, "failures": failures}))


def commit_forever(snapshots, tenant: str, label: str) -> None:
    item = 0
    while True:
        snapshots.run(tenant, remember(f"{label} item {item}"))
        print(f"committed {item}", flush=True)
        item += 1


def main(argv: list[str]) -> None:
    extra = {"compaction": DELTAS} if "--deltas" in argv else {"compaction": WHOLE} if "--whole" in argv else {}
    spec, tenant, cache, mode, *rest = [a for a in argv if a not in ("--deltas", "--whole")]
    snapshots = make_snapshotter(open_store(spec), Path(cache), attempts=1000, **extra)
    if mode == "rmw":
        read_modify_write(snapshots, tenant, int(rest[0]), int(rest[1]), rest[2])
    else:
        commit_forever(snapshots, tenant, rest[0])


if __name__ == "__main__":
    main(sys.argv[1:])
