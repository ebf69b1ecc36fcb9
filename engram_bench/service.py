"""``engram bench service``: the HTTP service as a client sees it, on the local store and on moto's S3 server.

For each store and tenant size, the tenant is filled directly (synthetic memories,
as ``engram bench mcp`` does; the write path is not what this measures), then
fresh server processes (``python -m functions``, the container's entry point)
are timed from process start to the first 200 on /healthz, through /initialize
(the model load FC's initializer hook pays), to the first /recall on the cold
tenant. A warm server then answers sequential /recall calls and /chat turns
(from ``--clients`` threads) over keep-alive connections; latencies are wall
clock at the client. Offline providers only; moto runs on loopback.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import click

from engram_bench.common import Report, Table, bench_settings, current_embedder_name, emit, output_options, progress
from engram_bench.mcp import TENANT, fill_tenant
from engram_bench.oss_front import LOOPBACK_REGION, create_bucket, loopback_oss
from engram_bench.processes import free_port, moto_server, stop
from engram_bench.scale import percentile, synthetic_sentence
from engram_core.cli.common import handle_errors
from engram_core.core.errors import ValidationError

COLD_HEALTHZ_TARGET_MS = 1500.0
WARM_RECALL_P95_TARGET_MS = 50.0
BENCH_KEY = "egk_bench-service-key"
BENCH_ADMIN_KEY = "egk_bench-service-admin-key"  # the lifecycle hooks need it off Function Compute
MOTO_KEY_ID, MOTO_SECRET = "engram/bench/not/an/aws/scope", "bench-secret"  # see tests/snapshot_support.py
START_TIMEOUT_S = 60


@dataclass(frozen=True)
class Cold:
    healthz_ms: float
    initialize_ms: float
    first_recall_ms: float


@dataclass(frozen=True)
class Warm:
    recall_ms: tuple[float, ...]
    chat_ms: tuple[float, ...]
    chat_wall_s: float


class Client:
    """One keep-alive HTTP/1.1 connection with the bench tenant's key."""

    def __init__(self, port: int) -> None:
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

    def call(self, method: str, path: str, body: dict | None = None, key: str = BENCH_KEY) -> float:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        started = time.perf_counter()
        self._conn.request(method, path, body=payload, headers=headers)
        response = self._conn.getresponse()
        text = response.read()
        elapsed = (time.perf_counter() - started) * 1000.0
        if response.status >= 400:
            raise click.ClickException(f"{method} {path} answered {response.status}: {text[:300]!r}")
        return elapsed

    def close(self) -> None:
        self._conn.close()


def _server_env(store: str, embedder: str, cache_dir: Path, extra: dict[str, str]) -> dict[str, str]:
    from engram_core.tenants.credentials import KeyEntry, hash_key

    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("ENGRAM_", "QWEN_CLOUD_", "DASHSCOPE_", "ALIBABA_CLOUD_", "FC_"))}
    keys = json.dumps([KeyEntry(tenant=TENANT, hash=hash_key(BENCH_KEY)).model_dump()])
    return {**keep, "ENGRAM_TENANT_STORE": store, "ENGRAM_EMBEDDER": embedder, "ENGRAM_PROVIDER": "offline",
            "ENGRAM_API_KEYS": keys, "ENGRAM_ADMIN_KEY": BENCH_ADMIN_KEY, "ENGRAM_RATE_BURST": "1000000",
            "ENGRAM_LOG_LEVEL": "WARNING",
            "ENGRAM_SNAPSHOT_CACHE_DIR": str(cache_dir), **extra}


