"""Budget packing: the hard budget is never exceeded (property-tested), order and backfill."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engram_core.core.packing import Packable, pack_under_budget

keys = st.integers(min_value=0, max_value=10_000).map(lambda n: f"m{n}")
items = st.builds(
    Packable, key=keys, score=st.floats(-1, 2, allow_nan=False), tokens=st.integers(-5, 400),
    displaces=st.lists(keys, max_size=3).map(tuple),
)
pools = st.lists(items, max_size=60, unique_by=lambda p: p.key)


@settings(max_examples=2500, deadline=None)
@given(pools, st.integers(min_value=0, max_value=3000))
def test_budget_is_never_exceeded(pool: list[Packable], budget: int) -> None:
    chosen = pack_under_budget(pool, budget)
    assert sum(p.tokens for p in chosen) <= budget
    assert all(p.tokens > 0 for p in chosen)
    assert len({p.key for p in chosen}) == len(chosen)


@settings(max_examples=500, deadline=None)
@given(pools, st.integers(min_value=0, max_value=3000))
def test_displaced_items_never_share_the_pack(pool: list[Packable], budget: int) -> None:
    chosen = pack_under_budget(pool, budget)
    keys_in = {p.key for p in chosen}
    for p in chosen:
        assert not (set(p.displaces) - {p.key}) & keys_in


@settings(max_examples=500, deadline=None)
@given(st.lists(st.builds(Packable, key=keys, score=st.floats(0, 1), tokens=st.integers(1, 50)),
                max_size=40, unique_by=lambda p: p.key), st.integers(0, 500))
def test_nothing_left_out_would_still_fit(pool: list[Packable], budget: int) -> None:
    """Backfill: once packing ends, no remaining item fits in the room left."""
    chosen = pack_under_budget(pool, budget)
    room = budget - sum(p.tokens for p in chosen)
    left = [p for p in pool if p not in chosen]
    assert all(p.tokens > room for p in left)


def test_packs_in_score_order_not_score_per_token() -> None:
    big_best = Packable("evidence", 0.9, 100)
    small = [Packable(f"s{i}", 0.5, 10) for i in range(10)]
    chosen = pack_under_budget([big_best, *small], 100)
    assert [p.key for p in chosen] == ["evidence"]


def test_smaller_items_backfill_when_the_next_does_not_fit() -> None:
    chosen = pack_under_budget([Packable("a", 0.9, 60), Packable("b", 0.8, 60), Packable("c", 0.1, 30)], 100)
    assert [p.key for p in chosen] == ["a", "c"]


def test_a_fact_displaces_its_episode_and_frees_room() -> None:
    episode = Packable("episode", 0.9, 50)
    fact = Packable("fact", 0.8, 20, displaces=("episode",))
    other = Packable("other", 0.7, 60)
    chosen = pack_under_budget([episode, fact, other], 80)
    assert {p.key for p in chosen} == {"fact", "other"}


def test_zero_budget_packs_nothing() -> None:
    assert pack_under_budget([Packable("a", 1.0, 1)], 0) == ()
