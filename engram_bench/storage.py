"""``engram bench storage``: snapshot load and commit latency, warm-cache cost and bytes per memory.

For each tenant size a database is built in bulk (one message, one memory with a
dense 512-dimension vector and two audit events per memory, as ``remember``
writes them), committed as generation 1, then measured against a local
directory and, when moto is installed, moto's S3 server on loopback:

- cold load: a new instance (empty warm cache) downloads, verifies and opens it;
- warm read: an instance that has it checks for a newer generation (one
  request), copies its cached file, opens it and reads one memory;
- commit: a warm read-modify-write that adds one memory and uploads the next
  generation create-only (a delta of the pages it changed, see snapshots/deltas.py), wall and CPU time
  (CPU of this process: the commit, and the loopback OSS front's threads for moto);
- bytes per memory: the sealed full generation (zstd) over the number of memories; stored bytes per
  memory: every generation in the store after the commits (the full one and its deltas).
"""

from __future__ import annotations

import hashlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np

from engram_bench.common import Report, Table, bench_settings, emit, output_options, progress
from engram_bench.oss_front import create_bucket, loopback_oss
from engram_bench.processes import moto_server
from engram_core.cli.common import handle_errors
from engram_core.core.errors import ValidationError

if TYPE_CHECKING:  # the engine and the snapshot layer load when a measurement runs
    from engram_core.snapshots.ports import SnapshotStore
    from engram_core.snapshots.settings import OssSettings
    from engram_core.snapshots.snapshotter import Snapshotter
    from engram_core.usecases.engine import Engine
    from engram_core.core.model import Memory
    from engram_core.core.ports import TenantStore

TENANT = "bench"
DIM = 512
DEFAULT_SIZES = "100,1000,10000,50000"
WORDS = ("the we our trip dinner flight team project coffee garden weekend sister mother doctor school "
         "book movie music game city beach hike run swim yoga bread soup fish rice cake tea wine plan "
         "meeting deadline report budget office client call email ticket hotel train bus car bike paint "
         "photo dog cat bird friend party birthday wedding gift song concert museum park lake river "
         "mountain snow rain sun morning evening tonight tomorrow yesterday always never often maybe "
         "love like hate enjoy prefer remember forget started finished moved changed bought sold lost "
         "found new old big small quiet loud early late happy tired busy calm").split()
# moto routes requests by a SigV4 credential scope it looks for in the Authorization header; an OSS
# signature with exactly four '/' would be misread as one, so this key id has more slashes than a scope.
MOTO_KEY_ID, MOTO_KEY_SECRET = "engram/bench/has/no/aws/scope", "bench-secret"


