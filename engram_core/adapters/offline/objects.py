"""Objects the offline extractor keeps (pure): tails, fillers and lists cut; pronouns and fragments refused."""

from __future__ import annotations

import re

_CUT = re.compile(
    r"\s+(?:because|'?cause|cuz|coz|since|but|so that|so|which|who|whom|where|while|whereas|although|though|unless|"
    r"until|if|as\s+of|of\s+all\s+(?:things|people|places)|"
    r"when|as I|as we|as it|with\s+(?:my|our|his|her|their)|lol|haha|lmao|again)\b.*$|\s*\(.*$", re.I)
# "a lot of coffee": the coffee, not how much of it.
_QUANTITY = re.compile(r"^(?:a\s+lot\s+of|lots\s+of|loads\s+of|plenty\s+of|tons\s+of|heaps\s+of|too\s+much|"
                       r"so\s+much)\s+", re.I)
_CUT_SINGLE = re.compile(r"\s*,.*$|\s+(?:and\s+|&\s+(?!(?-i:[A-Z]))).*$", re.I)  # "Foxglove & Pine" is one name
_CUT_BY_PREDICATE = {
    "job_title": re.compile(r"\s+(?:at|for|in|with|from|based|since)\s+.*$", re.I),
    "works_at": re.compile(r"\s+(?:as|in|since)\s+.*$|\s+on\s+(?:the|a|an|my|our)\s+.*$", re.I),
    # "Lisbon for her master's", "Oslo for work", "Bath to be near my sister": the reason is not the place.
    # "Bangalore only", "Hyderabad itself": emphasis in Indian English, not part of the name.
    "lives_in": re.compile(r"\s+(?:for\s+(?!now\b)|with\s+|only\b|itself\b|is\b|was\b|"
                           r"(?:near|close\s+to)\s+(?:the|my|our|a|an)\b|"
                           r"to\s+(?:be|save|get|live|stay|look|help|"
                           r"care|start|study|work|join|take|find)\b).*$", re.I),
}
_TIME_TAIL = re.compile(
    r"(?:^|\s+)(?:(?:last|this|past)\s+(?:week|month|year|weekend|night|spring|summer|fall|autumn|winter|time|term|"
    r"semester|quarter|season)|"
    r"(?:(?:a\s+)?(?:few|couple(?:\s+of)?|\d+|one|two|three|several|some)\s+)?(?:days?|weeks?|months?|years?)"
    r"\s+ago|a while ago|yesterday|today|recently|lately|right\s+now|(?-i:right)|every\s+(?:single\s+)?\w+|"
    r"for\s+(?:the\s+(?:last|past)\s+)?(?:about\s+|around\s+|almost\s+|nearly\s+|over\s+)?"
    r"(?:a\s+few|a\s+couple\s+of|several|many|\w+)\s+(?:days|weeks|months|years)|earlier\s+this\s+(?:week|month|year)|"
    r"(?:in|over|during)\s+(?:the\s+)?(?:(?:early|late)\s+)?(?:spring|summer|autumn|fall|winter|holidays)|"
    r"(?:on|this|last)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|at\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)|(?:on|over|at)\s+the\s+weekend|"
    r"in\s+(?:early\s+|late\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|\d{4}))$", re.I)
_SOFT_TAIL = re.compile(
    r"(?:^|\s+)(?:now|right now|just now|for now|these days|nowadays|anymore|any more|currently|"
    r"at the moment|at present|again|too|as well|actually|though|already|officially|finally|by the way|btw|"
    r"either|haha|lol|originally|I think|I guess|I believe|ok|okay|then|instead|completely|altogether|entirely|also|"
    r"for good|totally|for me|tbh|to be honest|now on|from now on|alone|on my own|by myself)$", re.I)
# A preposition left over once its tail is cut ("Chicago for" of "Chicago for now") ends no value.
_DANGLING = re.compile(r"(?<=\w)\s+(?:for|to|at|with|of|on|from|by|in)$", re.I)
_TAIL_PUNCT = re.compile(r"[^\w%+#]+$")
_LEAD_FILLER = re.compile(
    r"^(?:just|now|currently|actually|also|really|still|very much|so much|a lot|only|mostly|both|again)\s+", re.I)
LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+|as well as\s+)?|\s+(?:and|or|&|as well as)\s+", re.I)
# Where a list ends: the reason or the next thought after it ("camping trips, 'cause nature brings peace").
_THOUGHT_AFTER = re.compile(
    r",?\s+(?:because|'?cause|cuz|coz|since|so|which|while|whereas|although|unless)\b.*$", re.I)
