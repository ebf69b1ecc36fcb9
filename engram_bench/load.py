"""``engram bench load``: two ``engram serve`` processes on one bucket, many tenants, concurrent clients.

moto's S3 server runs on loopback behind the OSS front (which makes a
create-only PUT one step per key, as OSS does; raw moto can let two writers of
one key both win under load). Two ``engram serve`` processes, each with its own
warm cache, share its bucket. ``--clients`` threads, each with a keep-alive
connection to one of the two servers in turn, send a mix of chat turns,
recalls, remembers and now and then a sleep cycle to random tenants until
``--requests`` are answered or ``--seconds`` pass. A 503 (busy, or a store
error) is retried with the same Idempotency-Key, so a retry never doubles a
write. Then one hot tenant is written by ``--hot-clients`` clients across both
processes. Afterwards every acknowledged write (each remember's text, each
chat turn's message) must be in its tenant's export, read from the other
process than the one that acknowledged it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import click

from engram_bench.arrivals import SPACINGS, Arrivals, OpenLoop, arrival_offsets, sustained
from engram_bench.common import Report, Table, current_embedder_name, emit, output_options
from engram_bench.oss_front import LOOPBACK_REGION, create_bucket
from engram_bench.processes import free_port, moto_server, stop
from engram_bench.scale import percentile, synthetic_sentence
from engram_core.cli.common import handle_errors

MOTO_KEY_ID, MOTO_SECRET = "engram/bench/not/an/aws/scope", "bench-secret"  # see tests/snapshot_support.py
MIX = (("chat", 0.35), ("recall", 0.40), ("remember", 0.20), ("sleep", 0.05))
MAX_TRIES = 30
START_TIMEOUT_S = 120
RECALL_P95_TARGET_MS, CHAT_P95_TARGET_MS = 100.0, 1000.0


@dataclass
class Tally:
    """What the clients saw, shared by their threads."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter = field(default_factory=Counter)
    retries: int = 0
    busy: int = 0
    acknowledged: list[tuple[str, str, int]] = field(default_factory=list)  # tenant, text, server index
    failed: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, route: str, status: int, ms: float, tries: int) -> None:
        with self.lock:
            self.latencies[route].append(ms)
            self.statuses[status] += 1
            self.retries += tries - 1
            self.busy += tries - 1


def tenant_key(tenant: str) -> str:
    return f"egk_load-{tenant}-0123456789abcdef"


def _keys_json(tenants: list[str]) -> str:
    from engram_core.tenants.credentials import KeyEntry, hash_key

    return json.dumps([KeyEntry(tenant=t, hash=hash_key(tenant_key(t))).model_dump() for t in tenants])


