"""Offline judgements that need no extraction rules: importance, gists, dream proposals, replies (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engram_core.adapters.offline.checks import DATE_WORDS
from engram_core.adapters.offline.heuristics import CRITICAL, FIRST_PERSON, QUESTION_START, extract_facts, sentences

# -- importance ----------------------------------------------------------------------

_SMALLTALK = frozenset(
    "ok okay k kk thanks thank you ty thx haha hahaha lol lmao sounds good great cool nice yes yeah yep yup no "
    "nope sure hi hello hey bye goodbye see ya later awesome perfect got it alright fine right hmm hm wow np "
    "sweet gotcha noted morning night welcome cheers indeed true exactly of course much so very a lot the "
    "same too oh ah i that s is makes sense love it good evening afternoon and all".split())
_LAUGH = re.compile(r"^(?:(?:ha)+h?|(?:he)+|(?:lo)+l|lmao|rofl|xd)$")


@dataclass(frozen=True)
class ImportanceFeatures:
    """The named evidence behind an importance score."""

    smalltalk: bool
    question: bool
    personal: bool
    dated: bool
    critical: bool
    fact_importance: float  # highest importance among extracted facts, 0 when none


def _is_smalltalk(text: str) -> bool:
    words = re.findall(r"[a-z]+", text.lower())
    return len(words) <= 8 and all(w in _SMALLTALK or _LAUGH.match(w) for w in words)


def importance_features(text: str) -> ImportanceFeatures:
    facts = extract_facts(text)
    return ImportanceFeatures(
        smalltalk=not facts and _is_smalltalk(text),
        question=text.strip().endswith("?") or QUESTION_START.match(text.strip()) is not None,
        personal=FIRST_PERSON.search(text) is not None,
        dated=DATE_WORDS.search(text) is not None,
        critical=CRITICAL.search(text) is not None and not text.strip().endswith("?"),
        fact_importance=max((f.importance for f in facts), default=0.0))


def score_importance(text: str) -> float:
    """0..1: small talk ~0.05, impersonal questions ~0.2, personal facts 0.6+, safety 0.95+."""
    f = importance_features(text)
    if f.smalltalk:
        return 0.05
    base = (0.2 + (0.1 if f.personal else 0.0)) if f.question else (0.35 + (0.15 if f.personal else 0.0))
    base += 0.15 if f.dated else 0.0
    score = max(base, f.fact_importance, 0.95 if f.critical else 0.0)
    return round(min(score, 1.0), 3)


# -- gists, dreams, replies ----------------------------------------------------------

GIST_WORDS = 40
_STOPWORDS = frozenset("the a an and or but so to of in on at for with is are was were be been it this that i "
                       "you we my me your our they he she just really very".split())


def _informativeness(fragment: str) -> float:
    words = re.findall(r"[\w']+", fragment)
    content = sum(1 for w in words if w.lower() not in _STOPWORDS and len(w) > 2)
    return score_importance(fragment) * 10 + content * 0.5


def summarise(texts: Sequence[str]) -> str:
    """An extractive gist: the most informative distinct fragments, in original order, <= 40 words."""
    fragments = list(dict.fromkeys(s.rstrip(".!") for t in texts for s in sentences(t) if not _is_smalltalk(s)))
    ranked = sorted(range(len(fragments)), key=lambda i: (-_informativeness(fragments[i]), i))
    chosen, used = [], 0
    for i in ranked:
        size = len(fragments[i].split())
        if used + size <= GIST_WORDS:
            chosen.append(i)
            used += size
    if not chosen and fragments:
        return "Gist: " + " ".join(fragments[ranked[0]].split()[:GIST_WORDS]) + "."
    return "Gist: " + ("; ".join(fragments[i] for i in sorted(chosen)) or "nothing notable") + "."


DUPLICATE_JACCARD = 0.8
FORGET_BELOW = 0.2
CRITICAL_IMPORTANCE = 0.95


def _word_set(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", text.lower()))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _duplicate_groups(memories: Sequence[tuple[str, str, float]]) -> list[list[tuple[str, str, float]]]:
    """Greedy, in input order: each memory joins the first group whose founder it nearly repeats."""
    groups: list[tuple[frozenset[str], list[tuple[str, str, float]]]] = []
    for memory in memories:
        words = _word_set(memory[1])
        home = next((g for founder, g in groups if jaccard(founder, words) >= DUPLICATE_JACCARD), None)
        home.append(memory) if home is not None else groups.append((words, [memory]))
    return [g for _, g in groups if len(g) > 1]


def _merge_action(group: list[tuple[str, str, float]]) -> dict[str, object]:
    keeper = max(group, key=lambda m: (m[2], len(m[1])))
    critical = any(CRITICAL.search(text) for _, text, _ in group)
    importance = max(max(m[2] for m in group), CRITICAL_IMPORTANCE if critical else 0.0)
    return {"action": "merge", "ids": [m[0] for m in group], "text": keeper[1], "importance": importance,
            "reason": f"near-duplicates (word overlap >= {DUPLICATE_JACCARD})"}


def _single_action(memory_id: str, text: str, importance: float) -> dict[str, object] | None:
    if CRITICAL.search(text) and importance < 0.9:
        return {"action": "reimportance", "ids": [memory_id], "importance": CRITICAL_IMPORTANCE,
                "reason": "mentions allergy, health or safety"}
    if importance < FORGET_BELOW and score_importance(text) < 0.3:
        return {"action": "forget", "ids": [memory_id], "reason": "low importance small talk"}
    return None


def propose_dream(memories: Sequence[tuple[str, str, float]]) -> dict[str, object]:
    """Merges of near-duplicates, forgets of trivia, and importance raises for safety facts."""
    groups = _duplicate_groups(memories)
    merged = {m[0] for g in groups for m in g}
    singles = (_single_action(*m) for m in memories if m[0] not in merged)
    return {"actions": [_merge_action(g) for g in groups] + [a for a in singles if a is not None]}


OFFLINE_NOTICE = ("I'm running on Engram's offline engine (no language model is connected), "
                  "so I can only show what I recalled.")
_BLOCK_MARKUP = re.compile(r"^(?:<[^>]*>|#+.*|```.*|\[\d{1,2} [A-Z][a-z]{2} \d{4}\])$")  # a day heading is no memory


def recalled_lines(memory_block: str) -> list[str]:
    lines = (line.strip() for line in memory_block.splitlines())
    items = (re.sub(r"^(?:[-*•]|\d+[.)])\s*", "", line) for line in lines if line and not _BLOCK_MARKUP.match(line))
    return list(dict.fromkeys(item for item in items if item and not item.endswith(":")))


def offline_reply(message: str, memory_block: str) -> str:
    """An honest template: the notice, then the recalled lines verbatim (or that none were relevant)."""
    lines = recalled_lines(memory_block)
    if not lines:
        return f"{OFFLINE_NOTICE} I didn't recall anything relevant to that."
    bullets = "\n".join(f"- {line}" for line in lines[:12])
    return f"{OFFLINE_NOTICE} Here is what I recalled that may be relevant:\n{bullets}"

