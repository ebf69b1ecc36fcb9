"""Setting one's own words right with no value named as replaced (pure): "oops I meant three kids", "I got
that wrong, it's tree nuts", "realized I told you the wrong thing earlier, it's a 2017 Honda Accord".

``restatements.corrected_episode`` handles a correction that names the old value ("the 13th, not the
3rd"). These name only the new one, so what they correct is the closest older episode of the same speaker
that stated one fact: the write path (``usecases/retractions``) retires it and ends that fact. Only the
words below count; "sorry" or "I mean" alone fill real chats, and "I meant to ..." is a plan.

Softer words ("oops", "my mistake", "sorry," opening the message, "I misread", "turns out") set right only
the closest older episode that says a different value of a shape the message says anew: "The wedding is
in Sintra." and "sorry, the wedding is in Cascais" (a name for a name), "lands at 6:40 pm" and
"Correction: it lands at 8:15 pm" (a time for a time). That episode is retired, and the facts read from it
that hold the old value end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from engram_core.core.amend import Swap
from engram_core.core.model import Belief, Memory
from engram_core.core.restatements import CORRECTION_CUE, people_of, replaced_values, same_people
from engram_core.core.values import Shape, values_in
from engram_core.core.words import meaning

SELF_CORRECTION = re.compile(
    r"\b(?:I\s+meant(?!\s+(?:to|it|that|what|well|no|nothing|every|as|for|in|when|by)\b)|typo|autocorrect\w*|"
    r"got\s+(?:that|it|this)\s+wrong|(?:spelled|spelt|wrote|typed|said)\s+(?:that|it|this|the\s+\w+)\s+wrong|"
    r"(?:made|make|makes)\s+(?:a\s+|one\s+)?mistake|mixed\s+(?:\w+\s+)?up|"
    r"told\s+you\s+(?:the\s+)?wrong|wrong\s+(?:thing|name|date|number|day|one|year|age|month|week|time|street|"
    r"address|city|spelling|floor|room|gate|flight)|misspel\w*|misspoke|miscount\w*|"
    r"scratch\s+that|had\s+(?:the|my)\s+\w+\s+(?:\w+\s+)?wrong|not\s+the\s+other\s+one|"
    r"I\s+(?:got\s+)?confused\s+(?:it\s+|them\s+|him\s+|her\s+)?with|"
    r"(?:I\s+was|I'm|I\s+am)\s+wrong\s+about\s+the\s+\w+|ignore\s+(?:the|what)\s+(?:\w+\s+)?I\s+(?:gave|said|told|wrote))\b",
    re.I)
# Softer words: they set right only an older episode saying a different value of the shape they say anew.
SOFT_CORRECTION = re.compile(
    r"^\W*(?:small\s+|quick\s+|one\s+)?(?:fix|erratum)\s*:|"
    r"^\W*(?:(?:oh|ah|hmm|ugh|ok|okay)\W+)?(?:(?:sorry|sry)(?!\s+(?:to|for|about|that|you|if|but)\b)|wait|nvm|"
    r"never\s*mind|actually)\b|\b(?:oops|whoops|correction|"
    r"my\s+(?:mistake|bad)|misread|mis-?heard|mix(?:ed|ing)?\s+(?:\w+\s+){0,2}up|mix(?:ed|ing)?\s+(?:the|my)\s+"
    r"(?:numbers|dates|days|names|times|digits)|got\s+(?:\w+\s+){1,2}wrong|(?:read|wrote|typed|said|spelled|spelt|"
    r"heard)\s+(?:\w+\s+){0,2}wrong|not\s+what\s+I\s+(?:told|said)|turns\s+out|counted\s+again|recount\w*|"
    r"(?:fix|correction)\s+(?:to|on|of)\s+(?:what|something)\s+I\s+(?:said|told|wrote)|"
    r"not\s+the\s+\w+\s+I\s+(?:gave|told)\s+you)\b", re.I)
CORRECTED_SIMILARITY = 0.45  # how close the older episode must be to the message that sets it right
SWAPPED_SIMILARITY = 0.38  # closer to it than that when the two say different values of one shape
RESPELLED_SIMILARITY = 0.25  # and when the new name respells the old ("Thomson", then "Thompson with a p")
# The speaker's previous message, said to be wrong in so many words and given a value of the same shape anew, is
# set right however far in meaning: a short reply shares little ("Dinner in Porto on Friday, where should we go?",
# then "ugh sorry it's Braga, not the other one": 0.07).
PREVIOUS_SIMILARITY = 0.0
RESPELLED_RATIO = 0.7  # how alike two spellings of one name are (difflib's ratio)
# A health fact is never set right by a guess at what was meant: the person says so in words that name it.
NEVER_CORRECTED = re.compile(r"^(?:not:|allergy|intolerance|medical_condition)")


_SENTENCE_ENDS = re.compile(r"(?<=[.!?])\s+")


def _statements(text: str) -> str:
    """The sentences of a text that are no questions: "..., it turns out our anniversary is March 13th. Can
    you help me find a place for that date?" sets the date right."""
    return " ".join(s for s in _SENTENCE_ENDS.split(text.strip()) if not s.rstrip().endswith("?"))


