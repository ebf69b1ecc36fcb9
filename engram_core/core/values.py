"""Typed values in text: dates, weekdays, times, numbers, handles and names (pure).

A correction or a rename often says only the new value ("nvm its july 27", "Sorry, Mr. Shah",
"it's Windrush Way now"). Which held value it replaces is read from the value's shape: a date
replaces a date, a time a time, a name a name.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import NamedTuple


class Shape(Enum):
    DATE = "date"
    WEEKDAY = "weekday"
    TIME = "time"
    NUMBER = "number"
    HANDLE = "handle"  # lower case with a digit or an underscore: "shadowfox99", "fbi_van_3"
    NAME = "name"  # capitalised words: "Mr. Shah", "Windrush Way", "The Signals"


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# A day in words, said alone: "it lands on the tenth".
_ORDINAL = (r"(?:(?:twenty|thirty)[\s-])?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
            r"twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth)")
_SHAPES: tuple[tuple[Shape, re.Pattern[str]], ...] = (
    (Shape.DATE, re.compile(
        rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}\b(?:,?\s+\d{{4}}\b)?|\b{_MONTH}\s+(?:the\s+)?{_DAY}\b(?:,?\s+\d{{4}}\b)?"
        rf"|\b{_MONTH}\s+\d{{4}}\b|\bon\s+the\s+{_ORDINAL}(?=\s*(?:$|[,.;!?]|of\b))"
        r"|\bthe\s+\d{1,2}(?:st|nd|rd|th)\b", re.I)),  # "it's the 17th"
    (Shape.WEEKDAY, re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b", re.I)),
    (Shape.TIME, re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\b\d{1,2}\s+o'?clock\b", re.I)),
    # A number may end its sentence ("code is 3321."), but not be the front of a decimal ("3.5").
    # A flat or a gate with its letter is a number too: "21B", "12B".
    (Shape.NUMBER, re.compile(r"(?<![\w.])\d[\d ]*\d(?!\w|\.\d)|(?<![\w.])\d(?!\w|\.\d)"
                              r"|(?<![\w.])\d{1,4}(?-i:[A-Z])\b|\b(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
                              r"(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?\b", re.I)),
    (Shape.HANDLE, re.compile(r"\b(?-i:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z]*\d+[a-z0-9]*)\b")),
    (Shape.NAME, re.compile(r"\b(?:(?:Mr|Mrs|Ms|Dr)\.?\s+)?(?-i:[A-Z][\w'&-]+)(?:\s+(?-i:[A-Z][\w'&-]+)){0,3}")),
)
# Capitalised words that are no name of their own.
_NOT_NAMES = frozenset(
    "I I'm I've I'd I'll Im Sorry Oops Ugh Wait No Nope Yes Yeah Actually Correction Typo Excuse Me It It's Its "
    "That That's The A An My Our We We're He She They Is Was Now Still Also Lol Haha Please Just So Ok Okay "
    "Hi Hey Hello Thanks Update Fix Small Quick Turns Out Got Oh".split())


# A name in chat that capitalises nothing, after the word "name": "my gfs name is jenna", "her names jenny lol".
_NAMED_LOWER = re.compile(r"\bnames?(?:'s|\s+is)?\s+(?P<name>(?-i:[a-z][a-z'-]{2,}))\b")
_NOT_NAMED = frozenset("the not too also still now same what that this from with and but just really very pretty kinda "
                       "spelled spelt actually literally for like her his their our your its was has had will".split())


class Value(NamedTuple):
    shape: Shape
    text: str
    start: int


def _names(text: str) -> list[Value]:
    found = [Value(Shape.NAME, m.group("name"), m.start("name")) for m in _NAMED_LOWER.finditer(text)
             if m.group("name") not in _NOT_NAMED]
    for m in _SHAPES[-1][1].finditer(text):
        words = [w for w in m.group(0).split() if w not in _NOT_NAMES]
        if words:
            name = " ".join(words)
            found.append(Value(Shape.NAME, name, m.start() + m.group(0).index(words[0])))
    return found


def values_in(text: str) -> list[Value]:
    """The typed values of ``text`` in the order said; a span is read once, by its most specific shape."""
    taken: list[tuple[int, int]] = []
    found: list[Value] = []
    for shape, pattern in _SHAPES[:-1]:
        for m in pattern.finditer(text):
            if not any(m.start() < end and start < m.end() for start, end in taken):
                taken.append((m.start(), m.end()))
                found.append(Value(shape, m.group(0).strip(), m.start()))
    for value in _names(text):
        if not any(start <= value.start < end for start, end in taken):
            found.append(value)
    return sorted(found, key=lambda v: v.start)


def shape_of(value: str) -> Shape | None:
    """The shape of a whole value ("the 12th of May" is a date), or None when it has no single shape."""
    found = values_in(value)
    if len(found) != 1:
        return None
    rest = value.replace(found[0].text, " ")
    return found[0].shape if not re.search(r"[A-Za-z0-9]", re.sub(r"\b(?:the|on|at|in|a|an)\b", "", rest, flags=re.I)) \
        else None


def replace_value(held: str, new: str) -> str | None:
    """``held`` with its one value of ``new``'s shape replaced by ``new`` ("flight to Athens is on Tuesday",
    "Thursday": "flight to Athens is on Thursday"); None when ``held`` has no such value, or several,
    or the same one."""
    shape = shape_of(new)
    if shape is None:
        return None
    same = [v for v in values_in(held) if v.shape is shape]
    if len(same) != 1 or same[0].text.lower() == new.lower():
        return None
    old = same[0]
    return held[:old.start] + new + held[old.start + len(old.text):]
