"""Clocks: the system clock, and a settable one for tests and simulations."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(timezone.utc)


class FixedClock:
    """Time stands still until moved; for tests and benchmarks."""

    def __init__(self, start: datetime) -> None:
        self._now = start.astimezone(timezone.utc)

    def now(self) -> datetime:
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment.astimezone(timezone.utc)

    def advance(self, delta: timedelta) -> None:
        self._now += delta