def sets_right(text: str) -> bool:
    """Whether a sentence of the text, not a question, says the speaker's own earlier words were wrong."""
    return SELF_CORRECTION.search(_statements(text)) is not None


# The listener's words set right, not the speaker's: "You said Recife is in the south, this is wrong".
_YOURS = re.compile(r"\byou\s+(?:said|wrote|told\s+me|mentioned|put|listed|gave)\b|\byour\s+(?:answer|summary|list|"
                    r"reply|message|recipe|table)\b", re.I)
_MINE = re.compile(r"\bI\s+(?:said|wrote|told\s+you|gave\s+you|meant|typed)\b|\bmy\s+(?:mistake|bad)\b", re.I)


def may_set_right(text: str) -> bool:
    """Whether a sentence of the text, not a question, may set a value right (``SOFT_CORRECTION`` or
    ``SELF_CORRECTION``); never one that sets right only the listener's words."""
    said = _statements(text)
    if _YOURS.search(said) and not _MINE.search(said):
        return False
    return sets_right(text) or SOFT_CORRECTION.search(said) is not None


_COUNTED = re.compile(r"\b(?P<n>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?P<what>[a-z]+)",
                      re.I)


def _typed(text: str) -> dict[Shape, frozenset[str]]:
    """The typed values of a text by shape, lower-cased; a capital opening a sentence names nothing
    ("Flat number is 24")."""
    found: dict[Shape, set[str]] = {}
    for value in values_in(text):
        if value.shape is Shape.NAME and re.search(r"(?:^|[.!?:;]\s*)$", text[:value.start]):
            continue
        found.setdefault(value.shape, set()).add(value.text.lower())
    return {shape: frozenset(words) for shape, words in found.items()}


def _recounted(old: str, new: str) -> set[str]:
    """Counts of one thing said anew: "three kids", then "four kids" gives {"three"}."""
    before = {m.group("what").lower(): m.group("n").lower() for m in _COUNTED.finditer(old)}
    return {before[what] for m in _COUNTED.finditer(new)
            if (what := m.group("what").lower()) in before and before[what] != m.group("n").lower()}


def _saying_anew(old: str, new: str) -> str:
    """The clauses of ``new`` that say a value ``old`` does not: whom the correction is about ("correction hes
    turning 88, my mum just yelled at me" is about him, not the mum)."""
    held = {v for values in _typed(old).values() for v in values}
    return " ".join(c for s in _SENTENCE_ENDS.split(new) for c in re.split(r",\s+", s)
                    if any(v not in held for vs in _typed(c).values() for v in vs))


def sets_something_right(text: str) -> bool:
    """Whether the text says earlier words were wrong, in any of the words a correction uses."""
    said = _statements(text)
    return may_set_right(text) or (CORRECTION_CUE.search(said) is not None
                                   and not (_YOURS.search(said) and not _MINE.search(said)))


# What the correction says was wrong: "she works at the VA clinic, not the hospital lol".
_NOT_THAT = re.compile(r"\bnot\s+(?P<what>[\w' -]{2,30}?)(?=\s*(?:[,.;!?)]|$|\s(?:lol|haha|sorry|btw|my\s+bad)\b))",
                       re.I)


def _named_wrong(old: str, new: str) -> str | None:
    """The words after "not" in ``new`` when ``old`` says them: only a value among them was set right; "" when
    they name a value ``old`` does not say ("the resort is Niseko, not Furano": something else was wrong)."""
    m = _NOT_THAT.search(new)
    if m is None:
        return None
    what = m.group("what").lower()
    if what in old.lower():
        return what
    return "" if any(v.shape is Shape.NAME and v.text.lower() not in old.lower() for v in values_in(m.group("what"))) \
        else None