# "the second option", "the blue one": a choice among things in front of the speaker, not a liking.
_POINTED_AT = re.compile(r"^the\s+(?:(?:first|second|third|fourth|last|other|latter|former|next|previous)\b|"
                         r"(?:\w+\s+)?one(?![\w-]))", re.I)
_HEDGE = re.compile(r"^to\s+(?:think|believe|say|imagine)\b", re.I)  # "I like to think I'm a good cook"
# The person spoken to: "how you got the horse's grace", "your day" are about them, not the speaker's likes.
_LISTENER = re.compile(r"\b(?:you|your|yours|you're|you've|you'd|you'll|ya)\b", re.I)
_JUNK_OBJECTS = frozenset("it that this these those them him her you anything nothing everything something one "
                          "there here so too much lots tons to myself yourself ourselves himself herself themselves "
                          "online outside inside together alone again more less".split()) | {
    "a ton", "a lot", "it too", "so much", "with them", "with him", "with her", "both", "them both", "both of them",
    "all of them"}
# A list item that starts with a verb is the next thought ("I love chocolate, eat it every day"), not a value.
_JUNK_FIRST = frozenset("it it's its it'd it'll that's that this you what when why who where if whether because "
                        "and or but as is for love like enjoy hate dislike loathe weird neither none never "
                        "eat drink go do "
                        "play have get feel feeling felt am was were "
                        "make take see watch listen better worse well nicely fine quickly slowly okay ok "
                        "basically literally actually honestly watched went saw had made did tried normally "
                        "properly healthy healthier clean".split())
# A saying, not a thing: "the hotter the better".
_SAYING = re.compile(r"the\s+\w+(?:er|re)\s+the\s+(?:better|worse|\w+er)", re.I)


def _trim_tails(text: str, keep_time: bool) -> str:
    while True:
        trimmed = _TAIL_PUNCT.sub("", text)
        trimmed = _SOFT_TAIL.sub("", trimmed)
        trimmed = trimmed if keep_time else _TIME_TAIL.sub("", trimmed)
        trimmed = _DANGLING.sub("", _LEAD_FILLER.sub("", trimmed)).strip()
        if trimmed == text:
            return text
        text = trimmed


# "Initech in Leeds" is Initech, but "a café in Kreuzberg" keeps its place: "a café" alone names no employer.
_GENERIC = re.compile(r"(?:an?|the)\s+(?-i:[a-z])", re.I)
_PLACED_EMPLOYER = re.compile(r"\s+(?:as|since)\s+.*$|\s+in\s+(?!(?-i:[A-Z]))\S.*$", re.I)
_KEEPS_COMMAS = frozenset({"address"})  # "42 Harbour Road, flat 3" is one value


def clean_object(raw: str, predicate: str, *, single: bool, keep_time: bool = False) -> str:
    """The fact's object as the user wrote it, minus connectives, filler and punctuation."""
    text = _QUANTITY.sub("", _CUT.sub("", raw.strip()))
    if predicate == "{rel}":
        text = re.sub(r"'s$", "", text)  # "my daughter Sara's birthday": the daughter is Sara
    if single and predicate not in _KEEPS_COMMAS:
        text = _CUT_SINGLE.sub("", text)
    cut = _PLACED_EMPLOYER if predicate == "works_at" and _GENERIC.match(text) else _CUT_BY_PREDICATE.get(predicate)
    text = _trim_tails(" ".join((cut.sub("", text) if cut else text).split()), keep_time)
    text = _HOME_IN.sub("", text) if predicate == "lives_in" else text  # "a retirement flat in Brighton"
    return "" if predicate == "works_at" and _NO_EMPLOYER.search(text) else text


_HOME_IN = re.compile(r"^(?:an?|the|my|our|his|her|their)\s+(?:[\w-]+\s+){0,3}?(?:flat|house|home|apartment|place|room|"
                      r"studio|condo|cottage|bungalow)\s+(?:in|near|outside)\s+(?=(?-i:[A-Z]))", re.I)


def _a_clause(obj: str) -> bool:
    """"how art lets us ...", "how you use it": a thought about how something is, or about the person spoken
    to, not a thing liked."""
    words = obj.lower().split()
    return (words[:1] == ["how"] and words[1:2] != ["to"]) or _LISTENER.search(obj) is not None \
        or _NEGATED_VERB.search(obj) is not None


# "the heavy stuff doesn't do it", "my character is called Valkyra", "Island is my guilty pleasure" ("Love
# Island ..."), "the airport is", "the smell makes me queasy": a clause said of a thing, not a thing.
_NEGATED_VERB = re.compile(r"\b(?:doesn'?t|don'?t|isn'?t|aren'?t|wasn'?t|weren'?t|won'?t|can'?t|didn'?t|"
                           r"(?:is|are|was|were)\s+(?:called|named|my|our|so|such|really|very|just)|makes?\s+me)\b|"
                           r"\b(?:is|are)\s*$", re.I)


