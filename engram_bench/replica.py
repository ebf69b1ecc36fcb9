"""``engram bench replica``: what a read replica pays for another instance's one-memory commit.

One instance (the writer) holds a tenant of N memories and commits one memory at a time; another (the
reader) holds a read replica of it, as ``engram serve`` does for reads, and answers one recall after each
commit. Two ways to bring the replica up to date are timed alternately on the same tenant, so both meet the
same load: *in place* (the new delta's pages written into the replica's file, which is opened again:
``engram_core/snapshots/replicas.py``) and *rebuilt* (the replica dropped and checked out afresh from the
warm cache and the deltas since it, as before). Each figure is from the listing to the recall's answer:
the refresh, the engine's open, the recall index (loaded from its stored columns) and the ranking, with
deterministic dense vectors (no model), so the storage path is what is measured.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engram_bench.common import Report, Table, emit
from engram_bench.storage import TENANT, _median_p95, _snapshotter, bulk_insert, each_store_and_size, store_size_options
from engram_core.cli.common import handle_errors

if TYPE_CHECKING:
    from engram_core.snapshots.checkout import Checkout
    from engram_core.snapshots.ports import SnapshotStore
    from engram_core.snapshots.snapshotter import Snapshotter

Refresh = Callable[["Snapshotter", "Checkout"], "Checkout"]
COLUMNS = ("store", "memories", "way", "refresh ms", "refresh p95", "refresh + recall ms", "+ recall p95", "cpu ms",
           "warm recall ms", "advanced in place")
WAYS = ("in place", "rebuilt")


def _recall(replica: Checkout) -> None:
    replica.engine.recall("the garden project with my sister this weekend", 512, reinforce=False)  # as POST /recall


def _in_place(reader: Snapshotter, replica: Checkout) -> Checkout:
    from engram_core.snapshots.replicas import GaveUp, refreshed

    fresh = refreshed(reader, replica)
    return reader.checkout(TENANT, fresh.seen) if isinstance(fresh, GaveUp) else fresh


def _rebuilt(reader: Snapshotter, replica: Checkout) -> Checkout:
    """As the tenant stores did before: the listing says it is stale, then a fresh checkout (its own listing)."""
    reader.newest_generation(TENANT, replica.base.generation)
    replica.discard()
    return reader.checkout(TENANT)


def _timed(refresh: Refresh, reader: Snapshotter, replica: Checkout) -> tuple[Checkout, tuple[float, ...]]:
    """The replica now, and (refresh ms, refresh + first recall ms, CPU ms of both, a second recall's ms)."""
    started, used = time.perf_counter(), time.process_time()
    replica = refresh(reader, replica)
    refreshed_at = time.perf_counter()
    _recall(replica)
    done, cpu = time.perf_counter(), (time.process_time() - used) * 1000
    _recall(replica)  # the index is loaded now: what is left is the ranking
    warm = (time.perf_counter() - done) * 1000
    return replica, ((refreshed_at - started) * 1000, (done - started) * 1000, cpu, warm)


def measure_size(store: SnapshotStore, count: int, repeat: int, workdir: Path) -> dict:
    store.delete([i.key for i in store.list(f"{TENANT}/")])
    writer = _snapshotter(store, workdir / f"writer-{count}")
    writer.run(TENANT, bulk_insert(count))
    reader = _snapshotter(store, workdir / f"reader-{count}")
    replica = reader.checkout(TENANT)
    _recall(replica)
    samples: dict[str, list[tuple[float, ...]]] = {way: [] for way in WAYS}
    for number in range(2 * repeat):
        writer.run(TENANT, bulk_insert(1, first=count + number))
        way = WAYS[number % 2]
        replica, figures = _timed(_in_place if way == "in place" else _rebuilt, reader, replica)
        samples[way].append(figures)
    replica.discard()
    return {"memories": count, "advanced": reader.counters.replica_advances, "tries": repeat,
            **{way: [sorted(column) for column in zip(*rows, strict=True)] for way, rows in samples.items()}}


def _rows(store_name: str, m: dict) -> list[tuple]:
    rows = []
    for way in WAYS:
        refresh, total, cpu, warm = m[way]
        advanced = f"{m['advanced']} of {m['tries']}" if way == "in place" else ""
        rows.append((store_name, m["memories"], way, *_median_p95(refresh), *_median_p95(total),
                     _median_p95(cpu)[0], _median_p95(warm)[0], advanced))
    return rows


@click.command(name="replica")
@store_size_options("1000,10000", "Samples per way and size.")
@handle_errors
def command(sizes: str, repeat: int, store_names: str, json_path: Path | None, plot_dir: Path | None) -> None:
    """A read replica after another instance's one-memory commit: brought up in place against rebuilt."""
    rows, started = [], time.perf_counter()
    for name, store, count, workdir in each_store_and_size(store_names, sizes, "replica"):
        rows += _rows(name, measure_size(store, count, repeat, workdir))
    report = Report("replica", {"sizes": sizes, "repeat": repeat, "stores": store_names})
    report.tables.append(Table("A replica's recall after another instance's commit (median and p95, ms)", COLUMNS,
                               tuple(rows)))
    report.results["rows"] = [dict(zip(COLUMNS, row, strict=True)) for row in rows]
    report.notes.append("refresh, in place: the listing, the new delta written into the replica's file, the engine "
                        "opened again; rebuilt: that listing, then a fresh checkout (its own listing, the deltas since "
                        "the warm cache's generation, a copy, the engine's open). + recall: the first recall on it, "
                        "which loads the recall index; warm recall: a second one (ranking only); cpu: this "
                        "process's CPU time for refresh + recall (the moto server's not included)")
    report.notes.append(f"wall time {time.perf_counter() - started:.1f} s")
    emit(report, json_path, plot_dir)