class DenseBenchEmbedder:
    """Deterministic dense unit vectors (like a real 512-dimension model's), without a model."""

    model_id = "bench-dense"
    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([_dense_vector(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)


def _dense_vector(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
    vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def bench_engine(path: Path) -> Engine:
    from engram_core.adapters.clock import SystemClock
    from engram_core.adapters.offline.llm import OfflineLLM
    from engram_core.adapters.sqlite_store import SqliteStore
    from engram_core.adapters.tokens import default_token_counter
    from engram_core.usecases.engine import Engine

    return Engine(SqliteStore(path), embedder=DenseBenchEmbedder(), llm=OfflineLLM(),
                  tokens=default_token_counter(), clock=SystemClock())


# -- building a tenant of N memories -----------------------------------------------------

def _sentence(rng: np.random.Generator, number: int) -> str:
    words = rng.choice(WORDS, size=int(rng.integers(12, 26)))
    return f"{' '.join(words).capitalize()} (note {number})."


def bulk_insert(count: int, first: int = 0, seed: int = 7) -> Callable:
    """An operation that writes ``count`` memories the way ``remember`` lays them out (without the model
    work, so that only storage is measured)."""

    def operation(engine: Engine) -> None:
        rng = np.random.default_rng(seed + first)
        with engine.store.transaction():
            engine.store.set_meta("embedder", f"{DenseBenchEmbedder.model_id}:{DIM}")
            for n in range(first, first + count):
                _insert_one(engine.store, n, _sentence(rng, n))

    return operation


def _insert_one(store: TenantStore, n: int, text: str) -> None:
    from engram_core.core.model import Embedding, Event, EventKind, Memory, MemoryKind, Message

    when = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc) + timedelta(minutes=n)
    message = Message(f"msg_{n:08d}", "user", f"s{n // 40}", text, when, when, speaker="user")
    memory = Memory(f"mem_{n:08d}", MemoryKind.EPISODE, text, 0.5, 72.0, when, when, provenance=(message.id,),
                    session_id=message.session_id,
                    embedding=Embedding(_dense_vector(text), DenseBenchEmbedder.model_id))
    store.insert_message(message)
    store.insert_memory(memory)
    store.insert_events([
        Event(f"evt_{n:08d}a", when, EventKind.OBSERVED, message_id=message.id),
        Event(f"evt_{n:08d}b", when, EventKind.STORED, memory_id=memory.id, detail=(("importance", 0.5),)),
    ])


def read_one(engine: Engine) -> Memory:
    """A point read, as an API handler makes one."""
    return engine.get_memory("mem_00000000")


# -- stores -------------------------------------------------------------------------------------

@contextmanager
def moto_store(oss: OssSettings) -> Iterator[object]:
    """moto's S3 server on a loopback port, with a fresh bucket, through the real OssStore."""
    from engram_core.snapshots.oss import OssStore

    with moto_server() as endpoint:
        create_bucket(endpoint, "engram-bench", MOTO_KEY_ID, MOTO_KEY_SECRET)
        settings = loopback_oss(oss, endpoint, MOTO_KEY_ID, MOTO_KEY_SECRET)
        yield OssStore.from_settings(settings, "engram-bench", "bench")


@contextmanager
def local_store() -> Iterator[object]:
    from engram_core.snapshots.local import LocalDirStore

    root = Path(tempfile.mkdtemp(prefix="engram-bench-store-"))
    try:
        yield LocalDirStore(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- measuring ------------------------------------------------------------------------------------

def _snapshotter(store: SnapshotStore, cache: Path) -> Snapshotter:
    from engram_core.snapshots.cache import WarmCache
    from engram_core.snapshots.snapshotter import Snapshotter

    return Snapshotter(store, bench_engine, WarmCache(cache, store.location, 4 << 30))


def _timed(action: Callable[[], object], times: int) -> list[float]:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _timed_cpu(action: Callable[[], object], times: int) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for _ in range(times):
        started, used = time.perf_counter(), time.process_time()
        action()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return wall, cpu


def _median_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _cold_load(store: SnapshotStore, workdir: Path, label: str) -> None:
    cache = workdir / f"cold-{label}-{time.perf_counter_ns()}"
    _snapshotter(store, cache).run(TENANT, read_one, write=False)
    shutil.rmtree(cache, ignore_errors=True)


def measure_size(store: SnapshotStore, count: int, repeat: int, workdir: Path) -> dict[str, float]:
    from engram_core.snapshots.layout import TenantKeys

    store.delete([i.key for i in store.list(f"{TENANT}/")])
    warm = _snapshotter(store, workdir / f"warm-{count}")
    warm.run(TENANT, bulk_insert(count))
    sealed = store.head(TenantKeys(TENANT).generation(1))
    cold_times = max(3, repeat // 3) if count >= 10_000 else repeat
    cold = _timed(lambda: _cold_load(store, workdir, str(count)), cold_times)
    read = _timed(lambda: warm.run(TENANT, read_one, write=False), repeat)
    known = warm.newest_generation(TENANT)
    check = _timed(lambda: warm.newest_generation(TENANT, known), repeat)
    numbers = iter(range(count, count + repeat))
    commit, commit_cpu = _timed_cpu(lambda: warm.run(TENANT, bulk_insert(1, first=next(numbers))), repeat)
    stored = store.list(f"{TENANT}/snap/")
    deltas = [i.size for i in stored[1:]]
    return {"memories": count, "payload": sealed.size, "raw": int(sealed.metadata.get("raw-size", 0)),
            "cold": _median_p95(cold), "read": _median_p95(read), "check": _median_p95(check),
            "commit": _median_p95(commit), "commit_cpu": statistics.median(commit_cpu),
            "delta": statistics.median(deltas) if deltas else 0, "stored": sum(i.size for i in stored)}


def _row(store_name: str, m: dict) -> tuple:
    return (store_name, m["memories"], *m["cold"], *m["read"], m["check"][0], *m["commit"], m["commit_cpu"],
            round(m["delta"]), round(m["payload"] / m["memories"]), round(m["raw"] / m["memories"]),
            round(m["stored"] / m["memories"]))


COLUMNS = ("store", "memories", "cold load ms", "cold load p95 ms", "warm read ms", "warm read p95 ms",
           "warm check ms", "commit ms", "commit p95 ms", "commit cpu ms", "delta bytes", "bytes/memory",
           "raw bytes/memory", "stored bytes/memory")


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise ValidationError(f"sizes must be whole numbers separated by commas, got {text!r}", field="sizes") from exc
    if not sizes or min(sizes) < 1:
        raise ValidationError(f"sizes must be positive, got {text!r}", field="sizes")
    return sizes


def _stores(names: str) -> list[tuple[str, Callable]]:
    chosen = [n.strip() for n in names.split(",") if n.strip()]
    known = {"local": local_store, "moto": lambda: moto_store(bench_settings().oss)}
    unknown = [n for n in chosen if n not in known]
    if unknown or not chosen:
        raise ValidationError(f"stores are local and/or moto, got {names!r}", field="stores")
    if "moto" in chosen and find_spec("moto") is None:
        raise ValidationError("the moto store needs moto: pip install 'moto[server]'", field="stores")
    return [(n, known[n]) for n in chosen]


def each_store_and_size(store_names: str, sizes: str, label: str) -> Iterator[tuple[str, SnapshotStore, int, Path]]:
    """Every (store, size) to measure, each store opened once, with a scratch folder removed afterwards."""
    chosen_sizes, stores = _sizes(sizes), _stores(store_names)
    workdir = Path(tempfile.mkdtemp(prefix=f"engram-bench-{label}-"))
    try:
        for name, opener in stores:
            with opener() as store:
                for count in progress(chosen_sizes, f"{label} {name}", unit="size"):
                    yield name, store, count, workdir
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def store_size_options(default_sizes: str, repeat_help: str) -> Callable[[Callable], Callable]:
    """The options of a bench over stores and tenant sizes: --sizes, --repeat, --stores, then --json and --plot."""
    def wrap(command: Callable) -> Callable:
        for option in reversed((
            click.option("--sizes", default=default_sizes, show_default=True,
                         help="Tenant sizes (memories), comma-separated."),
            click.option("--repeat", default=15, show_default=True, type=click.IntRange(min=3, max=1000),
                         help=repeat_help),
            click.option("--stores", "store_names", default="local,moto", show_default=True,
                         help="local (a directory) and/or moto (moto's S3 server on loopback, through oss2)."),
            output_options,
        )):
            command = option(command)
        return command
    return wrap


@click.command(name="storage")
@store_size_options(DEFAULT_SIZES, "Samples per figure (cold loads of big tenants take a third as many).")
@handle_errors
def command(sizes: str, repeat: int, store_names: str, json_path: Path | None, plot_dir: Path | None) -> None:
    """Snapshot load and commit latency, warm-cache cost and bytes per memory, per tenant size."""
    rows, started = [], time.perf_counter()
    for name, store, count, workdir in each_store_and_size(store_names, sizes, "storage"):
        rows.append(_row(name, measure_size(store, count, repeat, workdir)))
    report = Report("storage", {"sizes": sizes, "repeat": repeat, "stores": store_names, "dim": DIM})
    report.tables.append(Table("Snapshot storage (median and p95 latency, ms)", COLUMNS, tuple(rows)))
    report.results["rows"] = [dict(zip(COLUMNS, row, strict=True)) for row in rows]
    report.notes.append("commit = warm read-modify-write adding one memory on the writer's own copy (one listing, "
                        "write, the changed pages from the log, zstd, sha256, create-only upload of the delta)")
    report.notes.append(f"vectors: {DIM}-dimension dense, stored as int8 + scale; wall time "
                        f"{time.perf_counter() - started:.1f} s")
    emit(report, json_path, plot_dir)