class Client:
    """One keep-alive connection; ``call`` retries a 503 with the same Idempotency-Key.

    A connection that sat idle past the server's keep-alive timeout (uvicorn's 5 s: open-loop clients at
    a low rate idle that long) is closed by the server; a request that meets the closed connection is sent
    once more on a fresh one, as HTTP clients do (its Idempotency-Key makes that safe, and its time counts).
    A fresh connection that fails is a failure (599)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        self._used = False

    def once(self, method: str, path: str, tenant: str, body: dict | None, idem: str | None) -> tuple[int, bytes]:
        headers = {"Authorization": f"Bearer {tenant_key(tenant)}", "Content-Type": "application/json"}
        if idem:
            headers["Idempotency-Key"] = idem
        payload = json.dumps(body).encode() if body is not None else None
        while True:
            reused, self._used = self._used, True
            try:
                self._conn.request(method, path, body=payload, headers=headers)
                response = self._conn.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                self._conn.close()
                self._conn, self._used = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300), False
                if not reused:
                    return 599, b"connection failed"

    def call(self, method: str, path: str, tenant: str, body: dict | None = None,
             idem: str | None = None) -> tuple[int, float, int, bytes]:
        """(final status, ms from the first try to the final answer, tries, body)."""
        started = time.perf_counter()
        for tries in range(1, MAX_TRIES + 1):
            status, data = self.once(method, path, tenant, body, idem)
            if status != 503:
                break
            time.sleep(min(0.5, 0.01 * 2 ** tries) * random.random())
        return status, (time.perf_counter() - started) * 1000.0, tries, data


def _request(route: str, rng: random.Random, number: int) -> tuple[str, str, dict | None, str | None]:
    """(method, path, body, text that must survive) for one request of the mix."""
    if route == "chat":
        text = f"Load turn {number}: {synthetic_sentence(rng)}"
        return "/chat", text, {"message": text, "session_id": f"s{number % 7}", "budget_tokens": 512}, text
    if route == "remember":
        text = f"Load note {number}: {synthetic_sentence(rng)}"
        return "/memories", text, {"text": text, "importance": 0.7}, text
    if route == "sleep":
        return "/sleep", "", None, None
    return "/recall", "", {"query": synthetic_sentence(rng).rstrip(".") + "?", "budget_tokens": 512}, None


def _pick(rng: random.Random) -> str:
    roll, total = rng.random(), 0.0
    for route, share in MIX:
        total += share
        if roll < total:
            return route
    return MIX[-1][0]


def _send(client: Client, server: int, route: str, tenant: str, number: int, rng: random.Random,
          tally: Tally, started: float | None = None) -> None:
    """One request of the mix; its latency counts from ``started`` (its due time) when given."""
    path, _, body, text = _request(route, rng, number)
    status, ms, tries, _ = client.call("POST", path, tenant, body, idem=f"load-{number}")
    if started is not None:
        ms = (time.perf_counter() - started) * 1000.0
    tally.record(route, status, ms, tries)
    if text is not None and status in (200, 201):
        with tally.lock:
            tally.acknowledged.append((tenant, text, server))
    elif status >= 400:
        with tally.lock:
            tally.failed.append(f"{route} {tenant}: {status}")


def _client_loop(index: int, ports: list[int], tenants: list[str], budget: Budget, tally: Tally,
                 routes: tuple[str, ...] | None = None) -> None:
    rng = random.Random(1000 + index)
    server = index % len(ports)
    client = Client(ports[server])
    try:
        while (number := budget.take()) is not None:
            route = routes[0] if routes else _pick(rng)
            _send(client, server, route, rng.choice(tenants), number, rng, tally)
    finally:
        client._conn.close()


def _open_loop(ports: list[int], tenants: list[str], arrivals: Arrivals, tally: Tally, seed: int) -> None:
    """A client of the open-loop pool: the next due request, sent at its time (or late, when all were busy).

    What a request asks is a function of its number and the seed alone, so every rate sends the same mix."""
    clients = [Client(port) for port in ports]
    try:
        while (slot := arrivals.take()) is not None:
            number, due = slot
            arrivals.wait_until(due)
            rng = random.Random(seed * 1_000_003 + number)
            route, tenant, server = _pick(rng), rng.choice(tenants), number % len(ports)
            _send(clients[server], server, route, tenant, number, rng, tally, started=due)
    finally:
        for client in clients:
            client._conn.close()


class Budget:
    """Request numbers until the count or the deadline runs out."""

    def __init__(self, requests: int, seconds: float) -> None:
        self._left, self._next, self.deadline = requests, 0, time.monotonic() + seconds
        self._lock = threading.Lock()

    def take(self) -> int | None:
        with self._lock:
            if self._left <= 0 or time.monotonic() > self.deadline:
                return None
            self._left, self._next = self._left - 1, self._next + 1
            return self._next


def _run_clients(count: int, ports: list[int], tenants: list[str], budget: Budget, tally: Tally,
                 routes: tuple[str, ...] | None = None) -> float:
    return _joined([threading.Thread(target=_client_loop, args=(i, ports, tenants, budget, tally, routes))
                    for i in range(count)])


def _run_open(count: int, ports: list[int], tenants: list[str], arrivals: Arrivals, tally: Tally,
              seed: int) -> float:
    """The pool of ``count`` clients on the schedule; seconds from the first due time to the last answer."""
    _joined([threading.Thread(target=_open_loop, args=(ports, tenants, arrivals, tally, seed))
             for _ in range(count)])
    return time.perf_counter() - arrivals.start


def _joined(threads: list[threading.Thread]) -> float:
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def _missing(ports: list[int], tally: Tally) -> list[str]:
    """Acknowledged writes absent from their tenant's export, read on the other process."""
    by_tenant: dict[tuple[str, int], list[str]] = defaultdict(list)
    for tenant, text, server in tally.acknowledged:
        by_tenant[(tenant, (server + 1) % len(ports))].append(text)
    missing = []
    clients = [Client(port) for port in ports]
    for (tenant, server), texts in sorted(by_tenant.items()):
        status, data = clients[server].once("GET", "/export", tenant, None, None)
        exported = data.decode("utf-8", errors="replace") if status == 200 else ""
        missing += [f"{tenant}: {t[:40]}" for t in texts if json.dumps(t)[1:-1] not in exported]
    return missing


