"""Answers first: current beliefs whose attribute the query names lead the block (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram_core.core.model import Belief
from engram_core.core.render import fact_label
from engram_core.core.topics import TOPIC_ALIASES

_QUERY_WORD = re.compile(r"[a-z]+")
_NOT_CUES = frozenset("a an the in at on of to for by as is with from my i".split())
ANSWER_TIER = 2.0  # above any score (relevance is at most about 1.06): answers pack first


def _stem(word: str) -> str:
    """Plural and third-person forms meet their base: "lives" and "live", "bands" and "band"."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _cues(belief: Belief) -> frozenset[str]:
    """The words that name a belief's attribute: its label's, and the label's other names ("dish" for food)."""
    label = fact_label(belief.predicate) or ""
    words = set(_QUERY_WORD.findall(label)) - _NOT_CUES
    words |= {alias for alias, topic in TOPIC_ALIASES.items() if topic in words and "_" not in alias}
    return frozenset(_stem(w) for w in words)


def _asked_about(belief: Belief, asked: frozenset[str]) -> bool:
    """Another person's fact answers only a question that names them ("where does my aunt live?")."""
    if belief.subject == "user":
        return True
    return bool({_stem(w) for w in _QUERY_WORD.findall(belief.subject.lower())} & asked)


def answer_tiers(beliefs: Sequence[tuple[str, Belief | None]], query: str) -> dict[str, float]:
    """Current beliefs whose attribute the query names, ranked by how many of its words they answer.

    "Where do I live now?" names lives_in, so a three-week-old home city beats a fresh, vaguely
    related memory; with room for a line or two that line must be the answer.
    """
    asked = frozenset(_stem(w) for w in _QUERY_WORD.findall(query.lower())) - _NOT_CUES
    tiers = {}
    for memory_id, belief in beliefs:
        if belief is not None and not _asked_about(belief, asked):
            continue
        matched = len(_cues(belief) & asked) if belief is not None else 0
        if matched:
            tiers[memory_id] = matched * ANSWER_TIER
    return tiers


def attribute_label(belief: Belief) -> str | None:
    """What a belief is about, as words to match a question by meaning: "lives in", "sister lives in"."""
    label = fact_label(belief.predicate)
    if label is None:
        return None
    return label if belief.subject == "user" else f"{belief.subject} {label}"


def named_by_meaning(similarity: dict[str, float], least: float, margin: float) -> str | None:
    """The attribute a question names in other words: the best-matching label, if it matches well
    enough and clearly better than the runner-up ("Which company am I with?" names "works at")."""
    ranked = sorted(similarity.items(), key=lambda pair: (-pair[1], pair[0]))
    if not ranked or ranked[0][1] < least:
        return None
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < margin:
        return None
    return ranked[0][0]
