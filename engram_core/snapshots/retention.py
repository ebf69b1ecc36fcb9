"""Which generations garbage collection may delete (pure: the caller passes the clock).

Keep the newest ``keep`` generations and every generation younger than the
grace period (a reader that resolved it a moment ago may still be fetching
it). Only generations below the oldest kept one go, so the survivors stay a
contiguous run and probing forward from any of them finds the newest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class RetentionPolicy:
    keep: int = 5
    grace: timedelta = timedelta(hours=1)

    def __post_init__(self) -> None:
        if self.keep < 1:
            raise ValueError("keep at least one generation")
        if self.grace.total_seconds() < 0:
            raise ValueError("the grace period cannot be negative")


@dataclass(frozen=True)
class GenerationAge:
    number: int
    modified: datetime


def collectable(generations: Sequence[GenerationAge], policy: RetentionPolicy, now: datetime) -> list[int]:
    """Generation numbers that may be deleted, oldest first."""
    ordered = sorted(generations, key=lambda g: g.number, reverse=True)
    kept = [g.number for g in ordered[:policy.keep]]
    kept += [g.number for g in ordered if now - g.modified < policy.grace]
    if not kept:
        return []
    floor = min(kept)
    return sorted(g.number for g in generations if g.number < floor)
