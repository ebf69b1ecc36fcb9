"""Belief ledger rules (pure): exact adjudication, bi-temporal supersession, veto."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from engram_core.core.model import Belief, Cardinality, FactDraft, Verdict

_SPACES = re.compile(r"\s+")
NEGATED_PREFIX = "not:"


def normalise_value(value: str) -> str:
    return _SPACES.sub(" ", value.strip().strip(".!?,;:").lower())


def belief_predicate(draft: FactDraft) -> str:
    """Negations live under their own predicate so they never block the positive one."""
    return NEGATED_PREFIX + draft.predicate if draft.negated else draft.predicate


# What someone likes, does or eats: a value given up under one of these names retires it under any other
# ("I don't drink coffee anymore" ends "loves coffee"; "done with paleo" ends the paleo diet).
_PREFERENCE_FAMILY = re.compile(r"^(?:likes|loves|enjoys|prefers(?:_\w+)?|favou?rite_\w+|hobby|hobbies|eats|drinks|"
                                r"plays|diet|interests?|fan_of|into)$")
_FILLER_WORDS = frozenset("a an the my our his her their some of".split())


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def value_words(value: str) -> frozenset[str]:
    """The words that make a value, plural and singular alike ("cats" is "cat")."""
    return frozenset(_singular(w) for w in re.findall(r"[\w+#]+", value.lower()) if w not in _FILLER_WORDS)


def values_overlap(a: str, b: str) -> bool:
    """Same value, or one names the other ("Acme" and "Acme Corp", "wine" and "red wine")."""
    wa, wb = value_words(a), value_words(b)
    return bool(wa and wb) and (wa <= wb or wb <= wa)


def exact_verdict(draft: FactDraft, current: Belief) -> Verdict:
    """Same subject and predicate: decided by rule, no model needed."""
    same_object = normalise_value(draft.object) == normalise_value(current.object)
    if draft.negated:
        return Verdict.SUPERSEDE if same_object or values_overlap(draft.object, current.object) else Verdict.COEXIST
    if _opposite(draft, current):
        return Verdict.SUPERSEDE
    if same_object:
        return Verdict.DISCARD
    if draft.cardinality is Cardinality.ONE and current.cardinality is Cardinality.ONE:
        return Verdict.SUPERSEDE
    return Verdict.COEXIST


def tentative_verdicts(draft: FactDraft, verdicts: dict[str, Verdict]) -> dict[str, Verdict]:
    """A tentative fact (the wording only suggests it) never replaces a held value ("I'm Sam" keeps the
    name held), and a tentative negation only retires the value it names ("done with X" with no X held
    makes no belief): otherwise the episode is kept and no belief is made."""
    if not draft.tentative:
        return verdicts
    supersedes = Verdict.SUPERSEDE in verdicts.values()
    if supersedes != draft.negated:
        return {bid: Verdict.DISCARD for bid in verdicts}
    return verdicts


def makes_no_belief(draft: FactDraft, verdicts: dict[str, Verdict]) -> bool:
    """A tentative negation that retires nothing, or a fact some current belief already holds."""
    if draft.tentative and draft.negated and Verdict.SUPERSEDE not in verdicts.values():
        return True
    return Verdict.DISCARD in verdicts.values()


def same_fact(draft: FactDraft, belief: Belief) -> bool:
    """The draft states exactly what the belief holds (subject, predicate with its negation, value)."""
    return (belief.subject == draft.subject and belief.predicate == belief_predicate(draft)
            and normalise_value(belief.object) == normalise_value(draft.object))


_NEVER_RETRACTED = re.compile(r"^(?:not:|allergy|intolerance|medical_condition|name$)")


def _given_up(draft: FactDraft, belief: Belief) -> bool:
    """A negation retires a liking of the same thing under another name; a tentative one ("no more night
    shifts", "left the bank") whatever held value it names, a critical one aside."""
    if not values_overlap(draft.object, belief.object):
        return False
    if draft.tentative and not _NEVER_RETRACTED.match(belief.predicate):
        return True
    return bool(_PREFERENCE_FAMILY.match(draft.predicate) and _PREFERENCE_FAMILY.match(belief.predicate))


# A value stated under one of these retires the same value under the other ("doesn't eat eggs" ends "eats eggs").
_OPPOSITES = {"avoids_food": ("eats", "likes"), "dislikes": ("likes",), "likes": ("dislikes",),
              "eats": ("avoids_food",)}


_MEAT = frozenset("meat meats chicken beef pork lamb bacon ham steak steaks turkey sausage sausages burger burgers "
                  "mince veal duck venison chorizo salami pepperoni".split())
_FISH = frozenset("fish salmon tuna cod seafood prawn prawns shrimp sushi sardines anchovies mussels oysters "
                  "crab lobster".split())
_ANIMAL = frozenset("dairy cheese milk eggs egg butter yoghurt yogurt cream honey".split())
# What each diet leaves out: eating it now ends the diet ("Now I eat chicken again" after "I'm vegetarian").
_PORK = frozenset("pork pig bacon ham sausage sausages salami pepperoni chorizo lard gelatin".split())
_DIET_LEAVES_OUT = {"vegetarian": _MEAT | _FISH, "veggie": _MEAT | _FISH, "pescatarian": _MEAT,
                    "halal": _PORK | {"alcohol", "wine", "beer"}, "kosher": _PORK | {"shellfish", "prawns", "shrimp"},
                    "dairy free": frozenset({"dairy", "cheese", "milk", "butter", "cream"}),
                    "pescetarian": _MEAT, "vegan": _MEAT | _FISH | _ANIMAL, "plant-based": _MEAT | _FISH | _ANIMAL,
                    "plant based": _MEAT | _FISH | _ANIMAL, "dairy-free": frozenset({"dairy", "cheese", "milk",
                                                                                   "butter", "cream"})}


# Eating anything at all: "I eat pretty much everything, no restrictions".
_ANYTHING = frozenset("everything anything whatever restriction".split())


def _breaks_diet(draft: FactDraft, belief: Belief) -> bool:
    """Eating what a held diet leaves out (or anything at all) ends the diet; taking up a diet ends eating what it
    leaves out."""
    if draft.predicate == "eats" and belief.predicate == "diet":  # anything at all ends any diet ("gluten-free")
        left_out = _DIET_LEAVES_OUT.get(normalise_value(belief.object), frozenset())
        return bool(value_words(draft.object) & (left_out | _ANYTHING))
    if draft.predicate == "diet" and belief.predicate == "eats":
        leaves_out = _DIET_LEAVES_OUT.get(normalise_value(draft.object))
        return leaves_out is not None and bool(value_words(belief.object) & (leaves_out | _ANYTHING))
    return False


# A status that means no employer: "Dad retired" ends "works at the post office", whatever the place.
_NO_EMPLOYER = frozenset({"retired", "unemployed", "jobless", "out of work", "between jobs"})


def _leaves_work(draft: FactDraft, belief: Belief) -> bool:
    return (draft.predicate == "job_title" and belief.predicate == "works_at"
            and normalise_value(draft.object) in _NO_EMPLOYER)


def _opposite(draft: FactDraft, belief: Belief) -> bool:
    """"can't stand The Office" ends "likes The Office" and the favourite show "The Office" alike;
    eating chicken ends being vegetarian; retiring ends the employer."""
    if not draft.negated and (_breaks_diet(draft, belief) or _leaves_work(draft, belief)):
        return True
    opposed = belief.predicate in _OPPOSITES.get(draft.predicate, ()) or (
        draft.predicate == "dislikes" and belief.predicate.startswith("prefers_"))
    return not draft.negated and opposed and values_overlap(draft.object, belief.object)


def exact_candidates(draft: FactDraft, current: Sequence[Belief]) -> list[Belief]:
    """Current beliefs the exact path judges: same subject and (positive) predicate; for a negation,
    also a liking of the same thing under another name."""
    same = [b for b in current if b.subject == draft.subject]
    return [b for b in same if b.predicate == draft.predicate or (draft.negated and _given_up(draft, b))
            or _opposite(draft, b)]


def close_belief(old: Belief, successor_id: str, world_end: datetime, now: datetime) -> Belief:
    """Supersede: end the old belief's world interval and retire it; nothing is overwritten."""
    end = max(world_end, old.valid_from)
    return replace(old, valid_to=end, expired_at=now, superseded_by=successor_id)


def end_belief(old: Belief, world_end: datetime, now: datetime) -> Belief:
    """A value said to have stopped ("Can't watch horror anymore"): its world interval ends, with no
    successor; nothing is overwritten."""
    return replace(old, valid_to=max(world_end, old.valid_from), expired_at=now)


def retire_belief(old: Belief, now: datetime) -> Belief:
    """Forget: the engine stops holding the belief (system time) without a successor."""
    return replace(old, expired_at=now)


def arrives_late(old: Belief, new_valid_from: datetime) -> bool:
    """An imported older fact must not supersede a newer one: it becomes history instead."""
    return new_valid_from < old.valid_from


def as_history(new: Belief, newer: Belief) -> Belief:
    """A late-arriving value, closed where the newer value starts."""
    return replace(new, valid_to=newer.valid_from, superseded_by=newer.id)


def keep_newest(entries: Sequence[tuple[str, str | None, datetime]]) -> set[str]:
    """Retrieval veto: of items sharing a single-valued (subject, predicate) key keep the newest.

    ``entries`` are (item id, veto key or None, valid_from). Returns the ids to drop.
    """
    newest: dict[str, tuple[datetime, str]] = {}
    for item_id, key, when in entries:
        if key is not None and (key not in newest or when > newest[key][0]):
            newest[key] = (when, item_id)
    keep = {item_id for _, item_id in newest.values()}
    return {item_id for item_id, key, _ in entries if key is not None and item_id not in keep}
