"""Scoring: the DESIGN.md formula, component by component."""

from __future__ import annotations

import numpy as np
import pytest

from engram_core.core.config import EngineConfig
from engram_core.core.scoring import (
    CandidateArrays, breakdown_at, breakdowns_at, normalise_lexical, rounded, score_arrays,
)

CONFIG = EngineConfig()


def arrays(**overrides: list[float]) -> CandidateArrays:
    base = dict(prior=[0.0], importance=[0.5], stability_hours=[24.0], hours_since_access=[0.0],
                hours_since_created=[0.0], cosine=[0.5], lexical=[0.0])
    base.update(overrides)
    return CandidateArrays(**{k: np.array(v, dtype=np.float64) for k, v in base.items()})


def test_formula_matches_design() -> None:
    parts = score_arrays(arrays(cosine=[0.8], lexical=[0.5], importance=[0.7], hours_since_access=[24.0],
                                hours_since_created=[24.0 * 30], prior=[0.06]), CONFIG)
    w = CONFIG.weights
    similarity = (1 - w.lexical_share) * 0.8 + w.lexical_share * 0.5
    relevance = w.similarity * similarity + w.importance * 0.7 + w.recency * 0.5 + 0.06
    retention = np.exp(-1)
    b = breakdown_at(parts, 0)
    assert b.similarity == pytest.approx(similarity, abs=1e-6)
    assert b.recency == pytest.approx(0.5, abs=1e-6)
    assert b.relevance == pytest.approx(relevance, abs=1e-6)
    floor = w.retention_floor
    assert b.score == pytest.approx(relevance * (floor + (1 - floor) * retention), abs=1e-6)


def test_faded_memory_keeps_the_floor_and_wakes_on_a_strong_match() -> None:
    parts = score_arrays(arrays(cosine=[1.0, 0.1], hours_since_access=[10_000.0, 0.0]), CONFIG)
    assert parts["retention"][0] < 0.01
    assert parts["score"][0] > CONFIG.weights.retention_floor * parts["relevance"][0] * 0.99
    weak_fresh = parts["score"][1]
    assert parts["score"][0] > 0 and weak_fresh > 0


def test_negative_cosine_counts_as_no_similarity() -> None:
    parts = score_arrays(arrays(cosine=[-0.9]), CONFIG)
    assert parts["similarity"][0] == 0.0


def test_lexical_is_normalised_by_the_best_match() -> None:
    assert list(normalise_lexical(np.array([2.0, 1.0, 0.0]))) == [1.0, 0.5, 0.0]
    assert list(normalise_lexical(np.zeros(2))) == [0.0, 0.0]


def test_forgetting_off_means_full_retention() -> None:
    parts = score_arrays(arrays(hours_since_access=[1e6]), EngineConfig(forgetting=False))
    assert parts["retention"][0] == 1.0


def test_rounded_gives_what_round_gives_even_beside_a_half() -> None:
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.random(50_000) * 4 - 1, rng.random(5_000) * 1e4])
    halves = np.arange(-20_000, 20_000, dtype=np.float64) / 1e6 + 0.5e-6  # where scaling could tip the result
    values = np.concatenate([values, halves, np.nextafter(halves, 1.0), np.nextafter(halves, -1.0), [0.0, -0.0]])
    assert rounded(values) == [round(v, 6) for v in values.tolist()]
    grid = rng.random((7, 3)).astype(np.float32)
    assert rounded(grid) == [[round(float(v), 6) for v in row] for row in grid]
    assert rounded(np.array([np.inf, -np.inf]))[:2] == [np.inf, -np.inf] and np.isnan(rounded(np.array([np.nan]))[0])


def test_breakdowns_at_equal_one_breakdown_at_a_time() -> None:
    rng = np.random.default_rng(5)
    parts = score_arrays(arrays(cosine=rng.random(30).tolist(), lexical=rng.random(30).tolist(),
                                importance=rng.random(30).tolist(), prior=[0.06] * 30, stability_hours=[24.0] * 30,
                                hours_since_access=(rng.random(30) * 100).tolist(),
                                hours_since_created=(rng.random(30) * 1000).tolist()), CONFIG)
    positions = [7, 0, 29, 7, 12]
    assert breakdowns_at(parts, positions) == [breakdown_at(parts, p) for p in positions]
    assert breakdowns_at(parts, []) == []