# "a safe, inviting place": two adjectives of one noun, not two items.
_ADJECTIVES_COMMA = re.compile(r"\b(an?\s+[a-z]+),\s+(?=[a-z]+\s+(?!and\b|or\b|&)[a-z]+)")


def list_items(raw: str) -> list[str]:
    """The items of a listed object, up to where the list gives way to a reason or the next thought; none
    when the list opens with a clause ("how you tell your stories and teach people ...": what follows
    the "and" belongs to the clause)."""
    items = [part for part in LIST_SPLIT.split(_ADJECTIVES_COMMA.sub(r"\1 ", _THOUGHT_AFTER.sub("", raw))) if part]
    if items and _a_clause(items[0]):
        return []
    # "aerial yoga, it's a great way to ...": an item opening a clause ends the list.
    # A list opening with one ("that idea, let's do it") is no list at all.
    ends = [n for n, item in enumerate(items) if _first_word(item) in _JUNK_FIRST
            or (n and _REMARK.match(item) is not None)]
    return items[:ends[0]] if ends else items


# Where or when, not what: "stopped at the café", "eat only between 12 and 8", "stopped eating at Green Fork".
_THINGS_TAKEN = ("likes", "dislikes", "eats", "avoids_food", "prefers", "hobby")
_NONE_OF = re.compile(r"no\s+(?!restrictions?\b|limits?\b)", re.I)  # "I eat no sugar": none of it, no thing eaten
_PLACED = frozenset("at by in on into from with between until till since during around".split())


# Not an employer: "the same firm", "moved over to the ML team", "first week with real patients".
_NO_EMPLOYER = re.compile(r"^(?:(?:the|my|our)\s+)?(?:same|other)\b|^(?:an?\s+|this\s+)?(?:place|spot)$|"
                          r"^(?:\w+\s+){0,3}?(?:years?|months?|weeks?|days?|decades?|ages|while)$|"
                          r"\b(?:team|department|dept|division|unit|"
                          r"squad|group|floor|ward|shift|patients|clients|customers|kids|students|pupils|colleagues|"
                          r"co-?workers|people|staff|residents)\s*$", re.I)


def names_no_value(raw: str, predicate: str) -> bool:
    """A liked, eaten or given-up thing that opens with a place or a time names no thing."""
    return predicate in _THINGS_TAKEN + ("working_on",) and bool(raw.split()) and (
        _first_word(raw) in _PLACED or _NONE_OF.match(raw) is not None)


def _first_word(item: str) -> str:
    """The item's first word past a limiting adverb ("only between 12 and 8": "between")."""
    words = item.lower().split()
    return words[1] if len(words) > 1 and words[0] in ("only", "just", "mostly", "mainly", "usually") else words[0]


# After the first item, how often or how much is a remark on the list, not an item of it: "bouldering now,
# three times a week", "jazz anymore, too chaotic".
_REMARK = re.compile(r"(?:too|so|very|quite|pretty|super|way|really|totally|kinda|kind\s+of|once|twice|every|each|"
                     r"mostly|mainly|especially|"
                     r"daily|weekly|nightly|monthly|(?:\w+\s+)?times?\s+(?:a|per|each|every)\b|on\s+weekends|"
                     r"most\s+(?:days|nights|weekends|mornings|evenings))\b", re.I)


def usable_object(obj: str) -> bool:
    """Not a pronoun or fragment, not the start of another thought, and not about the person spoken to."""
    words = obj.lower().split()
    if not 0 < len(words) <= 12 or obj.lower() in _JUNK_OBJECTS or words[0] in _JUNK_FIRST \
            or words[-1] in ("yes", "no"):  # "meat no": a diet's remark
        return False
    return not _a_clause(obj) and _POINTED_AT.match(obj) is None and _HEDGE.match(obj) is None \
        and _WHEN_ONLY.fullmatch(obj) is None and _SAYING.fullmatch(obj) is None


# When, not what: "I stopped playing long time ago" names nothing that stopped.
_WHEN_ONLY = re.compile(r"(?:a\s+)?(?:long\s+(?:time\s+)?ago|ages\s+ago|a\s+while\s+(?:ago|back)|years\s+ago|"
                        r"(?:\w+\s+)?(?:years?|months?|weeks?|days?)\s+ago|last\s+(?:year|month|week|summer|winter|"
                        r"spring|autumn|fall)|yesterday|recently|in\s+(?:19|20)\d\d)", re.I)
