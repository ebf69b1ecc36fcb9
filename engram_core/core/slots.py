"""The slot veto at recall: a newer memory that says one of the speaker's single-valued slots changed
keeps an older memory of the same person about that slot out of the block (pure).

The bookkeeper retires an old value when it can read the change ("I moved to Porto"). When it cannot
("Porto's home these days, the old flat in Lisbon is let out"), both episodes stay and the old one keeps
surfacing as current. The restatement veto (``restatements.restated``) catches these by meaning alone,
and cost real conversations half their evidence, since long chats are full of "now" between turns close
in meaning. This veto is narrower: the newer memory must say, in one sentence, that a slot changed (a
slot word and a change cue together), the older one must speak of the same slot, both of the same
person, and the two must be close in meaning. The slots are the single-valued ones, where a new value
is the end of the old: where one lives, whom one works for, one's name, one's diet. Likes, pets and
languages are left alone: a new one sits beside the old.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

import numpy as np

from engram_core.core.chattext import normalise_chat
from engram_core.core.model import Belief, Memory, MemoryKind
from engram_core.core.restatements import _ALIASES, _BARE_RELATION, _PEOPLE, ADDITIVE_CUE, _retirable, _said, \
    _speaker

# The words that speak of each slot; plain vocabulary, not sentence shapes. Words that chat uses for much
# else ("team", "joined", "place", "career") are left out: on LoCoMo they retired turns nobody had changed.
SLOT_WORDS: dict[str, re.Pattern[str]] = {
    "home": re.compile(
        r"\b(?:live[sd]?\s+(?:in|at|on|with|near|by|out)|living\s+(?:in|at|on|with|near|by|out)|moved|moving|"
        r"relocat\w*|(?:my|our|new)\s+(?:home|flat|apartment|place|house|condo)|home\s+(?:is|now)|'s\s+home|"
        r"based\s+in|emigrat\w*)\b", re.I),
    "work": re.compile(
        r"\b(?:work(?:s|ed|ing)?\s+(?:at|for|in|as)|(?:my|new|old|the|day)\s+(?:\w+\s+)?job|job\s+(?:at|as|with|in)|employer|employed|company|firm|hired|resign\w*|"
        r"redundan\w*|laid\s+off|freelanc\w*|(?:I'?m|im)\s+(?:an?\s+(?:\w+\s+){0,2})?at|I\s+do\s+\w+\s+(?:\w+\s+)?at|teach(?:es|ing)?\s+(?:at|in)|student|"
        r"stud(?:y|ies|ying)\s+(?:at|in)|(?:night|day|early|late)\s+shifts?|start(?:ed|ing)\s+at\s+(?-i:[A-Z])\w*)\b",
        re.I),
    "name": re.compile(
        r"\b(?:name[sd]?|renam\w*|called|call(?:s|ed)?\s+(?:me|it|him|her|them|us)|go(?:es)?\s+by|surname|maiden|"
        r"rebrand\w*|title[sd]?)\b", re.I),
    "diet": re.compile(
        r"\b(?:vegetarian|veggie|vegan|pescatarian|pescetarian|meat|fish|dairy|diet|keto|paleo|plant[\s-]based|"
        r"gluten|carnivore|c(?:o)?eliac|lactose)\b", re.I),
}
# A change of the speaker's own: the cue near the slot word, in a sentence that speaks of the speaker
# (or leaves the speaker out, as chat does: "Moving day done, hello Philadelphia!").
SLOT_CHANGE = re.compile(
    r"\b(?:now|anymore|any\s+more|any\s+longer|no\s+longer|switched|moved|moving|relocated|quit|left|"
    r"changed|instead|these\s+days|nowadays|stopped|new|from\s+now\s+on|back\s+to|gave\s+up|gone|went|"
    r"renam\w*|rebrand\w*|hired|resigned|emigrated|laid\s+off|redundant|started)\b", re.I)
NEAR_WORDS = 6  # at most this many words between the cue and the slot word
_OTHER_SUBJECT = re.compile(r"^\W*(?:you|your|he|she|they|his|her|their|it|that|this)\b", re.I)
# A change only thought of: "if I moved to Seattle", "I might go freelance", "someday I want to".
_NOT_YET = re.compile(r"\b(?:if|would|wud|might|maybe|perhaps|could|should|thinking\s+(?:of|about)|want(?:s|ed)?\s+to|"
                      r"wanna|wish|hope|someday|one\s+day|planning|plan\s+to|considering|might|may)\b", re.I)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


_SELF = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|we|we're|we've|our|us)\b", re.I)


def _owner(before: str) -> str:
    """Whose slot a sentence speaks of, from the words before the slot word: the speaker's own ("") unless
    a person named there comes after the speaker's last "I" or "my" ("My sister lives in Leeds")."""
    own = max((m.end() for m in _SELF.finditer(before)), default=-1)
    others = [(m.start("who"), m.group("who").lower()) for pattern in (_PEOPLE, _BARE_RELATION)
              for m in pattern.finditer(before)]
    later = [who for at, who in others if at >= own]
    return _ALIASES.get(later[-1], later[-1]) if later else ""


