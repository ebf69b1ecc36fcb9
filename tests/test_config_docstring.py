"""EngineConfig's docstring states the defaults the code ships, so a tuned default cannot leave it behind."""

from __future__ import annotations

from engram_core.core.config import EngineConfig
from engram_core.core.model import MemoryKind


def _doc() -> str:
    return " ".join((EngineConfig.__doc__ or "").split())


def test_the_scoring_formula_in_the_docstring_has_the_default_weights() -> None:
    config, doc = EngineConfig(), _doc()
    w = config.weights
    formula = f"relevance = {w.similarity:.2f} * match + {w.importance:.2f} * importance + {w.recency:.1f} * recency"
    assert formula in doc
    assert f"lexical share {w.lexical_share:.2f}" in doc
    assert f"+{w.entity:.2f} when the query names" in doc and f"+{w.timeframe:.2f} when it was recorded" in doc
    assert w.neighbours == 0.5 and "half of the best adjacent turn's match" in doc
    floor = w.retention_floor
    assert f"score = relevance * ({floor:.2f} + {1 - floor:.2f} * retention)" in doc
    assert f"facts and preferences +{config.type_prior[MemoryKind.FACT]:.2f}" in doc
    assert config.type_prior[MemoryKind.FACT] == config.type_prior[MemoryKind.PREFERENCE]
    assert f"gists {config.type_prior[MemoryKind.GIST]:.2f}" in doc


def test_the_forgetting_figures_in_the_docstring_are_the_defaults() -> None:
    config, doc = EngineConfig(), _doc()
    hours = config.base_stability_hours
    assert f"S starts at {hours[MemoryKind.EPISODE]:.0f} h for an episode" in doc
    assert f"{hours[MemoryKind.FACT] / 24:.0f} days for a fact" in doc
    assert f"{hours[MemoryKind.PREFERENCE] / 24:.0f} for a preference" in doc
    gain = f"({config.reinforce_gain} x S + {config.reinforce_bonus_hours:.0f} h)"
    assert f"(0.5 + importance), and grows by {gain}" in doc
    assert f"at most {config.reinforce_top} per recall" in doc and f">= {config.reinforce_similarity}" in doc
    assert f"Below retention {config.decay_floor}" in doc
    assert f"(hybrid similarity >= {config.wake_similarity:.2f})" in doc
    assert f"(>= {config.fill_similarity:.2f})" in doc
    assert f"importance under {config.store_threshold}" in doc and f"importance >= {config.critical_importance}" in doc
    assert config.max_stability_hours == 24 * 365 * 5 and "up to five years" in doc
