"""``engram bench scale``: recall and observe latency at 1,000 to 100,000 memories.

The store is filled directly through the SQLite adapter (synthetic sentences,
vectors from the hashing embedder at the chosen dimension; created over the past
year, all recently used so none has faded), because the write path would spend
minutes on what this suite does not measure. Then, through the Engine: the first
recall (it loads the recall index), recall latency over many queries, observe
latency, peak RSS, and the physical floor: one numpy matrix-vector product over
the same embedding matrix.
"""

from __future__ import annotations

import gc
import random
import resource
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import click
import numpy as np
from threadpoolctl import threadpool_limits

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.hashing import HashingEmbedder
from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.adapters.tokens import default_token_counter
from engram_bench.common import (
    BENCH_START, Figure, Report, Series, Table, emit, machine_notes, output_options, progress, require_plotting,
)
from engram_core.cli.common import handle_errors
from engram_core.core.config import EngineConfig
from engram_core.usecases.engine import Engine
from engram_core.core.errors import ValidationError
from engram_core.core.model import Embedding, Memory, MemoryKind
from engram_core.core.retention import initial_stability
from engram_core.usecases.runtime import EMBEDDER_KEY

_WHO = [w.replace("-", " ") for w in "I my-sister my-manager our-team my-neighbour the-landlord my-cousin".split()]
_DID = ("booked", "cancelled", "talked about", "bought", "fixed", "planned", "visited", "lost", "found", "painted",
        "ordered", "returned", "moved", "signed up for", "finished", "borrowed", "repaired", "sold", "photographed")
_TRAIT = ("old", "new", "blue", "broken", "tiny", "famous", "rented", "second-hand", "wooden", "expensive", "noisy",
          "vintage", "shared", "spare", "borrowed", "folding", "electric", "handmade", "quiet", "crowded")
_THING = ("bicycle", "kitchen sink", "birthday party", "pottery class", "garden fence", "concert ticket", "tax form",
          "climbing course", "car insurance", "sourdough starter", "office plant", "chess set", "sailing boat",
          "piano", "laptop", "wedding venue", "dentist appointment", "camping tent", "tram pass", "violin",
          "bookshelf", "guitar amp", "rain jacket", "espresso machine", "train ticket to Porto", "yoga mat",
          "science fair project", "passport photo", "lawn mower", "film camera", "ski rental", "dog bed",
          "museum membership", "quarterly report", "vegetable patch", "winter coat", "moving van", "hiking map")
_WHEN = ("on Monday", "last weekend", "after work", "in the morning", "before lunch", "this spring",
         "during the holidays", "at night", "with friends", "for the first time", "in March", "yesterday")
_KINDS = (MemoryKind.EPISODE,) * 6 + (MemoryKind.FACT, MemoryKind.FACT, MemoryKind.PREFERENCE)


def synthetic_sentence(rng: random.Random) -> str:
    what = f"the {rng.choice(_TRAIT)} {rng.choice(_THING)}"
    who = rng.choice(_WHO)
    return f"{who[0].upper()}{who[1:]} {rng.choice(_DID)} {what} {rng.choice(_WHEN)}."


def _memory(number: int, text: str, vector: np.ndarray, rng: random.Random, config: EngineConfig,
            model_id: str) -> Memory:
    kind, importance = rng.choice(_KINDS), round(rng.uniform(0.35, 0.85), 3)
    created = BENCH_START - timedelta(hours=rng.uniform(0, 24 * 365))
    accessed = max(created, BENCH_START - timedelta(hours=rng.uniform(0, 48)))
    return Memory(id=f"mem_{number:07d}", kind=kind, text=text, importance=importance,
                  stability_hours=initial_stability(kind, importance, config) * 4, created_at=created,
                  last_accessed_at=accessed, embedding=Embedding(vector, model_id))


def fill_store(store: SqliteStore, embedder: HashingEmbedder, count: int, seed: int, config: EngineConfig) -> None:
    rng = random.Random(seed)
    texts = [synthetic_sentence(rng) for _ in range(count)]
    with store.transaction():
        store.set_meta(EMBEDDER_KEY, f"{embedder.model_id}:{embedder.dim}")
        for start in progress(range(0, count, 2000), f"fill {count:,}", unit="batch"):
            chunk = texts[start:start + 2000]
            for offset, (text, vector) in enumerate(zip(chunk, embedder.embed(chunk), strict=True)):
                store.insert_memory(_memory(start + offset, text, vector, rng, config, embedder.model_id))