def _slot(slot: str, owner: str) -> str:
    return f"{slot}:{owner}" if owner else slot


def slots_named(text: str) -> frozenset[str]:
    """The single-valued slots a text speaks of, each with whose it is ("home", "work:sister")."""
    said = normalise_chat(_said(text))
    return frozenset(_slot(slot, _owner(said[:m.start()])) for slot, words in SLOT_WORDS.items()
                     for m in words.finditer(said))


def _near(sentence: str, a: re.Match[str], b: re.Match[str]) -> bool:
    lo, hi = sorted((a.start(), b.start()))
    return len(sentence[lo:hi].split()) <= NEAR_WORDS


def slots_changed(text: str) -> frozenset[str]:
    """The slots a text says changed, each with whose it is: a slot word with a change cue near it, in a
    sentence that adds nothing beside it, is no question and no mere thought."""
    found: set[str] = set()
    for sentence in _SENTENCES.split(normalise_chat(_said(text))):
        if sentence.rstrip().endswith("?") or ADDITIVE_CUE.search(sentence) is not None \
                or _OTHER_SUBJECT.search(sentence) is not None or _NOT_YET.search(sentence) is not None:
            continue
        cues = list(SLOT_CHANGE.finditer(sentence))
        found |= {_slot(slot, _owner(sentence[:word.start()])) for slot, words in SLOT_WORDS.items()
                  for word in words.finditer(sentence) if any(_near(sentence, cue, word) for cue in cues)}
    return frozenset(found)


def slot_restated(memories: list[tuple[Memory, Belief | None]], vectors: np.ndarray, least_similarity: float,
                  changed: Sequence[Collection[str]], named: Sequence[Collection[str]]) -> set[str]:
    """Ids of older memories whose slot a newer memory of the same person says changed (pure).

    ``changed`` and ``named`` give ``slots_changed`` and ``slots_named`` of each memory (recall keeps
    both per memory): only pairs that share a slot are compared, so a recall costs a pass over the sets."""
    drop: set[str] = set()
    for j, slots in enumerate(changed):
        new = memories[j][0]
        if not slots or least_similarity > 1.0 or new.kind is not MemoryKind.EPISODE:
            continue  # a fact the bookkeeper drew has its own supersession in the ledger
        olds = [i for i, of in enumerate(named) if i != j and of and not set(slots).isdisjoint(of)
                and memories[i][0].id not in drop]
        if not olds:
            continue
        close = vectors[olds] @ vectors[j] >= least_similarity
        for i in (i for i, near in zip(olds, close.tolist(), strict=True) if near):
            old, belief = memories[i]
            if new.created_at > old.created_at and _retirable(old, belief) \
                    and not set(old.provenance) & set(new.provenance) and _speaker(old) == _speaker(new):
                drop.add(old.id)
    return drop
