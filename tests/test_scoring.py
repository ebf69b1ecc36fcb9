"""Scoring: the DESIGN.md formula, component by component."""

from __future__ import annotations

import numpy as np
import pytest

from engram_core.core.config import EngineConfig
from engram_core.core.scoring import CandidateArrays, breakdown_at, normalise_lexical, score_arrays

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
