"""The offline bookkeeper's adjudication (pure): is a new fact the same attribute as a stored belief?"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram_core.adapters.offline import lexicon
from engram_core.core.model import Belief, Cardinality, FactDraft, Verdict

_ARTICLES = re.compile(r"\b(?:the|a|an|my|our)\b", re.I)
_PREDICATE_ALIASES = {"location": "lives_in", "city": "lives_in", "residence": "lives_in", "home_city": "lives_in",
                      "current_city": "lives_in", "employer": "works_at", "company": "works_at",
                      "workplace": "works_at", "occupation": "job_title", "job": "job_title", "role": "job_title",
                      "profession": "job_title", "full_name": "name", "project": "project_name",
                      "allergies": "allergy", "hobbies": "hobby"}


def normalise(value: str) -> str:
    """Case, articles, punctuation and spacing do not make a different value."""
    return " ".join(re.findall(r"[\w+#]+", _ARTICLES.sub(" ", value.lower())))


def canonical_predicate(predicate: str) -> str:
    key = re.sub(r"[^a-z0-9]+", "_", predicate.lower()).strip("_")
    key = re.sub(r"^favou?rite_", "prefers_", key)
    return _PREDICATE_ALIASES.get(key, key)


def _objects_overlap(a: str, b: str) -> bool:
    """Same value, or one names the other ("Acme" vs "Acme Corp")."""
    wa, wb = set(normalise(a).split()), set(normalise(b).split())
    return bool(wa and wb) and (wa <= wb or wb <= wa)


def _same_attribute(new: FactDraft, old: Belief) -> bool:
    """A revised topic preference replaces a bare like of the same topic ("likes coffee")."""
    new_predicate, old_predicate = canonical_predicate(new.predicate), canonical_predicate(old.predicate)
    if not (new.revision and new_predicate.startswith("prefers_") and old_predicate in ("likes", "prefers")):
        return False
    topic = new_predicate.removeprefix("prefers_")
    words = normalise(old.object).split()
    return bool(words) and all(lexicon.topic_of(w) == topic for w in words)


def verdict_for(new: FactDraft, old: Belief) -> Verdict:
    """Conservative: anything not clearly the same attribute coexists."""
    if new.subject.strip().lower() != old.subject.strip().lower():
        return Verdict.COEXIST
    same_predicate = canonical_predicate(new.predicate) == canonical_predicate(old.predicate)
    if new.negated:
        return Verdict.SUPERSEDE if same_predicate and _objects_overlap(new.object, old.object) else Verdict.COEXIST
    if same_predicate and normalise(new.object) == normalise(old.object):
        return Verdict.DISCARD
    if same_predicate:
        single = new.cardinality is Cardinality.ONE and old.cardinality is Cardinality.ONE
        return Verdict.SUPERSEDE if single else Verdict.COEXIST
    return Verdict.SUPERSEDE if _same_attribute(new, old) else Verdict.COEXIST


def adjudicate(new: FactDraft, candidates: Sequence[Belief]) -> dict[str, object]:
    return {"verdicts": [{"id": b.id, "verdict": verdict_for(new, b).value} for b in candidates]}
