"""Who a fact is about, and what a correction corrects (pure: read against the current beliefs).

Extraction sees one message; the ledger knows the rest. "Maya switched schools" is about
the daughter the user named Maya in an earlier message, and "I mean Tuesday, not Monday"
corrects whichever current belief holds "Monday". Both are settled here, at planning time,
before the fact is adjudicated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from engram_core.core.chattext import one_edit
from engram_core.core.ledger import value_words
from engram_core.core.model import Belief, FactDraft
from engram_core.core.values import Shape, replace_value, shape_of
from engram_core.core.words import meaning

USER = "user"
CORRECTION = "corrects"  # the predicate of a draft that only says "X, not Y"
_RELATION_PREDICATE = re.compile(r"^(?:family|pet)_(?P<rel>[a-z_]+)$")


def _named_as(name: str, user_beliefs: Sequence[Belief]) -> str | None:
    """The relation the user gave this name to ("daughter" for Maya), when exactly one fits."""
    relations, words = set(), value_words(name)
    for belief in user_beliefs:
        m = _RELATION_PREDICATE.match(belief.predicate)
        if m and belief.subject == USER and words and words <= value_words(belief.object):  # "Ines", "Marcus"
            relations.add(m.group("rel").replace("_", " "))
    return relations.pop() if len(relations) == 1 else None


def resolve_subject(draft: FactDraft, user_beliefs: Sequence[Belief]) -> FactDraft:
    """A person named bare ("maya") becomes the relation the user named them as ("daughter")."""
    subject = draft.subject.strip().lower()
    if subject == USER or " " in subject:
        return draft
    relation = _named_as(subject, user_beliefs)
    return replace(draft, subject=relation) if relation else draft


def _swap(text: str, old: str, new: str) -> str:
    return re.sub(re.escape(old), new, text, count=1, flags=re.I)


def _corrected_value(held: str, old: str, new: str) -> str:
    """"maple street" with "street" corrected to "maple avenue" is "maple avenue", not "maple maple avenue"."""
    said = value_words(old)
    rest = {h for h in value_words(held) if not any(h == w or (len(w) >= 5 and one_edit(w, h)) for w in said)}
    if not rest:  # the whole value replaced ("the NHS" by "Bupa"): the new one as said
        return new
    return new if rest & value_words(new) else _swap(held, old, new)


def _holds(held: str, old: str) -> bool:
    """The held value has the old one's words, or the same words with a slip of one letter
    ("penicilin" for "penicillin"): a correction names the value as it is spelled now."""
    said, there = value_words(old), value_words(held)
    if not said:
        return False
    return said <= there or all(w in there or (len(w) >= 5 and any(one_edit(w, h) for h in there)) for w in said)


def resolve_correction(draft: FactDraft, current: Sequence[Belief]) -> tuple[FactDraft, Belief] | None:
    """"X, not Y": the newest current belief of the subject that holds Y, and the draft that corrects
    it to X (None when no current belief holds Y: then the correction is only kept as an episode)."""
    old = draft.replaces or ""
    holding = [b for b in current if b.subject == draft.subject and _holds(b.object, old)]
    if not holding:
        return None
    held = max(holding, key=lambda b: b.valid_from)
    value = _corrected_value(held.object, old, draft.object)
    statement = _swap(held.statement, held.object, value) if held.object in held.statement else draft.statement
    corrected = replace(draft, predicate=held.predicate.removeprefix("not:"), object=value, statement=statement,
                        cardinality=held.cardinality, negated=held.predicate.startswith("not:"), revision=True,
                        replaces=None)
    return corrected, held


# The words that name a slot the predicate itself does not say: "third city in two years" is where one lives.
_SLOT_WORDS = {"lives_in": meaning("city town village country"),
               "works_at": meaning("employer company firm")}


def _slot_named(belief: Belief, slot: frozenset[str]) -> bool:
    """The slot's words name the belief: "street" in "The user's street is Station Road"."""
    named = (meaning(belief.predicate.replace("_", " ")) | meaning(belief.predicate.replace("_", ""))
             | (meaning(belief.statement) - meaning(belief.object))  # "gamer_tag" is a "gamertag" too
             | _SLOT_WORDS.get(belief.predicate, frozenset()))
    return bool(slot & named)


def _renamed_word(held: Belief, new: str, slot: frozenset[str]) -> str | None:
    """"our wifi is called smithhouse", then "renamed the wifi to fbi_van_3": a one-word name with no
    shape of its own gives way to a new name for the slot the sentence names (never without one)."""
    word = held.object.strip()
    if not slot or " " in word or shape_of(word) is not None or word.lower() == new.lower():
        return None
    return new if shape_of(new) in (Shape.NAME, Shape.HANDLE) else None


def resolve_shaped(draft: FactDraft, current: Sequence[Belief]) -> tuple[FactDraft, Belief] | None:
    """A correction that says only its new value ("nvm its july 27", "it's Windrush Way now"): the newest
    current belief holding one value of the same shape (a date for a date, a name for a name), of the
    slot the sentence names when it names one, and the draft that puts the new value in its place.
    None when no belief fits: then the message is only kept as an episode."""
    slot = meaning(draft.slot or "") | frozenset((draft.slot or "").split())  # words, or their stems ("hors")
    for held in sorted(current, key=lambda b: b.valid_from, reverse=True):
        value = replace_value(held.object, draft.object) or _renamed_word(held, draft.object, slot)
        if value is None or held.predicate.startswith("not:") or (slot and not _slot_named(held, slot)):
            continue
        statement = _swap(held.statement, held.object, value) if held.object in held.statement else draft.statement
        return replace(draft, subject=held.subject, predicate=held.predicate, object=value, statement=statement,
                       cardinality=held.cardinality, revision=True, replaces=None, slot=None), held
    return None
