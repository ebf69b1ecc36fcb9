"""Relevance and score with a per-item breakdown (pure, vectorised).

relevance = w_sim * similarity + w_imp * importance + w_rec * recency + type prior
score     = relevance * (floor + (1 - floor) * retention)

``similarity`` blends cosine with lexical (FTS5 BM25) evidence. The defaults
(EngineConfig) let the match lead and retention break near-ties; the floor is
what a memory woken from the cold tier competes with.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from engram_core.core.config import EngineConfig
from engram_core.core.model import ScoreBreakdown


@dataclass(frozen=True, eq=False)
class CandidateArrays:
    """Column view of the candidates, aligned by index."""

    prior: np.ndarray  # type prior per kind
    importance: np.ndarray
    stability_hours: np.ndarray
    hours_since_access: np.ndarray
    hours_since_created: np.ndarray
    cosine: np.ndarray
    lexical: np.ndarray  # already normalised to [0, 1]
    fused: np.ndarray | None = None  # reciprocal-rank fusion of the two rankings, scaled to [0, 1]
    previous: np.ndarray | None = None  # row of the turn before in the same session, -1 for none
    following: np.ndarray | None = None
    named: np.ndarray | None = None  # 1.0 where the query names the memory's speaker or subject
    dated: np.ndarray | None = None  # 1.0 where the memory was recorded in the time the query names


def normalise_lexical(raw: np.ndarray) -> np.ndarray:
    """Scale non-negative BM25 evidence to [0, 1] by the best match of this query."""
    top = float(raw.max()) if raw.size else 0.0
    return raw / top if top > 0 else np.zeros_like(raw)


def _retention(cols: CandidateArrays, config: EngineConfig) -> np.ndarray:
    if not config.forgetting:
        return np.ones_like(cols.importance)
    kept: np.ndarray = np.exp(-cols.hours_since_access / np.maximum(cols.stability_hours, 1e-9))
    return kept


RRF_K = 60.0  # reciprocal-rank fusion's usual constant


def rank_fusion(cosine: np.ndarray, lexical_rows: np.ndarray, depth: int) -> np.ndarray:
    """Reciprocal-rank fusion of the cosine ranking (its best ``depth``) and the lexical one (rows best
    first), scaled so an item first in both scores 1."""
    fused = np.zeros(len(cosine), dtype=np.float64)
    depth = min(depth, len(cosine))
    if depth:
        top = np.argpartition(-cosine, depth - 1)[:depth]
        top = top[np.argsort(-cosine[top], kind="stable")]
        fused[top] += 1.0 / (RRF_K + np.arange(1, depth + 1))
    fused[lexical_rows] += 1.0 / (RRF_K + np.arange(1, len(lexical_rows) + 1))
    return fused * ((RRF_K + 1.0) / 2.0)


def _neighbour_match(match: np.ndarray, previous: np.ndarray | None, following: np.ndarray | None) -> np.ndarray:
    """Per row, the better match of the turns just before and after it (0 where there is none)."""
    best = np.zeros_like(match)
    for links in (previous, following):
        if links is not None:
            linked = links >= 0
            best[linked] = np.maximum(best[linked], match[links[linked]])
    return best


def score_arrays(cols: CandidateArrays, config: EngineConfig) -> dict[str, np.ndarray]:
    """Every component of the breakdown, one array each."""
    w = config.weights
    cosine = np.clip(cols.cosine, 0.0, 1.0)
    similarity = (1.0 - w.lexical_share) * cosine + w.lexical_share * cols.lexical
    match = similarity if cols.fused is None else (1.0 - w.rank_fusion) * similarity + w.rank_fusion * cols.fused
    if w.neighbours > 0:
        match = match + w.neighbours * _neighbour_match(match, cols.previous, cols.following)
    if cols.named is not None:
        match = match + w.entity * cols.named
    if cols.dated is not None:
        match = match + w.timeframe * cols.dated
    recency = 0.5 ** (cols.hours_since_created / w.recency_half_life_hours)
    prior = cols.prior
    relevance = w.similarity * match + w.importance * cols.importance + w.recency * recency + prior
    retention = _retention(cols, config)
    score = relevance * (w.retention_floor + (1.0 - w.retention_floor) * retention)
    return {
        "similarity": similarity, "lexical": cols.lexical, "importance": cols.importance,
        "recency": recency, "retention": retention, "type_prior": prior,
        "relevance": relevance, "score": score,
    }


def breakdown_at(parts: dict[str, np.ndarray], index: int) -> ScoreBreakdown:
    return ScoreBreakdown(**{name: round(float(values[index]), 6) for name, values in parts.items()})


def breakdowns_at(parts: dict[str, np.ndarray], positions: list[int]) -> list[ScoreBreakdown]:
    """``breakdown_at`` for each of ``positions``, the same values in one pass over the arrays."""
    if not positions:
        return []
    names = list(parts)
    columns = rounded(np.stack([np.asarray(parts[name][positions], dtype=np.float64) for name in names], axis=1))
    return [ScoreBreakdown(**dict(zip(names, row, strict=True))) for row in columns]


ROUNDING = 6  # decimal places of every breakdown value (and of the score recall packs by)
_SCALE = 10.0 ** ROUNDING


def rounded(values: np.ndarray) -> list:  # type: ignore[type-arg]  # nested lists of floats, as tolist gives
    """``round(float(v), 6)`` of each value, as ``tolist`` nests them: numpy rounds (scale, round half to
    even, scale back: 5 us for 400 values against 110 us for 400 calls of ``round``), and the values whose
    scaled form sits near a half, where the scaling's own rounding could tip the result, go through
    ``round``. Elsewhere the two agree: the scaled value is off by under an ulp, and dividing the whole
    number by 10**6 is correctly rounded, as ``round``'s decimal-to-float conversion is."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # inf and nan are never near a half: ``np.round`` keeps them
        scaled = values * _SCALE
        near_half = np.abs(np.abs(scaled - np.floor(scaled)) - 0.5) < 1e-6
    result = np.round(values, ROUNDING)
    if near_half.any():
        for at in zip(*np.nonzero(near_half), strict=True):
            result[at] = round(float(values[at]), ROUNDING)
    return result.tolist()  # type: ignore[no-any-return]


def hours_since(times: list[datetime], now: datetime) -> np.ndarray:
    seconds = np.array([(now - t).total_seconds() for t in times], dtype=np.float64)
    return np.maximum(seconds, 0.0) / 3600.0
