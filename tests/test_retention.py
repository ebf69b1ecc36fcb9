"""Retention, reinforcement and criticality (pure maths, property-tested)."""

from __future__ import annotations

import math
from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from engram_core.core.config import EngineConfig
from engram_core.core.model import Memory, MemoryKind
from engram_core.core.retention import (
    has_faded, initial_stability, reinforced_stability, retention, recency,
)

from conftest import START

CONFIG = EngineConfig()
hours = st.floats(min_value=0, max_value=1e6, allow_nan=False)
stabilities = st.floats(min_value=0.1, max_value=1e5, allow_nan=False)


def memory(importance: float = 0.5, stability: float = 24.0, critical: bool = False) -> Memory:
    return Memory(id="m", kind=MemoryKind.EPISODE, text="t", importance=importance, stability_hours=stability,
                  created_at=START, last_accessed_at=START, critical=critical)


def test_retention_is_ebbinghaus_curve() -> None:
    assert retention(0, 24) == 1.0
    assert math.isclose(retention(24, 24), math.exp(-1))
    assert math.isclose(retention(48, 24), math.exp(-2))


@given(hours, hours, stabilities)
def test_retention_falls_with_time(t1: float, t2: float, s: float) -> None:
    early, late = sorted((t1, t2))
    assert 0.0 <= retention(late, s) <= retention(early, s) <= 1.0


@given(stabilities, st.floats(0, 1))
def test_reinforcement_grows_with_what_was_forgotten(s: float, held: float) -> None:
    grown = reinforced_stability(s, held, CONFIG)
    expected = min(CONFIG.max_stability_hours, s + (0.6 * s + 12) * (1 - held))
    assert math.isclose(grown, max(expected, min(s, CONFIG.max_stability_hours)), rel_tol=1e-9)
    assert grown >= min(s, CONFIG.max_stability_hours)


@given(stabilities, st.floats(0, 1), st.floats(0, 1))
def test_the_more_was_forgotten_the_more_reinforcement_gains(s: float, a: float, b: float) -> None:
    fresh, faded = sorted((a, b), reverse=True)
    assert reinforced_stability(s, faded, CONFIG) >= reinforced_stability(s, fresh, CONFIG)


def test_repacking_a_fresh_memory_gains_nothing() -> None:
    """Packed forty times in one day, a memory is no more durable than packed once."""
    s = 100.0
    once = reinforced_stability(s, retention(24, s), CONFIG)
    again = once
    for _ in range(40):
        again = reinforced_stability(again, retention(0, again), CONFIG)
    assert again == once
    assert once > s


def test_reinforcement_is_capped() -> None:
    assert reinforced_stability(CONFIG.max_stability_hours, 0.0, CONFIG) == CONFIG.max_stability_hours


@given(st.floats(0, 1), st.floats(0, 1))
def test_more_important_memories_start_more_stable(a: float, b: float) -> None:
    low, high = sorted((a, b))
    for kind in MemoryKind:
        assert initial_stability(kind, low, CONFIG) <= initial_stability(kind, high, CONFIG)


def test_preferences_outlast_episodes() -> None:
    assert initial_stability(MemoryKind.PREFERENCE, 0.5, CONFIG) > initial_stability(MemoryKind.EPISODE, 0.5, CONFIG)


def test_a_memory_fades_below_the_floor() -> None:
    m = memory(stability=24)
    floor_hours = -24 * math.log(CONFIG.decay_floor)
    assert not has_faded(m, START + timedelta(hours=floor_hours - 1), CONFIG)
    assert has_faded(m, START + timedelta(hours=floor_hours + 1), CONFIG)


def test_critical_memories_never_fade() -> None:
    far = START + timedelta(days=3650)
    assert not has_faded(memory(critical=True), far, CONFIG)
    assert not has_faded(memory(importance=CONFIG.critical_importance), far, CONFIG)
    assert has_faded(memory(importance=0.5), far, CONFIG)


def test_forgetting_switched_off_never_fades() -> None:
    off = EngineConfig(forgetting=False)
    assert not has_faded(memory(), START + timedelta(days=3650), off)


def test_clock_set_back_does_not_unforget() -> None:
    assert recency(START, START - timedelta(days=1), 24) == 1.0
