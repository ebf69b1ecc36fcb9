"""Setting an older message right in place (pure): "For the booking form: name Daniel Ortiz, date of birth
the 4th of March 1990, travelling with my partner", then "my date of birth is the 9th of March 1990, not the
4th". Retiring the first message hides the wrong date and, with it, the name and the partner; the
amended copy says them all with the date set right. The original stays in history, superseded.

A pair (old value, new value) is read only where the message names the old value it replaces ("Y, not X")
or, for a correction that names only the new value, where the two messages say different values of one
shape (``selfcorrection.swapped_values``). The old value must occur exactly once in the older text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from engram_core.core.words import meaning

_ARTICLE = re.compile(r"^(?:the|a|an|my|our|his|her|their)\s+", re.I)
_ORDINAL_WORDS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
                  "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
# The forms a value may take, so the new value is found by the old one's: "the 4th" is set right by "the 9th".
_FORMS = (
    re.compile(r"\d{1,2}(?:st|nd|rd|th)", re.I),
    re.compile(r"\d{1,2}(?::\d{2})?\s*(?:am|pm)", re.I),
    re.compile(r"\d{1,2}:\d{2}"),
    re.compile(r"\d+(?-i:[A-Z])"),
    re.compile(r"\d+"),
    re.compile(r"(?:" + "|".join(_ORDINAL_WORDS) + r")", re.I),
)
# "Y, not X" closing a clause: what a correction names as replaced, and the clause that says what replaces it.
_NOT = re.compile(r"(?P<before>[^,;.!?]*?)(?P<comma>,?)\s+not\s+"
                  r"(?P<old>(?:the\s+|a\s+|an\s+|my\s+)?[\w'&:-]+(?:\s+[\w'&:-]+){0,2}?)"
                  r"(?=\s*(?:$|[,;.!?]|\b(?:as|like|because|since|which|who)\b))", re.I)
# What "not" also closes and names no value: "not sure", "not bad", "not yet".
_NO_VALUE = frozenset("sure bad yet now ever always too so that much very even only just quite like really good "
                      "great fine true right ok okay happening working there here it me you him her them us".split())
AMEND_LEAST = 3  # content words the older text says besides the value and the correction's own words


class Swap(NamedTuple):
    old: str
    new: str


def _form_of(value: str) -> re.Pattern[str] | None:
    return next((form for form in _FORMS if form.fullmatch(value)), None)


def _new_for(old: str, before: str) -> str | None:
    """The value in ``before`` (the clause ahead of "not X") that takes the place of ``old``: one of the
    same form ("9th" for "4th", "2031" for "2029"), or else as many words closing the clause ("White Hart"
    for "Red Lion"), capitalised when the old one is."""
    form = _form_of(old)
    if form is not None:
        found = [m.group(0) for m in re.finditer(r"(?<![\w:])(?:" + form.pattern + r")(?![\w:])", before,
                                                 form.flags)]
        return found[-1] if found else None
    words = re.findall(r"[\w'&-]+", before)[-len(old.split()):]
    if len(words) != len(old.split()) or any(w.lower() in _NO_VALUE for w in words):
        return None
    if old[:1].isupper() != words[0][:1].isupper() or any(w.lower() in ("is", "are", "was", "it's") for w in words):
        return None
    return " ".join(words)


def named_swaps(text: str) -> list[Swap]:
    """The (old, new) values a message states with "Y, not X": "it's the White Hart, not the Red Lion"."""
    swaps = []
    for m in _NOT.finditer(text):
        old = _ARTICLE.sub("", m.group("old").strip())
        if not old or old.lower() in _NO_VALUE or old.split()[0].lower() in _NO_VALUE:
            continue
        if not m.group("comma") and _form_of(old) is None and not old[:1].isupper():
            continue  # "it was fun not boring": a plain word is named as replaced only after a comma
        new = _new_for(old, m.group("before"))
        if new is not None and new.lower() != old.lower():
            swaps.append(Swap(old, new))
    return swaps


def amended(old_text: str, correction: str, swaps: list[Swap]) -> str | None:
    """``old_text`` with the one value a swap names set right, when it says more than that value (at least
    ``AMEND_LEAST`` content words the correction does not); None otherwise: the correction then says all
    the older text did."""
    for swap in swaps:
        spans = [m.span() for m in re.finditer(r"(?<![\w-])" + re.escape(swap.old) + r"(?![\w-])", old_text, re.I)]
        if len(spans) != 1:
            continue
        rest = meaning(old_text) - meaning(swap.old) - meaning(correction)
        if len(rest) < AMEND_LEAST:
            return None
        start, end = spans[0]
        return old_text[:start] + swap.new + old_text[end:]
    return None
