"""Open-loop arrivals for ``engram bench load --rate``: when each request is due, whatever the server does.

A closed-loop client sends its next request when the last one is answered, so a slow server slows the
clients down and the latency they record leaves out the time the request would have waited (coordinated
omission). Here every request has a due time fixed in advance (evenly spaced, or a seeded Poisson
process), a pool of clients takes them in order, and a request's latency counts from its due time: a
request that waited for a free client, or for a slow server to answer the one before, counts that wait.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Spacing = Literal["poisson", "fixed"]
SPACINGS: tuple[Spacing, ...] = ("poisson", "fixed")
SUSTAINED_SHARE = 0.95  # an achieved rate below this share of the offered one: the machine did not keep up


@dataclass(frozen=True)
class OpenLoop:
    """``--rate``: requests a second across all clients, on a fixed or seeded Poisson schedule."""

    rate: float
    spacing: Spacing = "poisson"
    seed: int = 0


def arrival_offsets(rate: float, count: int, spacing: Spacing, seed: int) -> list[float]:
    """Seconds from the start at which each of ``count`` requests is due, ``rate`` a second.

    Poisson: the arrivals of a Poisson process given that ``count`` of them fall in ``count / rate``
    seconds (sorted uniform times), so a short run offers exactly the rate asked, not a sample of it."""
    if rate <= 0:
        raise ValueError("the rate must be positive")
    if spacing == "fixed":
        return [n / rate for n in range(count)]
    rng = random.Random(seed)
    return sorted(rng.uniform(0.0, count / rate) for _ in range(count))


class Arrivals:
    """Request numbers (from 1) with their due times on ``clock``, taken in order by any number of threads;
    none are handed out past the last one or once one would be due after ``seconds``."""

    def __init__(self, offsets: list[float], seconds: float, clock: Callable[[], float] = time.perf_counter) -> None:
        self._offsets, self._seconds, self._clock = offsets, seconds, clock
        self._next, self._lock = 0, threading.Lock()
        self.start = clock()
        self.lags: list[float] = []  # ms between each request's due time and the moment a client sent it

    def take(self) -> tuple[int, float] | None:
        with self._lock:
            if self._next >= len(self._offsets) or self._offsets[self._next] > self._seconds:
                return None
            self._next += 1
            return self._next, self.start + self._offsets[self._next - 1]

    def wait_until(self, due: float, sleep: Callable[[float], None] = time.sleep) -> None:
        """Sleep until ``due`` (not at all when it is past) and note how late the request goes out."""
        ahead = due - self._clock()
        if ahead > 0:
            sleep(ahead)
        lag = max(0.0, self._clock() - due) * 1000.0
        with self._lock:
            self.lags.append(lag)


def sustained(offered: float, achieved: float) -> bool:
    return achieved >= SUSTAINED_SHARE * offered
