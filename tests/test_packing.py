"""Budget packing: the hard budget is never exceeded (property-tested), order and backfill."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engram_core.core.packing import Packable, pack_under_budget

keys = st.integers(min_value=0, max_value=10_000).map(lambda n: f"m{n}")
items = st.builds(
    Packable, key=keys, score=st.floats(-1, 2, allow_nan=False), tokens=st.integers(-5, 400),
    displaces=st.lists(keys, max_size=3).map(tuple), group=st.just(""), group_tokens=st.just(0),
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
@given(st.lists(st.builds(Packable, key=keys, score=st.floats(0, 1), tokens=st.integers(1, 50),
                          displaces=st.just(()), group=st.just(""), group_tokens=st.just(0)),
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


def _with_headings(pool: list[Packable]) -> int:
    return sum(p.tokens for p in pool) + sum({p.group: p.group_tokens for p in pool if p.group}.values())


grouped = st.builds(
    Packable, key=keys, score=st.floats(0, 1), tokens=st.integers(1, 80),
    displaces=st.lists(keys, max_size=2).map(tuple),
    group=st.sampled_from(["", "d1", "d2", "d3"]), group_tokens=st.integers(0, 20),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(grouped, max_size=40, unique_by=lambda p: p.key), st.integers(0, 1500))
def test_a_group_heading_is_paid_once_and_the_budget_still_holds(pool: list[Packable], budget: int) -> None:
    # one heading cost per group (as a day has one heading in the block)
    pool = [p._replace(group_tokens=7) if p.group else p._replace(group_tokens=0) for p in pool]
    chosen = pack_under_budget(pool, budget)
    assert _with_headings(list(chosen)) <= budget
    if not any(p.displaces for p in pool):  # backfill: nothing left out fits, its heading counted when new
        room, days = budget - _with_headings(list(chosen)), {p.group for p in chosen}
        assert all(p.tokens + (p.group_tokens if p.group not in days else 0) > room
                   for p in pool if p not in chosen)


def test_items_of_a_packed_day_fit_where_a_new_day_would_not() -> None:
    first = Packable("a", 0.9, 40, (), "2 Mar", 10)
    same_day = Packable("b", 0.8, 40, (), "2 Mar", 10)
    other_day = Packable("c", 0.85, 40, (), "3 Mar", 10)
    chosen = pack_under_budget([first, same_day, other_day], 95)
    assert [p.key for p in chosen] == ["a", "b"]  # c would cost 50 with its heading, b 40 under a's
    assert [p.key for p in pack_under_budget([first, other_day], 95)] == ["a"]


def test_a_displaced_item_gives_back_its_heading() -> None:
    episode = Packable("episode", 0.9, 30, (), "2 Mar", 10)
    fact = Packable("fact", 0.95, 20, ("episode",), "3 Mar", 10)
    late = Packable("late", 0.5, 55, (), "4 Mar", 10)
    chosen = pack_under_budget([episode, fact, late], 95)
    assert [p.key for p in chosen] == ["fact", "late"]  # 20 + 10, then 55 + 10: episode's day heading is free again
