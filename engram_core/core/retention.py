"""Ebbinghaus retention and spaced reinforcement (pure)."""

from __future__ import annotations

import math
from datetime import datetime

from engram_core.core.config import EngineConfig
from engram_core.core.model import Memory, MemoryKind, MemoryStatus

HOUR_SECONDS = 3600.0
# Decayed and archived memories stay searchable as a cold tier: out of ordinary recall, woken only
# by a strong cue (an archived one is represented in ordinary recall by its gist).
RECALLABLE = (MemoryStatus.ACTIVE, MemoryStatus.DECAYED, MemoryStatus.ARCHIVED)


def hours_between(earlier: datetime, later: datetime) -> float:
    """Elapsed hours, never negative (a clock set back does not un-forget)."""
    return max(0.0, (later - earlier).total_seconds() / HOUR_SECONDS)


def retention(hours_since_access: float, stability_hours: float) -> float:
    """R(t) = exp(-t / S)."""
    return math.exp(-max(0.0, hours_since_access) / max(stability_hours, 1e-9))


def memory_retention(memory: Memory, now: datetime, config: EngineConfig) -> float:
    if not config.forgetting:
        return 1.0
    return retention(hours_between(memory.last_accessed_at, now), memory.stability_hours)


def initial_stability(kind: MemoryKind, importance: float, config: EngineConfig) -> float:
    """Important memories start more stable: base(kind) * (0.5 + importance)."""
    base = config.base_stability_hours[kind]
    return min(config.max_stability_hours, base * (0.5 + min(max(importance, 0.0), 1.0)))


def reinforced_stability(stability_hours: float, retention_now: float, config: EngineConfig) -> float:
    """S' = min(S_max, S + (g S + b)(1 - R)): applied only to memories packed into context.

    Spacing-aware: the gain grows with how much had been forgotten, so a memory
    packed forty times in one day (R near 1) gains almost nothing.
    """
    forgotten = 1.0 - min(max(retention_now, 0.0), 1.0)
    grown = stability_hours + (config.reinforce_gain * stability_hours + config.reinforce_bonus_hours) * forgotten
    return min(config.max_stability_hours, max(stability_hours, grown))


def is_critical(memory: Memory, config: EngineConfig) -> bool:
    """Critical memories (allergies, safety, identity) never decay out of recall."""
    return memory.critical or memory.importance >= config.critical_importance


def has_faded(memory: Memory, now: datetime, config: EngineConfig) -> bool:
    if is_critical(memory, config) or not config.forgetting:
        return False
    return memory_retention(memory, now, config) < config.decay_floor


def recency(created_at: datetime, now: datetime, half_life_hours: float) -> float:
    """1.0 for a brand-new memory, 0.5 after one half-life."""
    return 0.5 ** (hours_between(created_at, now) / half_life_hours)