def said_swap(old: str, new: str) -> Swap | None:
    """The one value of ``old`` that ``new`` says anew, and the value it says instead, when a shape holds
    exactly one of each ("lands at 6:40 pm", "it lands at 8:15 pm"); None otherwise."""
    said = _statements(new)
    for shape, values in _typed(said).items():
        fresh = [v for v in values_in(said) if v.shape is shape and v.text.lower() in values
                 and v.text.lower() not in old.lower()]
        held = [v for v in values_in(old) if v.shape is shape and v.text.lower() not in said.lower()]
        wrong = _named_wrong(old, said)
        if len(fresh) == 1 and len(held) == 1 and (wrong is None or held[0].text.lower() in wrong):
            return Swap(held[0].text, fresh[0].text)
    return None


def _respelled(gone: frozenset[str], new: str) -> bool:
    """A value gone is a name the new text spells another way ("thomson" and "Thompson")."""
    names = _typed(new).get(Shape.NAME, frozenset())
    return any(SequenceMatcher(None, old, name).ratio() >= RESPELLED_RATIO for old in gone for name in names)


def swapped_values(old: str, new: str) -> frozenset[str]:
    """The values of ``old`` that ``new`` says anew in the same shape: "lands at 6:40 pm" and "it lands at
    8:15 pm" give {"6:40 pm"}; empty when the two share no shape, or ``new`` repeats the old value. A
    count in words is one of the same thing ("three kids", then "four kids")."""
    before, after = _typed(old), _typed(new)
    gone: set[str] = set()
    for shape, values in after.items():
        held = before.get(shape, frozenset())
        fresh = {v for v in values if v not in held and v not in old.lower()}
        left = {v for v in held if v not in new.lower()}
        if fresh and left:
            gone |= left
    wrong = _named_wrong(old, new)
    return frozenset({v for v in gone if wrong is None or v in wrong} | _recounted(old, new))


def corrected(text: str, older: Sequence[tuple[Memory, float, Sequence[Belief]]], previous: frozenset[str] = frozenset()
              ) -> tuple[Memory, tuple[Belief, ...]] | None:
    """The closest older episode (with its cosine to the correction ``text``, and the current beliefs read
    from it) at least ``CORRECTED_SIMILARITY`` close, and the facts of it that end; None otherwise.

    With the explicit words of ``SELF_CORRECTION``, an episode that stated exactly one fact is set right,
    that fact with it: a message of several facts is never set right by a guess at which one was meant.
    With any correction word, an episode that says a different value of a shape ``text`` says anew is set
    right, and the facts of it holding the old value end.

    The speaker's previous message (``previous``, its memories' ids) is set right however far in meaning
    when the correction respells a name it said ("My surname is spelled Schmitt.", then "Sorry, it's Schmidt
    with a d.": 0.14 apart), and from ``RESPELLED_SIMILARITY`` when the correction says its words were wrong
    ("Our anniversary is in October.", then "Wrong month, it's in November.": 0.33)."""
    close = sorted(((cosine, memory.id, memory, beliefs) for memory, cosine, beliefs in older
                    if cosine >= RESPELLED_SIMILARITY and not memory.critical), key=lambda c: c[:2], reverse=True)
    said = _statements(text)
    first = {c[1] for c in close[:1]}
    explicit, named = sets_right(text), replaced_values(text)
    before = [(cosine, memory.id, memory, beliefs) for memory, cosine, beliefs in older
              if memory.id in previous and memory.id not in first and not memory.critical
              and (_respelled(gone := swapped_values(memory.text, said), said) or (explicit and gone))
              and not (named and not any(words <= meaning(memory.text) for words in named))]  # "Bern, not Bonn"
    for cosine, _, memory, beliefs in [*close[:1], *before]:
        kept = [b for b in beliefs if not NEVER_CORRECTED.match(b.predicate)]
        if sets_right(text) and len(beliefs) == 1 and kept and cosine >= CORRECTED_SIMILARITY:
            return memory, (beliefs[0],)
        whom = people_of(_saying_anew(memory.text, said))
        if whom and not same_people(people_of(memory.text), whom):
            continue  # "My brother lives in Leeds.", then "oops, my sister lives in York"
        gone = swapped_values(memory.text, said)
        least = PREVIOUS_SIMILARITY if memory.id in previous and explicit else SWAPPED_SIMILARITY
        if _respelled(gone, said):
            least = 0.0 if memory.id in previous else RESPELLED_SIMILARITY
        if gone and len(kept) == len(beliefs) and cosine >= least:
            return memory, tuple(b for b in kept if any(v in b.object.lower() for v in gone))
    return None
