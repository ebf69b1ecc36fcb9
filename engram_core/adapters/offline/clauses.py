"""Where a sentence breaks into clauses (pure): at a semicolon, a dash, a conjunction before a new
subject, a comma before one; never inside a label and its value ("Favourite show: The Office") or
a joint subject ("Ana and I divorced")."""

from __future__ import annotations

import re

from engram_core.adapters.offline.patterns import DIETS, FAVOURED
from engram_core.adapters.offline.scope import Person, person_for

_SUBJECT_AHEAD = (r"(?=(?:I|I'm|I've|Im|my|we|we're|our|also|he|she|he's|she's|now|left|quit|started|joined|moved|"
                  r"switched|got|became|stopped|gave|bought|sold|adopted|there's|there\s+(?:is|are))\b)")
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|:\s+(?=(?-i:[A-Z])|(?:my|our|we|he|she|they)\s)|\s+-+\s+"
    r"|,?\s+(?:and|but|so|because|although|though|while|whereas|plus)\s+" + _SUBJECT_AHEAD
    + r"|,\s*(?:but|so|because|although|though|plus)\s+"
    r"|,\s+and\s+(?=(?:his|her|their)\s+\w+\s+(?:is|are|was)\b)"
    r"|\s+so\s+(?=(?:fully|completely|totally|officially|basically)\s)"
    r"|,\s+(?=(?:I|I'm|I've|Im|my|we|we're|our|where|what|who|when|why|how|do|does|did|can|could|is|are|"
    r"also|actually|btw|oh|anyway|please|he|she|he's|she's|now|here|today|nowadays|currently|these days|so|"
    r"got|started|joined|moved|switched|left|quit|went|became|landed|bought|picked|prefer|just|vegetarian|vegan|"
    r"pescatarian|gone|dad|mum|mom|"
    r"keto|paleo|(?:fully|completely|totally|strictly)\s+(?=" + DIETS + r"))\b)",
    re.I)


_FIELD_LABEL = re.compile(r"^\s*(?:my\s+)?(?:current\s+|new\s+|all[- ]time\s+)?" + FAVOURED
                          + r"\s+[\w-]+(?:\s+[\w-]+)?\s*$", re.I)


_SETTING_RIGHT = re.compile(r"\b(?:correction|correct|fix|erratum|oops|sorry|typo|mistake|wrong)\b", re.I)
_TAKEN_IT = re.compile(r",?\s*(?:and|&)\s+(?:I\s+)?(?:accept|accepted|took|take|said\s+yes|signed)\b", re.I)
_NAME_AND_I = re.compile(r"^\s*(?-i:[A-Z][a-z'-]+)\s+and\s+I\b", re.I)


def clauses(sentence: str) -> list[tuple[str, str]]:
    """(text before the clause, clause) pairs, so a leading "Actually," still counts as a cue."""
    pieces, start = [], 0
    for brk in _CLAUSE_BREAK.finditer(sentence):
        if brk.group(0).startswith(":") and (_FIELD_LABEL.match(sentence[start:brk.start()])
                                             or _SETTING_RIGHT.search(sentence[start:brk.start()])):
            continue  # "Favourite show: The Office": a label and its value, one clause; so is a correction
        if _NAME_AND_I.match(sentence[start:brk.end() + 2]) or _TAKEN_IT.match(sentence, brk.start()):
            continue  # "Ana and I divorced": one subject, one clause; "got an offer from Aramco and I took it"
        pieces.append((sentence[:start], sentence[start:brk.start()]))
        start = brk.end()
    pieces.append((sentence[:start], sentence[start:]))
    return [(lead, clause.strip()) for lead, clause in pieces if clause.strip()]


# Someone named by name as a clause's subject: "On the family front, Marcus left the fire service".
_NAMED_SUBJECT = re.compile(r"(?:^|,\s*|\b(?:and|but|so)\s+)(?P<name>(?-i:[A-Z][a-z]+))\s+(?:left|quit|moved|"
                            r"started|joined|went|took|became|got|is|was|has|had|says|said|told|decided|switched|"
                            r"retired|finished|passed|changed|sold|transferred|found|bought|graduated)\b")
_NOT_SOMEONE = frozenset("I The This That It My Our We He She They There Then Now Today Yesterday Also So And "
                         "But".split())


def named_subject(clause: str, told: str, last: Person | None) -> Person | None:
    """Whom a "he" or "she" after the clause means: someone the clause names by name as its subject ("On the family
    front, Marcus left ..."), as whose they are when ``told`` (the words so far) says it ("my husband Marcus",
    "Ravi, my husband"); else ``last``, whom was named before."""
    for m in _NAMED_SUBJECT.finditer(clause):
        if (name := m.group("name")) not in _NOT_SOMEONE:
            known = re.search(rf"\bmy\s+(?P<rel>\w+)\s+{name}\b|\b{name},\s+my\s+(?P<rel2>\w+)", told, re.I)
            return person_for((known.group("rel") or known.group("rel2")) if known else None, name)
    return last
