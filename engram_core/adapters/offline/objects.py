"""Objects the offline extractor keeps (pure): tails, fillers and lists cut; pronouns and fragments refused."""

from __future__ import annotations

import re

_CUT = re.compile(
    r"\s+(?:because|since|but|so that|so|which|who|whom|where|while|whereas|although|though|unless|until|if|"
    r"when|as I|as we|as it|with\s+(?:my|our|his|her|their))\b.*$", re.I)
_CUT_SINGLE = re.compile(r"\s*,.*$|\s+(?:and|&)\s+.*$", re.I)
_CUT_BY_PREDICATE = {
    "job_title": re.compile(r"\s+(?:at|for|in|with|from|based|since)\s+.*$", re.I),
    "works_at": re.compile(r"\s+(?:as|in|since)\s+.*$", re.I),
    "lives_in": re.compile(r"\s+for\s+(?!now\b).*$", re.I),  # "Lisbon for her master's", "Oslo for work"
}
_TIME_TAIL = re.compile(
    r"(?:^|\s+)(?:(?:last|this|past)\s+(?:week|month|year|weekend|night|spring|summer|fall|autumn|winter|time)|"
    r"(?:(?:a\s+)?(?:few|couple(?:\s+of)?|\d+|one|two|three|several|some)\s+)?(?:days?|weeks?|months?|years?)"
    r"\s+ago|a while ago|yesterday|today|recently|lately|every\s+(?:single\s+)?\w+|for\s+(?:the\s+(?:last|past)\s+)?"
    r"(?:about\s+|around\s+|almost\s+|nearly\s+|over\s+)?"
    r"(?:a\s+few|a\s+couple\s+of|several|many|\w+)\s+(?:days|weeks|months|years)|earlier\s+this\s+(?:week|month|year)|"
    r"(?:in|over|during)\s+(?:the\s+)?(?:(?:early|late)\s+)?(?:spring|summer|autumn|fall|winter|holidays)|"
    r"(?:on|this|last)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:on|over|at)\s+the\s+weekend|"
    r"in\s+(?:early\s+|late\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|\d{4}))$", re.I)
_SOFT_TAIL = re.compile(
    r"(?:^|\s+)(?:now|right now|just now|for now|these days|nowadays|anymore|any more|currently|"
    r"at the moment|at present|again|too|as well|actually|though|already|officially|finally|by the way|btw|"
    r"haha|lol|originally|I think|I guess|I believe|ok|okay|then|instead|completely|altogether|entirely|also|"
    r"for good|totally|for me|tbh|to be honest|now on|from now on|alone|on my own|by myself)$", re.I)
# A preposition left over once its tail is cut ("Chicago for" of "Chicago for now") ends no value.
_DANGLING = re.compile(r"(?<=\w)\s+(?:for|to|at|with|of|on|from|by|in)$", re.I)
_TAIL_PUNCT = re.compile(r"[^\w%+#]+$")
_LEAD_FILLER = re.compile(r"^(?:just|now|currently|actually|also|really|still|very much|so much|a lot|only|mostly)\s+",
                          re.I)
LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&|as well as)\s+", re.I)
_JUNK_OBJECTS = frozenset("it that this these those them him her you anything nothing everything something one "
                          "there here so too much lots".split())
# A list item that starts with a verb is the next thought ("I love chocolate, eat it every day"), not a value.
_JUNK_FIRST = frozenset("it it's its that's that this you what when why who where if whether because eat drink go do "
                        "play have get feel feeling felt am was were "
                        "make take see watch listen".split())


def _trim_tails(text: str, keep_time: bool) -> str:
    while True:
        trimmed = _TAIL_PUNCT.sub("", text)
        trimmed = _SOFT_TAIL.sub("", trimmed)
        trimmed = trimmed if keep_time else _TIME_TAIL.sub("", trimmed)
        trimmed = _DANGLING.sub("", _LEAD_FILLER.sub("", trimmed)).strip()
        if trimmed == text:
            return text
        text = trimmed


_KEEPS_COMMAS = frozenset({"address"})  # "42 Harbour Road, flat 3" is one value


def clean_object(raw: str, predicate: str, *, single: bool, keep_time: bool = False) -> str:
    """The fact's object as the user wrote it, minus connectives, filler and punctuation."""
    text = _CUT.sub("", raw.strip())
    if single and predicate not in _KEEPS_COMMAS:
        text = _CUT_SINGLE.sub("", text)
    cut = _CUT_BY_PREDICATE.get(predicate)
    text = cut.sub("", text) if cut else text
    return _trim_tails(" ".join(text.split()), keep_time)


def usable_object(obj: str) -> bool:
    words = obj.lower().split()
    return 0 < len(words) <= 12 and obj.lower() not in _JUNK_OBJECTS and words[0] not in _JUNK_FIRST