def percentile(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q)) if samples else 0.0


def _timed(call) -> float:  # noqa: ANN001 - a zero-argument callable
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000.0


def _timed_cpu(call) -> tuple[float, float]:  # noqa: ANN001 - a zero-argument callable
    """(wall ms, process CPU ms): on a shared machine the CPU time shows the work, the wall time the wait too."""
    cpu = time.process_time()
    wall = _timed(call)
    return wall, (time.process_time() - cpu) * 1000.0


@dataclass(frozen=True)
class ScalePoint:
    memories: int
    dim: int
    fill_s: float
    first_recall_ms: float
    first_recall_cpu_ms: float
    warmup_queries: int
    warmup_p95_ms: float  # the recalls that fill the caches: postings of new words, lines of new candidates
    recall_p50_ms: float
    recall_p95_ms: float
    recall_cpu_p50_ms: float
    recall_cpu_p95_ms: float
    recall_max_ms: float
    full_gcs: int  # full (generation 2) garbage collections during the timed recalls
    full_gc_max_ms: float
    full_gc_max_cpu_ms: float
    entries_read: int  # memories whose full entry the index read (as candidates) by the end of the timed recalls
    floor_p50_ms: float
    observe_p50_ms: float
    observe_p95_ms: float
    peak_rss_mb: float

    @property
    def floor_ratio(self) -> float:
        return self.recall_p95_ms / self.floor_p50_ms if self.floor_p50_ms else 0.0


def _floor_ms(engine: Engine, dim: int, repeats: int) -> float:
    """numpy reading the same embedding matrix once: one matrix-vector product."""
    index = engine._rt.index()
    matrix = index.vectors[: index.size()]
    query = np.full(dim, 1 / np.sqrt(dim), dtype=matrix.dtype)  # the dtype recall's query has: no upcast
    return percentile([_timed(lambda: matrix @ query) for _ in range(repeats)], 50)


class FullCollections:
    """Times of the full garbage collections while it is open (``gc.callbacks``: this process only)."""

    def __init__(self) -> None:
        self.pauses: list[float] = []  # wall ms
        self.cpu: list[float] = []  # process CPU ms: on a shared machine the wall time holds the wait too
        self._started = (0.0, 0.0)

    def _callback(self, phase: str, info: dict) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._started = (time.perf_counter(), time.process_time())
        else:
            self.pauses.append((time.perf_counter() - self._started[0]) * 1000.0)
            self.cpu.append((time.process_time() - self._started[1]) * 1000.0)

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._callback)


