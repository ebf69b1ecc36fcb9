"""A changed value carried into the fact it changes (pure).

"My brother Tom lives in Chicago." holds "brother lives_in: Chicago". When a newer message says that slot
changed in other words ("Tom got transferred to Seattle, he loves the new flat"), the older message is
flagged (``core/kin``, ``usecases/retractions.kin_outdated``), but no fact holds the new value: the bookkeeper
read none. If the newer message names exactly one value of the slot's kind that the older did not say, the
older fact is carried over to it ("brother lives_in: Seattle"), and the ledger supersedes the old one as it
would for a fact read directly. Two candidate values, or none, carry nothing: precision first.
"""

from __future__ import annotations

import re

from engram_core.core.chattext import normalise_chat
from engram_core.core.kin import diets_in, names_in
from engram_core.core.model import Belief, Cardinality, FactDraft
from engram_core.core.restatements import _said

# The slots whose value is a name (or a diet), and the ledger's slots (``slots.belief_slot``) each fills.
CARRIED_SLOTS = {"home": ("home",), "work": ("employer", "occupation"), "school": ("school",), "name": ("name",),
                 "diet": ("diet",), "pastime": ("pastime",)}
# The predicates of a pastime: "son hobby: football", "wife likes: pottery".
PASTIMES = frozenset({"hobby", "likes", "plays", "enjoys", "sport", "prefers_hobby", "prefers_sport", "pastime"})

# A run of capitalised words that does not open a sentence: "Jersey City", "St Anne's", "Brot & Co" ("I" ends one).
_WORD = r"(?-i:(?!I\b|I'|Im\b)[A-Z][\w'&.-]*)"
_SPAN = re.compile(r"(?<![.!?]\s)(?<!^)(?<![.!?\w])" + _WORD
                   + r"(?:\s+(?:&\s+|(?:de|da|del|di|do|van|von|la|le|of|the)\s+)?" + _WORD + r")*")
# The word before a value of the slot: a home is "in Tromso", "a Jersey City resident" or "our Brooklyn
# apartment", a workplace "at Zelena
# Energija" or "with Honda" (a name after "in" or "on" is where it is: "a flower shop on Main st"; after "to",
# where one went: "went to Confeitaria Colombo with colleagues").
_BEFORE_VALUE = {"home": frozenset("in to into near outside a an my our".split()),
                 "work": frozenset("at with for joined join joining".split()),
                 "school": frozenset("at to joined into attends".split())}


# A clause about what was, or may be, names no value of now: "mum grew up in Enugu", "if I moved to Oslo".
_NOT_NOW = re.compile(r"\b(?:grew\s+up|born|raised|was|were|used\s+to|ago|back\s+(?:then|when|in)|previous(?:ly)?|"
                      r"former(?:ly)?|old|maiden|if|would|might|maybe|could|wants?\s+to|hope|someday)\b", re.I)
_CLAUSE_END = re.compile(r"[,;:.!?()]|\s(?:and|but|so|because)\s")


def _clause_at(said: str, start: int, end: int) -> str:
    """The clause of ``said`` around the span from ``start`` to ``end``."""
    opens = max((m.end() for m in _CLAUSE_END.finditer(said, 0, start)), default=0)
    closes = next((m.start() for m in _CLAUSE_END.finditer(said, end)), len(said))
    return said[opens:closes]


# Work with someone is a job when it starts: "I'm with Honda as of Monday", "signed my contract with Airbus".
_WORK_START = re.compile(r"\b(?:as\s+of|since|starting|started|start|from\s+(?:today|tomorrow|monday|next)|signed|"
                         r"joined|contract|job|offer|hired|first\s+(?:day|week|month))\b", re.I)


def name_spans(text: str) -> list[tuple[str, str]]:
    """The names a text says of now, whole ("Oakwood Academy", not "Oakwood"), each with the word before it."""
    said = normalise_chat(_said(text))
    return [(said[:m.start()].split()[-1].lower() if said[:m.start()].split() else "", m.group(0).rstrip(".'-"))
            for m in _SPAN.finditer(said) if not _NOT_NOW.search(_clause_at(said, m.start(), m.end()))]


def new_name(new_text: str, old_text: str, said: frozenset[str], slot: str,
             besides: frozenset[str] = frozenset()) -> str | None:
    """The one name of the newer text that holds a word of ``said`` (the names its change names), after a word
    that introduces a value of ``slot``, and no word the older text or ``besides`` (the person's own name)
    says; None when there is not exactly one."""
    known, before = names_in(old_text) | besides, _BEFORE_VALUE.get(slot)
    if slot == "work" and not _WORK_START.search(new_text):
        before = (before or frozenset()) - {"with"}  # "I'm with Sarah now" is no employer
    found = {span.lower(): span for word, span in name_spans(new_text)
             if (words := set(span.lower().split())) & said and not words & known
             and (before is None or word in before)}
    return next(iter(found.values())) if len(found) == 1 else None


