"""Recall's second line of defence for truth: a newer restatement with a change cue retires the older one.

The write path retires an old value whenever the bookkeeper can tell it changed. When it cannot
("Sydney's home now, moved up on the weekend" after "I'm living in Melbourne"), both episodes stay
and the old one would keep surfacing as current. Here, among recall's candidates, a newer memory
that restates the same slot (the same person, and close in meaning: the embedding, not a template)
and carries a change cue ("now", "anymore", "switched", "no longer", "gave up", "started") keeps the
older one out of the block. Memories flagged as possibly stale (``dependents``) are ranked lower.

Pure apart from one read of the open reviews; recall calls ``apply`` once on its candidate pool.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from engram_core.core.chattext import normalise_chat
from engram_core.core.model import Cardinality, Memory, MemoryKind

if TYPE_CHECKING:
    from engram_core.core.index import ActiveIndex
    from engram_core.usecases.runtime import Runtime

CHANGE_CUE = re.compile(
    r"\b(?:now|anymore|any\s+more|any\s+longer|no\s+longer|switched|gave\s+up|given\s+up|started|moved|"
    r"relocated|renamed|rebranded|quit|left|joined|changed|instead|these\s+days|nowadays|stopped|"
    r"not\s+(?:more|into)|new|from\s+now\s+on|actually|correction|typo|I\s+mean|I\s+meant|mistake)\b", re.I)
# "Also", "too", "as well": a value added beside the old one, not instead of it.
ADDITIVE_CUE = re.compile(r"\b(?:also|too|as\s+well|another|second|both|additionally|plus|besides)\b", re.I)
_SPEAKER = re.compile(r"^(?P<who>[A-Z][\w .'-]{0,40}):\s")
_PEOPLE = re.compile(
    r"\b(?:my|our|his|her)\s+(?:\w+\s+)?(?P<who>wife|husband|partner|boyfriend|girlfriend|son|daughter|kids?|"
    r"children|mom|mum|mother|dad|father|brother|sister|parents|grand\w+|aunt|uncle|cousin|niece|nephew|"
    r"friend|boss|colleague|roommate|flatmate|neighbou?r|teacher|dog|cat|in-laws?)\b", re.I)
_OTHER_PRONOUN = re.compile(r"\b(?:he|she|he's|she's|they're)\b", re.I)


def _speaker(memory: Memory) -> str:
    if memory.kind is not MemoryKind.EPISODE:
        return (memory.subject or "user").lower()
    m = _SPEAKER.match(memory.text)
    return m.group("who").lower() if m else "user"


_SOMEONE = "someone"


def _people(text: str) -> frozenset[str]:
    """Whom a text is about besides its speaker: "my sister", "my boss"; a bare "she" is someone, whoever.
    (Names are left out: "Globex" is capitalised too.)"""
    text = normalise_chat(text)
    found = {m.group("who").lower() for m in _PEOPLE.finditer(text)}
    return frozenset(found or ({_SOMEONE} if _OTHER_PRONOUN.search(text) else set()))


def same_people(a: frozenset[str], b: frozenset[str]) -> bool:
    """Both about the speaker alone, or both about someone they share (a bare "she" shares anyone)."""
    if not a or not b:
        return a == b
    return bool(a & b) or _SOMEONE in a or _SOMEONE in b


def states_a_change(memory: Memory) -> bool:
    text = memory.text
    return (CHANGE_CUE.search(text) is not None and ADDITIVE_CUE.search(text) is None
            and not text.rstrip().endswith("?"))


def _retirable(memory: Memory, belief: Any) -> bool:
    """Raw episodes, and single-valued facts the ledger may have missed; never a critical memory."""
    if memory.critical:
        return False
    if memory.kind is MemoryKind.EPISODE:
        return True
    return memory.kind is MemoryKind.FACT and belief is not None and belief.cardinality is Cardinality.ONE


def restated(memories: list[tuple[Memory, Any]], vectors: np.ndarray, least_similarity: float) -> set[str]:
    """Ids of memories a newer, change-cued memory of the same person and slot restates (pure)."""
    newer = [i for i, (m, _) in enumerate(memories) if states_a_change(m)]
    if not newer:
        return set()
    similarity = vectors @ vectors[newer].T
    keys = [(_speaker(m), _people(m.text)) for m, _ in memories]
    drop = set()
    for i, (old, belief) in enumerate(memories):
        if not _retirable(old, belief):
            continue
        for column, j in enumerate(newer):
            new = memories[j][0]
            if j != i and new.created_at > old.created_at and keys[i][0] == keys[j][0] \
                    and same_people(keys[i][1], keys[j][1]) and similarity[i, column] >= least_similarity:
                drop.add(old.id)
                break
    return drop


def demoted(candidates: list[Any], flagged: dict[str, str], factor: float) -> list[Any]:
    """Candidates (named tuples with ``memory`` and ``score``), the flagged ones' scores times ``factor``."""
    return [c._replace(score=round(c.score * factor, 6)) if c.memory.id in flagged else c for c in candidates]


def apply(rt: Runtime, index: ActiveIndex, pool: Any) -> Any:
    """Recall's pool without the restated memories, possibly stale ones ranked lower."""
    candidates = pool.candidates
    if not candidates:
        return pool
    vectors = index.vectors[[c.position for c in candidates]]
    drop = restated([(c.memory, c.entry.belief) for c in candidates], vectors, rt.config.restatement_similarity)
    kept = demoted([c for c in candidates if c.memory.id not in drop], rt.store.possibly_stale(),
                   rt.config.possibly_stale_factor)
    return replace(pool, candidates=kept)