def _wait_healthy(port: int, process: subprocess.Popen, started: float) -> float:
    while time.perf_counter() - started < START_TIMEOUT_S:
        if process.poll() is not None:
            raise click.ClickException(f"the server exited with status {process.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return (time.perf_counter() - started) * 1000.0
        except OSError:
            time.sleep(0.005)
    raise click.ClickException("the server did not answer /healthz in time")


@contextmanager
def server(env: dict[str, str]) -> Iterator[tuple[int, float]]:
    """A fresh server process; yields its port and the ms from process start to the first healthy answer."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "functions", "--host", "127.0.0.1", "--port", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield port, _wait_healthy(port, process, started)
    finally:
        stop(process, grace=30)


def _publish_to_moto(endpoint: str, local_root: Path) -> tuple[str, dict[str, str]]:
    """A bucket on moto holding the filled tenant as its first generation."""
    from engram_core.snapshots import open_snapshotter
    from engram_core.snapshots.codec import seal
    from engram_core.snapshots.layout import TenantKeys

    bucket = f"engram-bench-{random.randrange(16**8):08x}"
    create_bucket(endpoint, bucket, MOTO_KEY_ID, MOTO_SECRET)
    location = f"oss://{bucket}/tenants"
    settings = bench_settings()
    oss = loopback_oss(settings.oss, endpoint, MOTO_KEY_ID, MOTO_SECRET)
    with tempfile.TemporaryDirectory() as cache:
        snapshots = open_snapshotter(location, lambda path: None, oss=oss,
                                     settings=settings.snapshots.model_copy(update={"cache_dir": Path(cache)}))
        snapshots.publish(TenantKeys(TENANT), 1, seal((local_root / TENANT / "engram.sqlite").read_bytes()))
    env = {"ENGRAM_OSS_ENDPOINT": endpoint, "ENGRAM_OSS_DIALECT": "s3", "ENGRAM_OSS_REGION": LOOPBACK_REGION,
           "ENGRAM_OSS_ACCESS_KEY_ID": MOTO_KEY_ID,
           "ENGRAM_OSS_ACCESS_KEY_SECRET": MOTO_SECRET}
    return location, env


def _cold(env_for, queries: list[str], budget: int) -> Cold:  # noqa: ANN001 - cache dir -> env
    with tempfile.TemporaryDirectory() as cache, server(env_for(Path(cache))) as (port, healthz_ms):
        client = Client(port)
        initialize_ms = client.call("POST", "/initialize", key=BENCH_ADMIN_KEY)
        first = client.call("POST", "/recall", {"query": queries[0], "budget_tokens": budget})
        client.close()
    return Cold(healthz_ms, initialize_ms, first)


def _chat_turns(port: int, messages: list[str], clients: int, budget: int) -> tuple[list[float], float]:
    def run(share: list[str]) -> list[float]:
        client = Client(port)
        try:
            return [client.call("POST", "/chat", {"message": m, "session_id": "bench", "budget_tokens": budget})
                    for m in share]
        finally:
            client.close()

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        shares = list(pool.map(run, [messages[i::clients] for i in range(clients)]))
    return [ms for share in shares for ms in share], time.perf_counter() - started


def _warm(env: dict[str, str], queries: list[str], messages: list[str], clients: int, budget: int) -> Warm:
    with server(env) as (port, _):
        client = Client(port)
        client.call("POST", "/initialize")
        client.call("POST", "/recall", {"query": queries[0], "budget_tokens": budget})  # warms the tenant
        recalls = [client.call("POST", "/recall", {"query": q, "budget_tokens": budget})
                   for q in progress(queries[1:], "recall", unit="call")]
        client.close()
        chats, wall = _chat_turns(port, messages, clients, budget)
    return Warm(tuple(recalls), tuple(chats), wall)


def _row(store: str, memories: int, colds: list[Cold], warm: Warm) -> tuple:
    med = lambda values: statistics.median(values)  # noqa: E731 - a local shorthand
    return (store, memories, med(c.healthz_ms for c in colds), med(c.initialize_ms for c in colds),
            med(c.first_recall_ms for c in colds), percentile(list(warm.recall_ms), 50),
            percentile(list(warm.recall_ms), 95), percentile(list(warm.chat_ms), 50),
            percentile(list(warm.chat_ms), 95), len(warm.chat_ms) / warm.chat_wall_s)


COLUMNS = ("store", "memories", "cold /healthz ms", "/initialize ms", "cold 1st /recall ms", "/recall p50 ms",
           "/recall p95 ms", "/chat p50 ms", "/chat p95 ms", "turns/s")


def _measure(store: str, memories: int, embedder: str, options: dict, local_root: Path,
             moto: str | None) -> tuple:
    rng = random.Random(options["seed"] + memories)
    queries = [synthetic_sentence(rng).rstrip(".") + "?" for _ in range(options["recalls"] + 1)]
    messages = [f"Note {n}: {synthetic_sentence(rng)}" for n in range(options["turns"])]
    location, extra = (str(local_root), {}) if store == "local" else _publish_to_moto(moto, local_root)
    with tempfile.TemporaryDirectory() as warm_cache:
        env_for = lambda cache: _server_env(location, embedder, cache, extra)  # noqa: E731 - per-trial cache
        colds = [_cold(env_for, queries, options["budget"]) for _ in range(options["cold_trials"])]
        warm = _warm(env_for(Path(warm_cache)), queries, messages, options["clients"], options["budget"])
    return _row(store, memories, colds, warm)


def _parse_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise ValidationError(f"--memories takes whole numbers separated by commas, got {text!r}",
                              field="memories") from exc
    if not sizes or min(sizes) < 1:
        raise ValidationError(f"--memories must be positive, got {text!r}", field="memories")
    return sizes


def _parse_stores(text: str) -> tuple[str, ...]:
    stores = tuple(part.strip() for part in text.split(",") if part.strip())
    if not stores or set(stores) - {"local", "moto"}:
        raise ValidationError(f"--stores takes local and/or moto, got {text!r}", field="stores")
    return stores


def _notes(rows: list[tuple]) -> list[str]:
    slowest_cold = max(r[2] for r in rows)
    notes = [f"slowest cold start to /healthz {slowest_cold:.0f} ms: "
             f"{'meets' if slowest_cold < COLD_HEALTHZ_TARGET_MS else 'misses'} the "
             f"{COLD_HEALTHZ_TARGET_MS:.0f} ms target"]
    for row in rows:
        if row[1] >= 10_000:
            verdict = "meets" if row[6] < WARM_RECALL_P95_TARGET_MS else "misses"
            notes.append(f"{row[0]} store, {row[1]:,} memories: warm /recall p95 {row[6]:.1f} ms {verdict} the "
                         f"{WARM_RECALL_P95_TARGET_MS:.0f} ms target")
    notes.append("cold columns are medians over fresh processes (a fresh snapshot cache each); "
                 "warm columns come from one server after one warm-up recall; latencies include HTTP on loopback")
    return notes


@click.command(name="service")
@click.option("--memories", "sizes", default="1000,10000", show_default=True, help="Tenant sizes, comma-separated.")
@click.option("--stores", default="local,moto", show_default=True, help="local and/or moto (S3 on loopback).")
@click.option("--recalls", default=200, show_default=True, type=click.IntRange(min=1), help="Warm /recall calls.")
@click.option("--turns", default=50, show_default=True, type=click.IntRange(min=1), help="/chat turns.")
@click.option("--clients", default=1, show_default=True, type=click.IntRange(1, 64), help="Concurrent chat clients.")
@click.option("--cold-trials", default=3, show_default=True, type=click.IntRange(min=1), help="Fresh processes.")
@click.option("--budget", default=1024, show_default=True, type=click.IntRange(min=1), help="Token budget.")
@click.option("--seed", default=7, show_default=True, type=int)
@output_options
@handle_errors
def command(sizes: str, stores: str, recalls: int, turns: int, clients: int, cold_trials: int, budget: int,
            seed: int, json_path: Path | None, plot_dir: Path | None) -> None:
    """Turns per second and /chat, /recall latency of the HTTP service; cold start to /healthz and first recall."""
    from engram_core import default_embedder

    embedder, store_kinds = current_embedder_name(), _parse_stores(stores)
    options = {"recalls": recalls, "turns": turns, "clients": clients, "cold_trials": cold_trials,
               "budget": budget, "seed": seed}
    rows = []
    with contextlib.ExitStack() as stack:
        moto = stack.enter_context(moto_server()) if "moto" in store_kinds else None
        for size in _parse_sizes(sizes):
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="engram-bench-service-")))
            fill_tenant(root, default_embedder(embedder), size, seed)
            rows += [_measure(kind, size, embedder, options, root, moto) for kind in store_kinds]
    settings = {"embedder": embedder, "stores": stores, "memories": sizes, "recalls": recalls, "turns": turns,
                "clients": clients, "cold_trials": cold_trials, "budget": budget}
    report = Report("service", settings, [Table("HTTP service (python -m functions) on loopback", COLUMNS,
                                                 tuple(rows))])
    report.notes = _notes(rows)
    report.results = {"rows": [dict(zip(COLUMNS, row, strict=True)) for row in rows]}
    emit(report, json_path, plot_dir)