def measure(count: int, dim: int, queries: int, seed: int, warmup: int = 0) -> ScalePoint:
    config, embedder, rng = EngineConfig(), HashingEmbedder(dim), random.Random(seed + 1)
    store = SqliteStore(":memory:")
    started = time.perf_counter()
    fill_store(store, embedder, count, seed, config)
    fill_s = time.perf_counter() - started
    clock, tokens = FixedClock(BENCH_START), default_token_counter()
    tokens.count("loaded")  # the vocabulary loads once per process (~0.2 s), not per tenant: not in the first recall
    engine = Engine(store, embedder=embedder, llm=OfflineLLM(), tokens=tokens, clock=clock, config=config)
    try:
        asks = [synthetic_sentence(rng).rstrip(".") + "?" for _ in range(1 + warmup + queries)]
        first, first_cpu = _timed_cpu(lambda: engine.recall(asks[0], 1024))
        warming = [_timed(lambda q=q: engine.recall(q, 1024)) for q in asks[1:1 + warmup]]
        with FullCollections() as collections:
            timed = [_timed_cpu(lambda q=q: engine.recall(q, 1024))
                     for q in progress(asks[1 + warmup:], f"recall {count:,}", unit="q")]
        recall, cpu = [wall for wall, _ in timed], [used for _, used in timed]
        entries_read = engine._rt.index().entries.read_so_far()
        floor = _floor_ms(engine, dim, max(queries, 50))
        observe = []
        for number in range(max(queries // 2, 20)):
            clock.advance(timedelta(minutes=1))
            text = synthetic_sentence(rng)
            observe.append(_timed(lambda t=text, n=number: engine.observe(t, message_id=f"scale-{n}")))
    finally:
        engine.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return ScalePoint(count, dim, fill_s, first, first_cpu, warmup, percentile(warming, 95),
                      percentile(recall, 50), percentile(recall, 95),
                      percentile(cpu, 50), percentile(cpu, 95), max(recall), len(collections.pauses),
                      max(collections.pauses, default=0.0), max(collections.cpu, default=0.0), entries_read, floor,
                      percentile(observe, 50), percentile(observe, 95), peak)


def _sizes(text: str, field: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError as exc:
        raise ValidationError(f"{field} must be whole numbers separated by commas, got {text!r}", field=field) from exc
    if not values or min(values) <= 0:
        raise ValidationError(f"{field} must be positive, got {text!r}", field=field)
    return values


def build_report(points: list[ScalePoint], settings: dict) -> Report:
    columns = ("memories", "dim", "first recall ms", "first recall CPU ms", "warm-up p95 ms", "recall p50 ms",
               "recall p95 ms", "recall CPU p50 ms", "recall CPU p95 ms", "recall max ms", "full GCs",
               "full GC max ms", "full GC max CPU ms", "entries read", "numpy floor ms", "p95 / floor",
               "observe p50 ms", "observe p95 ms", "peak RSS MB")
    rows = tuple((p.memories, p.dim, p.first_recall_ms, p.first_recall_cpu_ms, p.warmup_p95_ms, p.recall_p50_ms,
                  p.recall_p95_ms, p.recall_cpu_p50_ms, p.recall_cpu_p95_ms, p.recall_max_ms, p.full_gcs,
                  p.full_gc_max_ms, p.full_gc_max_cpu_ms, p.entries_read, p.floor_p50_ms, p.floor_ratio,
                  p.observe_p50_ms, p.observe_p95_ms, p.peak_rss_mb)
                 for p in points)
    report = Report("scale", settings, [Table("Latency by store size (budget 1,024 tokens)", columns, rows)])
    series = []
    for dim in dict.fromkeys(p.dim for p in points):
        mine = [p for p in points if p.dim == dim]
        xs = tuple(float(p.memories) for p in mine)
        series += [Series(f"warm-up p95, {dim}d", xs, tuple(p.warmup_p95_ms for p in mine)),
                   Series(f"recall p95, {dim}d", xs, tuple(p.recall_p95_ms for p in mine)),
                   Series(f"numpy floor, {dim}d", xs, tuple(p.floor_p50_ms for p in mine))]
    report.figures.append(Figure("latency", "Recall p95 (warm-up and steady) vs the numpy floor", "active memories",
                                 "ms (log)", tuple(series), log_x=True, log_y=True, log_base=10))
    report.results = {"points": [{**vars(p), "floor_ratio": p.floor_ratio} for p in points]}
    report.notes.append("peak RSS is the process's high-water mark so far (sizes run small to large)")
    warmup = points[0].warmup_queries if points else 0
    report.notes.append(f"recall p50/p95 over the recalls after the first {1 + warmup} (the first loads the index; "
                        f"the next {warmup} fill the caches, their p95 is the warm-up column)")
    machine = machine_notes()
    report.notes.append(f"machine load (1 min) at the end: {machine['load_1min']} on {machine['cpus']} CPUs")
    return report


@click.command(name="scale")
@click.option("--sizes", default="1000,10000,100000", show_default=True, help="Store sizes, comma-separated.")
@click.option("--dims", default="384,512", show_default=True, help="Vector dimensions, comma-separated.")
@click.option("--queries", default=200, show_default=True, type=click.IntRange(min=5), help="Recalls timed per size.")
@click.option("--warmup", default=50, show_default=True, type=click.IntRange(min=0),
              help="Recalls after the first that fill the caches, timed apart from the rest.")
@click.option("--seed", default=7, show_default=True, type=int)
@output_options
@handle_errors
def command(sizes: str, dims: str, queries: int, warmup: int, seed: int, json_path: Path | None,
            plot_dir: Path | None) -> None:
    """Recall p50/p95 and observe latency by store size and vector dimension, against the numpy floor."""
    require_plotting(plot_dir)
    chosen_sizes, chosen_dims = sorted(_sizes(sizes, "sizes")), _sizes(dims, "dims")
    with threadpool_limits(limits=1, user_api="blas"):  # as `engram serve` and `engram mcp` run recall; floor alike
        points = [measure(n, d, queries, seed, warmup) for d in chosen_dims for n in chosen_sizes]
    settings = {"sizes": sizes, "dims": dims, "queries": queries, "warmup": warmup, "seed": seed,
                "embedder": "hashing (per dim)",
                "blas_threads": 1}
    emit(build_report(points, settings), json_path, plot_dir)
