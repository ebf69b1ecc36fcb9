"""The open-loop schedule of `engram bench load --rate` (due times fixed in advance, latency from them), and its
client, whose keep-alive connections sit idle between requests at a low rate."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engram_bench.arrivals import Arrivals, arrival_offsets, sustained
from engram_bench.load import Client


def test_fixed_spacing_is_even_and_poisson_is_seeded_with_the_asked_mean_rate() -> None:
    assert arrival_offsets(4.0, 5, "fixed", 0) == [0.0, 0.25, 0.5, 0.75, 1.0]
    first, again, other = (arrival_offsets(10.0, 4000, "poisson", s) for s in (7, 7, 8))
    assert first == again and first != other
    assert all(0.0 <= a <= b <= 400.0 for a, b in zip(first, first[1:], strict=False))
    assert 4000 / first[-1] == pytest.approx(10.0, rel=0.01)  # the whole rate is offered, not a sample of it
    gaps = [b - a for a, b in zip(first, first[1:], strict=False)]
    assert sum(g > 0.1 for g in gaps) / len(gaps) == pytest.approx(0.368, abs=0.03)  # exponential: P(gap > mean)
    with pytest.raises(ValueError):
        arrival_offsets(0.0, 3, "fixed", 0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_requests_come_in_order_with_their_due_times_and_stop_at_the_count_or_the_time_bound() -> None:
    clock = Clock()
    arrivals = Arrivals([0.0, 0.5, 1.0, 1.5, 2.0], seconds=1.2, clock=clock)
    assert [arrivals.take() for _ in range(4)] == [(1, 100.0), (2, 100.5), (3, 101.0), None]
    assert Arrivals([0.0, 1.0], seconds=60, clock=clock).take() == (1, clock.now)
    counted, taken = Arrivals([0.0] * 500, seconds=60), []

    def drain() -> None:
        while (slot := counted.take()) is not None:
            taken.append(slot[0])

    threads = [threading.Thread(target=drain) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == list(range(1, 501))


def test_a_request_sent_late_records_its_lag_and_an_early_client_waits_for_the_due_time() -> None:
    clock = Clock()
    arrivals = Arrivals([0.0, 2.0], seconds=60, clock=clock)
    _, due_first = arrivals.take() or (0, 0.0)
    _, due_second = arrivals.take() or (0, 0.0)
    clock.now += 0.3  # the first request went out 300 ms late (every client was busy)
    arrivals.wait_until(due_first, clock.sleep)
    arrivals.wait_until(due_second, clock.sleep)  # early: sleeps until due, then goes out on time
    assert clock.now == pytest.approx(due_second)
    assert arrivals.lags == pytest.approx([300.0, 0.0])


def test_a_rate_is_sustained_when_the_achieved_rate_keeps_up_with_the_offered_one() -> None:
    assert sustained(10.0, 9.8) and not sustained(10.0, 9.0)


class ClosesIdle(BaseHTTPRequestHandler):
    """Answers one request per connection, then closes it without saying so (as a keep-alive timeout does)."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


def test_a_request_on_a_connection_the_server_closed_is_sent_again_on_a_fresh_one() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ClosesIdle)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = Client(server.server_address[1])
    try:
        assert [client.once("POST", "/recall", "t000", {"query": "q"}, "k1")[0] for _ in range(3)] == [200] * 3
    finally:
        server.shutdown()
        server.server_close()
    assert client.once("POST", "/recall", "t000", {"query": "q"}, "k2") == (599, b"connection failed")
