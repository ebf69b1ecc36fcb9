"""A new value said after a stop, in the stop's own words (pure): "my son doesn't play minecraft anymore,
its all fortnite now", "I don't drink coke any more. Now only water." The value takes the place of
the one stopped, for the same person and predicate; a message that stops two things gives none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from engram_core.adapters.offline.objects import usable_object
from engram_core.core.model import FactDraft

_VALUE = r"(?P<obj>[\w'-]+(?:\s+[\w'-]+){0,2}?)"
_STOP = r"\s*(?=$|[,.;!])"
_FOLLOW_ONS = (
    re.compile(r"(?:^|[,;.!]\s*)(?:(?:and|so|but)\s+)?(?:now\s+)?(?:it's|its|it\s+is)\s+(?:all\s+|just\s+|only\s+)?"
               + _VALUE + r"\s+now" + _STOP, re.I),
    re.compile(r"(?:^|[,;.!]\s*)(?:(?:and|so|but)\s+)?(?:now\s+)?(?:it's|its|it\s+is)\s+(?:all|just|only)\s+"
               + _VALUE + _STOP, re.I),
    re.compile(r"(?:^|[,;.!]\s*)(?:(?:and|so|but)\s+)?now\s+(?:it's\s+|its\s+)?(?:only|just)\s+" + _VALUE + _STOP,
               re.I),
)
# What a follow-on may stand in for: tastes and pastimes, never a home, an employer or a name.
# How it is, not what it is: "it's just boring now", "it's all gone now".
_NOT_VALUES = frozenset("good fine ok okay boring gone over done different weird hard easy better worse great bad "
                        "same too so very a an the about me you us them him her that this there here".split())
_NOT_FOLLOWED = ("works_at", "lives_in", "job_title", "name", "family_", "pet_", "diet", "allergy")


def _stopped(drafts: Iterable[FactDraft]) -> FactDraft | None:
    """The one thing the message says has stopped, when it says exactly one."""
    stops = [d for d in drafts if d.negated and d.revision and not d.tentative
             and not d.predicate.startswith(_NOT_FOLLOWED)]
    return stops[0] if len(stops) == 1 else None


def follow_on(text: str, drafts: Iterable[FactDraft], subject: str = "user", display: str = "The user"
              ) -> FactDraft | None:
    """The new value said after the one stopped, as a fact of the same person and predicate, or the town
    named after a move ("i moved lol. denver now."); else None."""
    said = tuple(drafts)
    return _after_a_stop(text, said) or _after_a_move(text, said, subject, display)


# "the mould saga is over bc i moved lol. glasgow now!!": a move, then the town alone with "now".
_MOVED_THEN = re.compile(r"\b(?:I|we)\s+(?:just\s+|finally\s+|have\s+|'ve\s+)?moved\b(?!\s+(?:to|in|into|out|back|on|"
                         r"over|up|down|house|the|my|our|it|them)\b)[^.!?]*[.!?]+\s*(?:(?:so|and|yep|yeah)\s+)?"
                         r"(?P<obj>[A-Za-z][\w'-]+(?:\s+[A-Za-z][\w'-]+)?)\s+now\b(?!\s+\w)", re.I)
_NOT_A_TOWN = frozenset("it this that everything all life things home here there so much work we i my the "
                        "its it's im i'm".split())


def _after_a_move(text: str, drafts: tuple[FactDraft, ...], subject: str, display: str) -> FactDraft | None:
    m = _MOVED_THEN.search(text)
    if m is None or any(d.predicate == "lives_in" for d in drafts):
        return None
    town = m.group("obj")
    if any(word.lower() in _NOT_A_TOWN for word in town.split()) or not usable_object(town):
        return None
    return FactDraft(subject=subject, predicate="lives_in", object=town, statement=f"{display} lives in {town}.",
                     importance=0.8, revision=True)


def _after_a_stop(text: str, drafts: tuple[FactDraft, ...]) -> FactDraft | None:
    stop = _stopped(drafts)
    if stop is None:
        return None
    where = text.lower().find(stop.object.lower())
    if where < 0:
        return None
    for pattern in _FOLLOW_ONS:
        m = pattern.search(text, where + len(stop.object))
        if m is None:
            continue
        obj = m.group("obj").strip()
        if usable_object(obj) and obj.lower().split()[0] not in _NOT_VALUES and obj.lower() != stop.object.lower():
            statement = stop.statement.replace(" no longer ", " ", 1).replace(stop.object, obj, 1)
            return replace(stop, object=obj, statement=statement, negated=False, tentative=False)
    return None


# The message says the slot changed: "Signe changed jobs over the summer, she's at Maersk now".
_SLOT_CHANGED = {
    "works_at": re.compile(r"\b(?:chang(?:ed|ing)\s+(?:jobs?|companies|company|employers?)|switch(?:ed|ing)\s+(?:jobs?|"
                           r"companies)|new\s+job|left\s+(?:the|her|his|my|their|our)\s+(?:old\s+)?(?:job|firm|company)|"
                           r"(?:got|been|was)\s+hired|handed\s+in\s+(?:her|his|my|their)\s+notice|poached|interview|"
                           r"offer)\b", re.I),
    "lives_in": re.compile(r"\b(?:moved|relocated|emigrated|transfer\w*|packed\s+up|new\s+(?:flat|place|house|"
                           r"apartment|home)|"
                           r"signed\s+(?:a|the)\s+lease)\b", re.I),
}


# A trip there said just before: "off to Goa for a week!!", then "I'm in Goa now, the beach is amazing".
_TRIP_TO = (r"\b(?:off\s+to|trip\s+to|flying\s+to|fly\s+to|flew\s+to|heading\s+to|holiday\s+in|vacation\s+in|"
            r"visiting|weekend\s+in|week\s+in|conference\s+in)\s+")


def firm_when_changed(drafts: tuple[FactDraft, ...], text: str, earlier: str = "") -> tuple[FactDraft, ...]:
    """A value only suggested ("she's at Maersk now": a visit, or a job) is stated when the message says that
    very slot changed; then it replaces the one held, of whoever it is about. A home where the speaker's
    previous message said a trip went only suggests one."""
    return tuple(replace(d, tentative=False, revision=True)
                 if d.tentative and not d.negated and (cue := _SLOT_CHANGED.get(d.predicate)) and cue.search(text)
                 else replace(d, tentative=True) if d.predicate == "lives_in" and not d.negated and earlier
                 and re.search(_TRIP_TO + re.escape(d.object) + r"\b", earlier, re.I)
                 and not _SLOT_CHANGED["lives_in"].search(text)
                 else d for d in drafts)
