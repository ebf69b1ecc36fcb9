"""Per-tenant token buckets for the model-calling endpoints (per instance, in memory)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Bucket:
    tokens: float
    updated: float


def refill(bucket: Bucket, now: float, rate_per_second: float, capacity: int) -> Bucket:
    """The bucket at ``now``: tokens grow at the rate, never above capacity (pure)."""
    elapsed = max(0.0, now - bucket.updated)
    return Bucket(min(float(capacity), bucket.tokens + elapsed * rate_per_second), now)


def retry_after_seconds(bucket: Bucket, rate_per_second: float) -> int:
    """Whole seconds until one token is back (at least 1)."""
    return max(1, math.ceil((1.0 - bucket.tokens) / rate_per_second))


class RateLimiter:
    def __init__(self, per_minute: float, burst: int, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._rate = per_minute / 60.0
        self._capacity = burst
        self._now = monotonic
        self._buckets: dict[str, Bucket] = {}
        self._lock = threading.Lock()

    def take(self, tenant: str) -> int | None:
        """Spend one token; None when allowed, else the seconds to wait."""
        with self._lock:
            now = self._now()
            bucket = refill(self._buckets.get(tenant, Bucket(float(self._capacity), now)), now,
                            self._rate, self._capacity)
            if bucket.tokens < 1.0:
                self._buckets[tenant] = bucket
                return retry_after_seconds(bucket, self._rate)
            self._buckets[tenant] = Bucket(bucket.tokens - 1.0, now)
            return None
