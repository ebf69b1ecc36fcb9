"""``engram bench fanout``: what the hourly timer costs, in wall time and object-store requests.

For each tenant count, a bucket on moto's S3 server (behind the OSS signature front, which counts
every request) gets a due index: every tenant due at some hour of the next day, and a share of them
(``--due``, 1%) due now. Then the real fan-out runs twice, as the timer event of an hour in which
nobody is due and of the hour in which that share is due, dispatching through the real Function
Compute SDK to a loopback stand-in of FC's API that answers 202. Reported: wall time, requests to
the object store (by method) and InvokeFunction calls. The tenants' own stores are never read, so
they are not created; the index entries are what the timer sees.
"""

from __future__ import annotations

import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engram_bench.common import Report, Table, bench_settings, emit, output_options, progress
from engram_bench.oss_front import OssFront, create_bucket, loopback_oss
from engram_bench.processes import moto_front
from engram_core.cli.common import handle_errors
from engram_core.core.errors import ValidationError

if TYPE_CHECKING:  # the HTTP service loads when this suite runs
    from engram_core.settings import Settings
    from functions.service import Service

KEY_ID, SECRET = "engram-bench", "engram-bench-secret"
ADMIN_KEY = "egk_bench-admin-key-0123456789"
COLUMNS = ("tenants", "hour", "due", "dispatched", "wall ms", "OSS requests", "LIST", "PUT", "DELETE",
           "GET+HEAD", "InvokeFunction")
TRIGGER = datetime(2026, 1, 6, 3, tzinfo=timezone.utc)


class FcStandIn:
    """Answers InvokeFunction with 202, as FC does for an async call, and counts the calls."""

    def __init__(self) -> None:
        self.calls = 0
        lock, stand_in = threading.Lock(), self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                with lock:
                    stand_in.calls += 1
                self.send_response(202)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _fill_index(index, tenants: int, due_now: int, period: timedelta) -> None:  # noqa: ANN001 - DueIndex
    """Every tenant on the schedule: ``due_now`` of them at the trigger, the rest spread over the day after."""
    rng = random.Random(tenants)
    names = [f"tenant-{n:06d}" for n in range(tenants)]
    due = set(rng.sample(names, due_now))
    hours = int(period.total_seconds() // 3600)

    def put(name: str) -> None:
        at = TRIGGER if name in due else TRIGGER + timedelta(hours=rng.randrange(2, hours))
        index.schedule(name, at)

    with ThreadPoolExecutor(max_workers=16) as pool:
        list(progress(pool.map(put, names), f"index {tenants:,} tenants", total=tenants, unit="tenant"))


def _service(location: str, fc: FcStandIn, most: int, engram: Settings) -> Service:
    from functions.service import build_service
    from functions.settings import AppSettings, load_settings

    settings = load_settings(tenant_store=location, fanout_mode="fc", fc_endpoint=fc.endpoint, fc_protocol="http",
                             fc_sleep_function="engram-jobs", admin_key=ADMIN_KEY, fanout_max_per_run=most,
                             embedder="hashing")
    return build_service(AppSettings(service=settings, engram=engram))


def _measure(service: Service, front: OssFront, fc: FcStandIn,
             trigger: datetime) -> tuple[float, dict, int, int]:
    from functions.fanout import fan_out

    headers = {"x-fc-access-key-id": "STS.bench", "x-fc-access-key-secret": "bench", "x-fc-security-token": "t"}
    front.reset_counts()
    calls_before = fc.calls
    started = time.perf_counter()
    report = fan_out(service, trigger, headers)
    wall_ms = (time.perf_counter() - started) * 1000
    counts = dict(front.requests)
    return wall_ms, counts, len(report.dispatched), fc.calls - calls_before


def _row(tenants: int, hour: str, due: int, measured: tuple[float, dict, int, int]) -> tuple:
    wall_ms, counts, dispatched, calls = measured
    return (tenants, hour, due, dispatched, round(wall_ms, 1), sum(counts.values()), counts.get("LIST", 0),
            counts.get("PUT", 0), counts.get("DELETE", 0), counts.get("GET", 0) + counts.get("HEAD", 0), calls)


def measure_count(front: OssFront, tenants: int, due_share: float, settings: Settings) -> list[tuple]:
    from engram_core.tenants.due_index import DueIndex

    bucket = f"engram-fanout-{tenants}"
    create_bucket(front.endpoint, bucket, KEY_ID, SECRET)
    engram = settings.model_copy(update={"oss": loopback_oss(settings.oss, front.endpoint, KEY_ID, SECRET)})
    due_now = max(1, round(tenants * due_share))
    fc = FcStandIn()
    service = _service(f"oss://{bucket}/engram", fc, tenants, engram)
    index: DueIndex = service.stores.due_index()
    _fill_index(index, tenants, due_now, timedelta(hours=24))
    index.build([], TRIGGER)  # marks it built (every tenant already on it)
    first = _measure(service, front, fc, TRIGGER - timedelta(hours=2))  # imports the SDKs, opens clients
    idle = _measure(service, front, fc, TRIGGER - timedelta(hours=1))
    busy = _measure(service, front, fc, TRIGGER)
    service.close()
    fc.server.shutdown()
    return [_row(tenants, "idle, first", 0, first), _row(tenants, "idle", 0, idle),
            _row(tenants, f"{due_share:.0%} due", due_now, busy)]


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise ValidationError(f"tenant counts must be whole numbers, got {text!r}", field="tenants") from exc
    if not counts or min(counts) < 1:
        raise ValidationError(f"tenant counts must be positive, got {text!r}", field="tenants")
    return counts


@click.command(name="fanout")
@click.option("--tenants", "tenant_counts", default="1000,10000", show_default=True,
              help="Tenant counts, comma-separated.")
@click.option("--due", "due_share", default=0.01, show_default=True, type=click.FloatRange(0.0001, 1.0),
              help="Share of the tenants due in the busy hour.")
@output_options
@handle_errors
def command(tenant_counts: str, due_share: float, json_path: Path | None, plot_dir: Path | None) -> None:
    """The hourly timer's fan-out on moto: wall time and requests for an idle hour and a busy one."""
    counts, rows, started, settings = _counts(tenant_counts), [], time.perf_counter(), bench_settings()
    with moto_front() as front:
        for tenants in counts:
            rows.extend(measure_count(front, tenants, due_share, settings))
    report = Report("fanout", {"tenants": tenant_counts, "due": due_share})
    report.tables.append(Table("Timer fan-out over the due index (moto on loopback)", COLUMNS, tuple(rows)))
    report.results["rows"] = [dict(zip(COLUMNS, row, strict=True)) for row in rows]
    report.notes.append("a busy hour per due tenant: 1 create-only claim (PUT), 1 InvokeFunction, the next "
                        "index entry (PUT) and the old one removed (DELETE); no tenant store is read")
    report.notes.append("idle, first: the first event of a fresh process (loads oss2 and FC's SDK, opens clients)")
    report.notes.append(f"wall time {time.perf_counter() - started:.1f} s, load {os.getloadavg()[0]:.1f}")
    emit(report, json_path, plot_dir)