@contextmanager
def _servers(location: str, extra: dict[str, str], tenants: list[str], embedder: str,
             workdir: Path) -> Iterator[list[int]]:
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("ENGRAM_", "QWEN_CLOUD_", "DASHSCOPE_", "ALIBABA_CLOUD_", "FC_"))}
    keys, ports, processes = _keys_json(tenants), [], []
    try:
        for n in range(2):
            port = free_port()
            env = {**keep, **extra, "ENGRAM_API_KEYS": keys, "ENGRAM_EMBEDDER": embedder, "ENGRAM_PROVIDER": "offline",
                   "ENGRAM_RATE_BURST": "1000000", "ENGRAM_LOG_LEVEL": "WARNING",
                   "ENGRAM_SNAPSHOT_MAX_ATTEMPTS": "40", "ENGRAM_SNAPSHOT_CACHE_DIR": str(workdir / f"cache-{n}")}
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "engram_core.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--store", location], env=env, stdout=subprocess.DEVNULL,
                stderr=open(workdir / f"serve-{n}.log", "w")))
            ports.append(port)
        for port, process in zip(ports, processes, strict=True):
            _wait_healthy(port, process)
        yield ports
    finally:
        for process in processes:
            stop(process, grace=30)


def _wait_healthy(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise click.ClickException(f"a server exited with status {process.returncode}")
        with contextlib.suppress(OSError):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return
        time.sleep(0.05)
    raise click.ClickException("a server did not answer /healthz in time")


def _phase_rows(name: str, tally: Tally, wall: float) -> list[tuple]:
    rows = []
    for route, values in sorted(tally.latencies.items()):
        rows.append((name, route, len(values), len(values) / wall, percentile(values, 50), percentile(values, 95),
                     percentile(values, 99)))
    return rows


COLUMNS = ("phase", "route", "answered", "per s", "p50 ms", "p95 ms", "p99 ms")


def _bucket(endpoint: str) -> tuple[str, dict[str, str]]:
    bucket = f"engram-load-{random.randrange(16**8):08x}"
    create_bucket(endpoint, bucket, MOTO_KEY_ID, MOTO_SECRET)
    return f"oss://{bucket}/tenants", {
        "ENGRAM_OSS_ENDPOINT": endpoint, "ENGRAM_OSS_DIALECT": "s3", "ENGRAM_OSS_REGION": LOOPBACK_REGION,
        "ENGRAM_OSS_ACCESS_KEY_ID": MOTO_KEY_ID, "ENGRAM_OSS_ACCESS_KEY_SECRET": MOTO_SECRET}


def run_load(tenants: int, clients: int, requests: int, seconds: float, hot_clients: int, hot_requests: int,
             embedder: str, open_loop: OpenLoop | None = None) -> dict:
    names = [f"t{n:03d}" for n in range(tenants)]
    with moto_server() as endpoint, tempfile.TemporaryDirectory(prefix="engram-bench-load-") as work:
        location, extra = _bucket(endpoint)
        with _servers(location, extra, names + ["hot"], embedder, Path(work)) as ports:
            mixed, hot, arrivals = Tally(), Tally(), None
            if open_loop is None:
                mixed_wall = _run_clients(clients, ports, names, Budget(requests, seconds), mixed)
            else:
                offsets = arrival_offsets(open_loop.rate, requests, open_loop.spacing, open_loop.seed)
                arrivals = Arrivals(offsets, seconds)
                mixed_wall = _run_open(clients, ports, names, arrivals, mixed, open_loop.seed)
            hot_wall = _run_clients(hot_clients, ports, ["hot"], Budget(hot_requests, seconds), hot, ("remember",))
            missing = _missing(ports, mixed) + _missing(ports, hot)
    return {"mixed": mixed, "hot": hot, "mixed_wall": mixed_wall, "hot_wall": hot_wall, "missing": missing,
            "arrivals": arrivals}


@click.command(name="load")
@click.option("--tenants", default=100, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--clients", default=16, show_default=True, type=click.IntRange(1, 256),
              help="Concurrent clients (with --rate: the pool that sends the scheduled requests).")
@click.option("--requests", default=2000, show_default=True, type=click.IntRange(1), help="Mixed requests, at most.")
@click.option("--seconds", default=300.0, show_default=True, type=click.FloatRange(1), help="Time bound per phase.")
@click.option("--hot-clients", default=8, show_default=True, type=click.IntRange(1, 256))
@click.option("--hot-requests", default=400, show_default=True, type=click.IntRange(1))
@click.option("--rate", type=click.FloatRange(0, min_open=True), default=None,
              help="Open loop: mixed requests a second across all clients, latency from each one's due time "
                   "(default: closed loop, each client sends when its last request is answered).")
@click.option("--arrivals", "spacing", type=click.Choice(SPACINGS), default="poisson", show_default=True,
              help="With --rate: a seeded Poisson process or evenly spaced requests.")
@click.option("--seed", default=0, show_default=True, type=int, help="With --rate: the schedule's and the mix's seed.")
@output_options
@handle_errors
def command(tenants: int, clients: int, requests: int, seconds: float, hot_clients: int, hot_requests: int,
            rate: float | None, spacing: str, seed: int, json_path: Path | None, plot_dir: Path | None) -> None:
    """Two server processes on one moto bucket: throughput, per-route latency, retries, lost writes."""
    embedder = current_embedder_name()
    open_loop = OpenLoop(rate, spacing, seed) if rate is not None else None  # type: ignore[arg-type]
    found = run_load(tenants, clients, requests, seconds, hot_clients, hot_requests, embedder, open_loop)
    mixed, hot = found["mixed"], found["hot"]
    rows = _phase_rows("mixed", mixed, found["mixed_wall"]) + _phase_rows("hot tenant", hot, found["hot_wall"])
    statuses = mixed.statuses + hot.statuses
    server_errors = sum(n for status, n in statuses.items() if status >= 500)
    settings = {"tenants": tenants, "clients": clients, "requests": requests, "seconds": seconds,
                "hot_clients": hot_clients, "hot_requests": hot_requests, "embedder": embedder,
                "rate": rate, "arrivals": spacing if rate is not None else "closed loop", "seed": seed}
    since = "each request's due time" if rate is not None else "first try"
    report = Report("load", settings, [Table(f"Two engram serve processes, one moto bucket (mixed latency from "
                                             f"{since}, retries included)", COLUMNS, tuple(rows))])
    total = sum(statuses.values())
    achieved = sum(map(len, mixed.latencies.values())) / found["mixed_wall"]
    report.notes = [
        f"throughput: mixed {achieved:.1f} requests/s over "
        f"{found['mixed_wall']:.1f} s; hot tenant {sum(map(len, hot.latencies.values())) / found['hot_wall']:.1f}/s",
        *_rate_notes(rate, achieved, found["arrivals"]),
        f"answers: {dict(sorted(statuses.items()))} of {total}; 5xx after retries: {server_errors}",
        f"busy answers retried: mixed {mixed.busy}, hot {hot.busy}",
        f"acknowledged writes: {len(mixed.acknowledged) + len(hot.acknowledged)}; lost: {len(found['missing'])}",
    ] + [f"lost: {m}" for m in found["missing"][:10]] + [f"failed: {f}" for f in (mixed.failed + hot.failed)[:10]]
    report.results = {"rows": [dict(zip(COLUMNS, row, strict=True)) for row in rows], "lost": len(found["missing"]),
                      "server_errors": server_errors, "busy": mixed.busy + hot.busy,
                      "statuses": {str(k): v for k, v in statuses.items()},
                      "recall_p95_ms": _p95(mixed, "recall"), "chat_p95_ms": _p95(mixed, "chat"),
                      "offered_rate": rate, "achieved_rate": achieved,
                      "sustained": sustained(rate, achieved) if rate is not None else None}
    emit(report, json_path, plot_dir)


def _rate_notes(rate: float | None, achieved: float, arrivals: Arrivals | None) -> list[str]:
    if rate is None or arrivals is None:
        return ["closed loop: each client sent its next request when the last was answered"]
    kept = "sustained" if sustained(rate, achieved) else "NOT sustained: the machine fell behind the schedule"
    lags = arrivals.lags
    return [f"open loop: offered {rate:g} requests/s, achieved {achieved:.1f}/s ({kept}); sent late by p50 "
            f"{percentile(lags, 50):.1f} / p95 {percentile(lags, 95):.1f} / max {max(lags, default=0.0):.1f} ms "
            "(waiting for a free client, counted in the latency)"]


def _p95(tally: Tally, route: str) -> float | None:
    values = tally.latencies.get(route)
    return percentile(values, 95) if values else None

