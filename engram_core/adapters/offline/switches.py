"""Corrections and switches that name the old value and the new (pure): "I mean Tuesday, not Monday",
"Left Accenture for Capgemini", "moved from the NHS to Bupa". Which belief holds the old value is
settled against the ledger (``core.people.resolve_correction``); when none does, no belief is made.
"""

from __future__ import annotations

import re

from engram_core.core.model import FactDraft
from engram_core.core.people import CORRECTION

_CORRECTION = re.compile(
    r"^(?P<cue>(?:(?:sorry|sry|oops|ugh|wait|no|nope|actually|correction|typo|my bad|never mind|excuse me|I mean|"
    r"I meant|I meant to say|I wanted to say|I want to say|it's|its|it is|that's|should be|make that)[,:!.]?\s+)*)"
    r"(?P<lead>(?:the|my|our|his|her|their)\s+[\w'-]+(?:\s+[\w'-]+)?\s+(?:is|are|was)\s+(?:on\s+|at\s+|in\s+)?)?"
    r"(?P<new>[\w:'&.-]+(?:\s+[\w:'&.-]+){0,3}?)(?P<comma>,?)\s+not\s+(?:the\s+|a\s+|an\s+)?"
    r"(?P<old>[\w:'&-]+(?:\s+[\w:'&-]+){0,3}?)[.!]*$", re.I)


# "Left Accenture for Capgemini", "moved from the NHS to Bupa": a switch names the old value and the new.
_VALUE = r"(?:the\s+|my\s+|our\s+|a\s+|an\s+)?(?P<{0}>[\w'&.-]+(?:\s+[\w'&.-]+){{0,3}}?)"
_SWITCH_END = r"(?=\s*(?:$|[,.;!]|\s+(?:and|but|because|since|so|last|this|in|on|after|at)\b))"
_SWITCHES = (
    re.compile(r"\b(?:left|quit|swapped|traded|ditched|dropped)\s+" + _VALUE.format("old") + r"\s+(?:in\s+)?for\s+"
               r"(?!(?:good|now|ever|real|a\s+(?:while|bit|few)|the\s+\w+|\d+|some|years|months|weeks|days|today|"
               r"tonight|tomorrow)\b)" + _VALUE.format("new") + _SWITCH_END, re.I),
    re.compile(r"\b(?:moved|switched|changed|upgraded|transferred|relocated)\s+(?:over\s+)?from\s+"
               + _VALUE.format("old") + r"\s+to\s+" + _VALUE.format("new") + _SWITCH_END, re.I),
)
_NOT_BEFORE = re.compile(r"\b(?:not|never|n't|didn't|haven't|won't)\b", re.I)


def switch(clause: str, subject: str, display: str) -> tuple[FactDraft, str] | None:
    """"Left A for B": B replaces whichever current belief of the subject holds A, settled against the
    ledger like a correction (when none holds A, that draft makes no belief). Also the clause without
    its "from A", for the ordinary rules: "I moved from Berlin to Munich" still says where one lives."""
    for pattern in _SWITCHES:
        m = pattern.search(clause)
        if m is not None and _NOT_BEFORE.search(clause[:m.start()]) is None:
            new, old = m.group("new").strip(" ,."), m.group("old").strip(" ,.")
            rest = clause.replace(m.group(0), m.group(0).split(" from ")[0] + " to " + m.group("new"), 1) \
                if " from " in m.group(0).lower() else ""
            return FactDraft(subject=subject, predicate=CORRECTION, object=new,
                             statement=f"{display} has {new} instead of {old}.", importance=0.7, revision=True,
                             replaces=old), rest
    return None


# "its amoxicillin I'm allergic to, not penicillin": what follows the value is the speaker, not the value.
_SPEAKER_AFTER = re.compile(r"\s+(?:I'm|I\s+am|I|we're|we)\b.*$", re.I)


def correction_of(clause: str, subject: str, display: str) -> FactDraft | None:
    """"I mean Tuesday, not Monday": which belief it corrects is settled against the ledger."""
    m = _CORRECTION.match(clause.strip()) or _CORRECTION.match(re.sub(r"^[^:]{0,60}:\s*", "", clause.strip()))
    said_so = m is not None and bool(m.group("cue") or m.group("comma") or m.group("lead"))
    if m is None or not said_so or m.group("new").lower().startswith(("i'm", "i ")):
        return None  # "I'm not sure" corrects nothing: "X, not Y" or "I mean X not Y" does
    new, old = _SPEAKER_AFTER.sub("", m.group("new")).strip(" ,."), m.group("old").strip(" ,.")
    return FactDraft(subject=subject, predicate=CORRECTION, object=new, statement=f"{display} means {new}, "
                     f"not {old}.", importance=0.7, revision=True, replaces=old)