def new_diet(said: frozenset[str], old_text: str) -> str | None:
    """The one diet of ``said`` (the diets the newer text's change names) that the older text does not name."""
    found = said - diets_in(old_text)
    return next(iter(found)) if len(found) == 1 else None


_SURNAME = re.compile(r"\b(?:surname|last\s+name|family\s+name)\b", re.I)


def carried(belief: Belief, value: str, text: str) -> FactDraft | None:
    """The older fact with its value replaced by ``value`` (of a full name, only its last word when ``text``,
    the newer message, speaks of a surname), which the ledger adjudicates; one of many values ("pets")
    replaces the older one by rule, as a correction does (``people.resolve_correction``). None for the same
    value, or a statement that does not say its value."""
    names = belief.object.split()
    if belief.predicate == "name" and len(names) > 1 and _SURNAME.search(text):
        value = " ".join([*names[:-1], value])
    if value.lower() in belief.object.lower():
        return None
    said = re.search(re.escape(belief.object), belief.statement, re.I)
    if said is None:
        return None
    statement = belief.statement[:said.start()] + value + belief.statement[said.end():]
    many = belief.cardinality is not Cardinality.ONE  # one value of many: only the change says which it replaces
    return FactDraft(belief.subject, belief.predicate, value, statement, cardinality=belief.cardinality,
                     revision=True, replaces=belief.object if many else None, carried=True)


# What someone took up, after the words that say so: "got really into bouldering", "his latest obsession is
# beekeeping", "spending every weekend woodturning", "joined the school robotics club".
_PASTIME_VALUE = (r"(?P<value>[\w'-]+(?:\s+[\w'-]+){0,3}?)(?=\s*(?:$|[,.;:!?)]|\s(?:instead|now|these\s+days|"
                  r"lately|recently|and|but|every|on|at|with|after|since|because|so)\b))")
_PASTIME = re.compile(
    r"\b(?:(?:really\s+|super\s+|totally\s+|very\s+|so\s+|well\s+)?(?:into|obsessed\s+with|hooked\s+on|mad\s+about|"
    r"crazy\s+about|addicted\s+to|passionate\s+about)|(?:took|takes|taken|taking|picked|picks)\s+up|"
    r"(?:obsession|thing|hobby|passion|pastime)\s+(?:is|are|'s)(?:\s+now)?|spending\s+(?:every|each|all\s+(?:his|her|"
    r"their))\s+\w+|(?:joined|joining)\s+(?:a|an|the))\s+(?:(?:a|an|the|his|her|some)\s+)?" + _PASTIME_VALUE, re.I)
_NOT_PASTIMES = frozenset("it that this them him her me you something anything everything nothing lot bit".split())


# A new occupation, after the words that say someone took it up: "Mom became a midwife", "he works as a
# paramedic now", "qualified as a pharmacist".
_OCCUPATION = re.compile(r"\b(?:became|becomes|become|is\s+now|'s\s+now|now\s+works\s+as|works\s+as|working\s+as|"
                         r"got\s+a\s+job\s+as|hired\s+as|trained\s+as|qualified\s+as|retrained\s+as|"
                         r"promoted\s+to|(?:is|'s)(?=\s+(?:the|a|an)\s+\w+(?:\s+\w+)?\s+now\b))\s+(?:a|an|the)\s+"
                         r"(?P<value>[\w'-]+(?:\s+[\w'-]+){0,2}?)(?=\s*(?:$|[,.;:!?)]|\s(?:now|instead|these\s+days|"
                         r"lately|last|this|in|at|for|and|but|since|after)\b))", re.I)


def new_occupation(text: str) -> str | None:
    """The one occupation a text says someone took up ("midwife"); None for none, or two."""
    found = {m.group("value").lower(): m.group("value") for m in _OCCUPATION.finditer(normalise_chat(_said(text)))}
    return next(iter(found.values())) if len(found) == 1 else None


def new_pastime(text: str) -> str | None:
    """The one pastime a text says someone took up ("bouldering"); None for none, or two."""
    found = {m.group("value").lower(): m.group("value") for m in _PASTIME.finditer(normalise_chat(_said(text)))
             if m.group("value").split()[0].lower() not in _NOT_PASTIMES}
    return next(iter(found.values())) if len(found) == 1 else None


def set_right(belief: Belief, old: str, new: str) -> FactDraft | None:
    """A fact a correction ended, with the value it set right (``old`` to ``new``: "Grete" to "Greta", "March
    14" to "March 17"); None unless its value and its statement each say ``old`` once."""
    spans = [list(re.finditer(r"(?<![\w-])" + re.escape(old) + r"(?![\w-])", said, re.I))
             for said in (belief.object, belief.statement)]
    if any(len(found) != 1 for found in spans):
        return None
    value, statement = (said[:m[0].start()] + new + said[m[0].end():]
                        for said, m in zip((belief.object, belief.statement), spans, strict=True))
    return FactDraft(belief.subject, belief.predicate, value, statement, cardinality=belief.cardinality,
                     revision=True, carried=True)
