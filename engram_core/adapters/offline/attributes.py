"""The user's own attributes stated as a value, and corrections that say only the new value (pure).

"my zip is 94107", "Our anniversary is on the 12th of May", "Our street is Station Road": a
thing of the user's and a value with a shape of its own (a date, a time, a number, a handle
or a name) is a single-valued fact, when no rule of the table read the clause. Then "oops
94110 not 94107", "nvm its july 27" or "Sorry, Mr. Shah" corrects the newest value of that
shape, and "The council renamed our street, it's Windrush Way now" the value of the slot it
names; which belief that is, is settled against the ledger (``core.people.resolve_shaped``).
"""

from __future__ import annotations

import re

from engram_core.adapters.offline.patterns import REL
from engram_core.core.model import Cardinality, FactDraft, MemoryKind
from engram_core.core.people import CORRECTION
from engram_core.core.restatements import ADDITIVE_CUE
from engram_core.core.values import Shape, shape_of, values_in
from engram_core.core.words import meaning

_ATTRIBUTE = re.compile(
    r"^(?:so\s+|and\s+|also\s+|btw,?\s+|oh\s+and\s+)?(?:the\s+name\s+of\s+)?(?:my|our)\s+"
    r"(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"(?P<where>\s+(?:in|at|for|with|of)\s+(?:the\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*)?)?"
    r"(?:(?P<named>\s+(?:has|have)\s+the\s+name)|\s+name)?"
    r"(?:'s\s+|\s+(?P<verb>is\s+called|is\s+named|is(?:\s+(?:on|at|in))?|ends\s+in|starts\s+with|=)\s+|(?(named)\s+|(?!)))"
    r"(?P<obj>[^,;!?]+?)\s*(?:\b(?:lol|haha|btw|by the way)\b)?[.!]*$", re.I)
# Things whose value is read by the table's own rules, or that are people, not attributes.
_NOT_THINGS = frozenset({"name", "names", "age", "job", "work", "diet", "home", "place", "hobby", "favourite",
                         "favorite", "goal", "plan", "plans", "day", "week", "weekend", "life", "problem",
                         "question", "answer", "point", "guess", "bad", "fault", "turn", "bf", "gf", "boss", "friend",
                         "colleague", "manager", "kids", "parents"}) | frozenset(re.findall(r"[a-z-]+", REL))
_NOT_NAMES = frozenset("the a an that this what something anything nothing after like weird".split())
_ATTRIBUTE_SHAPES = frozenset(Shape) - {Shape.NAME}  # a name alone: only for things named ("street", "shop")
_NAMED_THINGS = re.compile(r"\b(?:street|road|shop|store|company|business|band|boat|wifi|network|tag|handle|"
                           r"username|user\s*name|gamertag|zodiac|sign|team|club|school|brand|newsletter|"
                           r"podcast|channel|blog|car|cat|dog|pet|rabbit|horse|village|town|city|building|"
                           r"plant|doctor|dentist|gp|landlord|surname|last\s+name|maiden\s+name|sign)\b", re.I)


_RENEWED = re.compile(r"(new|current|present)\s+")
_ONE_WORD = re.compile(r"[a-z][a-z0-9_-]{2,}")


def _called_word(verb: str, value: str) -> Shape | None:
    """"our wifi is called smithhouse": a thing called by one word is named, whatever its case."""
    if verb in ("is called", "is named") and _ONE_WORD.fullmatch(value) and value not in _NOT_NAMES:
        return Shape.NAME
    return None


def attribute_fact(clause: str, subject: str, display: str) -> FactDraft | None:
    """"my zip is 94107": the user's ``zip`` is ``94107``; None unless the value has one shape."""
    m = _ATTRIBUTE.match(clause.strip())
    if m is None:
        return None
    thing, value = " ".join(m.group("thing").lower().split()), m.group("obj").strip()
    # "my new GP is Dr Jones" names the same slot as "my GP is Dr Smith", and says it changed.
    renewed = _RENEWED.match(thing)
    thing = thing[renewed.end():] if renewed and thing[renewed.end():] else thing
    verb = (m.group("verb") or "is").lower()
    shape = shape_of(value) or _called_word(verb, value)
    if shape is None or thing.split()[-1] in _NOT_THINGS or thing.split()[0] in _NOT_THINGS:
        return None
    if shape not in _ATTRIBUTE_SHAPES and not _NAMED_THINGS.search(thing):
        return None
    predicate = re.sub(r"\W+", "_", thing)
    owner = display + ("'" if display.endswith("s") else "'s")
    said = thing + " ".join((m.group("where") or "").lower().split()).join("  ").rstrip()
    return FactDraft(subject=subject, predicate=predicate, object=value, statement=f"{owner} {said} {verb} {value}.",
                     kind=MemoryKind.FACT, importance=0.7, cardinality=Cardinality.ONE,
                     revision=renewed is not None and renewed.group(1) == "new")


# A message that opens by setting something right: "nvm", "Sorry,", "oops", "lol no its ...".
_CORRECTION_OPENING = re.compile(
    r"^\W*(?:(?:lol|haha|ugh|oh|hmm|wait|no|nope|sorry|sry|oops|whoops|nvm|never\s*mind|actually|correction|"
    r"typo|my\s+bad|excuse\s+me|i\s+mean|i\s+meant|scratch\s+that|i\s+wrote\s+(?:it\s+)?wrong|turns\s+out|"
    r"i\s+got\s+it\s+wrong|make\s+(?:that|it))\b[\s,.:!-]*)+", re.I)
# What may stand between the opening and the new value: "its", "it's", "is not 15, is", "ends in".
_LEAD_IN = re.compile(
    r"^(?:(?:it's|its|it\s+is|it\s+was|is|that's|thats|should\s+be|make\s+that|the\s+right\s+one\s+is|"
    r"(?:it\s+)?(?:ends|starts|begins)\s+(?:in|with)|actually|no)\b[\s,]*|(?:is\s+)?not\s+[^,.;!?]{1,25},\s*(?:it's|its|is|but)?\s*"
    r"|(?:(?:the|my|our|his|her)\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+(?:is|are|was)\s+(?:on\s+|at\s+|in\s+)?)*",
    re.I)


# "make it 9pm for the party": what the value is for names its slot, and the value still stands alone.
_VALUE_ALONE = re.compile(r"\s*(?:$|[,.;:!?)-]|(?:lol|haha|sorry|oops|not|then|instead|actually)\b|"
                          r"for\s+(?:the|my|our)\s+\w+\s*(?:$|[,.;:!?]))", re.I)


def _bare_value(text: str) -> str | None:
    """The value a correction opens with, after its lead-in ("its july 27 lol": "july 27"), standing
    alone in its clause: "No, Thursday works better for the meeting" is a new thought, not a correction."""
    rest = text[_LEAD_IN.match(text).end():]  # type: ignore[union-attr]  # the pattern matches empty
    found = values_in(rest)
    if not found or found[0].start > 4:
        return None
    after = rest[found[0].start + len(found[0].text):]
    return found[0].text if _VALUE_ALONE.match(after) else None


def bare_correction(text: str, display: str) -> FactDraft | None:
    """"nvm its july 27", "Sorry, Mr. Shah.", "ugh typo, ends in 4417": a correction naming only the
    new value, which replaces the newest held value of its shape (settled against the ledger)."""
    opening = _CORRECTION_OPENING.match(text)
    if opening is None or not opening.group(0).strip(" ,.:!-"):
        return None
    value = _bare_value(text[opening.end():])
    if value is None:
        return None
    return FactDraft(subject="user", predicate=CORRECTION, object=value, statement=f"{display} means {value}.",
                     importance=0.7, revision=True, slot="")


# What says a thing has a new name (not a move or a new job: the table's rules read those).
_RENAME_CUE = re.compile(
    r"\b(?:renamed|rebranded|renaming|rename|new\s+name|goes\s+by|answers\s+to|responds\s+to|registered\s+(?:\w+\s+){1,2}as|(?:is|are|it's|its)\s+now\s+(?:called|named)|officially|"
    r"now\s+(?:it\s+is|it's|its|called|named|(?:the|my|our)\s+\w+\s+is\s+(?:called|named))|changed\s+(?:the|my|our|its)\s+(?:\w+\s+)?(?:name\s+)?to)\b"
    r"|\b\w+\s+now\s*[.!]*$", re.I)
# People are renamed by a correction or a wedding, never by "it's X now": their words name no slot here.
_PETS = frozenset("dog puppy cat kitten rabbit bunny hamster parrot budgie horse pony turtle tortoise guinea pig "
                  "ferret gecko goldfish".split())
_PEOPLE_WORDS = frozenset().union(*(meaning(w) for w in set(re.findall(r"[a-z-]+", REL)) - _PETS)) | meaning(
    "children kids parents boss friend colleague manager mum mom dad")
_SOMEONE_ELSES = re.compile(r"\b(?:the\s+other|other\s+\w+'s|someone's|somebody's|their|theirs|your|yours|his|hers)\b",
                            re.I)
_WE = re.compile(r"^\W*(?:we're|we\s+are|we've|we\s+have)\b", re.I)
_GROUPS = meaning("band company startup business team club group firm organisation")
_SLOT_FILLER = frozenset(meaning("name named called call now renamed rebranded officially new changed change "
                                 "it's its is updated update"))


def renamed_value(sentence: str, display: str) -> FactDraft | None:
    """"The council renamed our street, it's Windrush Way now": a name said to hold now, for the held
    value of the slot the sentence names ("street"); None without a name, a slot word, or a cue."""
    clauses = [c for c in re.split(r",\s*|;\s*", sentence) if _RENAME_CUE.search(c) and not ADDITIVE_CUE.search(c)]
    if not clauses or _SOMEONE_ELSES.search(sentence):
        return None
    # A capital opening the sentence is no evidence of a name ("Meeting note 3: ... moved to room 3").
    names = [v for c in clauses for v in values_in(c) if v.shape in (Shape.NAME, Shape.HANDLE)
             and not sentence.lstrip().startswith(v.text)]
    if len(names) != 1:
        return None
    value = names[0].text
    slot = meaning(sentence) - meaning(value) - _SLOT_FILLER - _PEOPLE_WORDS
    if _WE.match(sentence):
        slot |= _GROUPS  # "We're The Signals now": the name of something "we" are, a band or a company
    if not slot:
        return None  # nothing names the slot: "We're The Signals now" could be anything
    return FactDraft(subject="user", predicate=CORRECTION, object=value, statement=f"{display} has {value} now.",
                     importance=0.7, revision=True, slot=" ".join(sorted(slot)))


_LEFT = re.compile(r"\b(?:left|quit)\s+(?:my\s+(?:job|post|role)\s+(?:at|with)\s+)?(?P<old>(?-i:[A-Z][\w&'-]*"
                   r"(?:\s+(?:&\s+)?[A-Z][\w&'-]*){0,3}))", re.I)
# What may come before "left" in its clause when the speaker left: "I finally left", "so we left", "Left".
_SPEAKER_LEFT = re.compile(r"^\s*(?:(?:so|and|but|also|well|ok|okay)\s+)?(?:(?:I|I've|I\s+have|we|we've|we\s+have)\s+)?"
                           r"(?:(?:just|finally|recently|actually|officially)\s+)*$", re.I)
_NEW_THERE = re.compile(r"\b(?:now|since|started|joined|starting|moved|renting|living|with|at|by|in)\b", re.I)
# A month or a day is when, not what took the old one's place: "Left Boston in June".
_WHEN = re.compile(r"^(?:January|February|March|April|May|June|July|August|September|October|November|December|"
                   r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$")
# A trip, not a switch: "Left Paris at 6am, landing in Rome soon!"
_TRIP = re.compile(r"\b(?:land(?:ed|ing)?|flight|fly(?:ing)?|arriv\w*|heading|layover|trip|holiday|vacation|visit\w*|"
                   r"soon|tonight|tomorrow|airport|train|bus)\b", re.I)


def left_for_later(text: str, display: str) -> FactDraft | None:
    """"Left Deloitte. KPMG since last week.", "I left Unilever, now I am accountant by Nestle": a switch
    told in two steps; the later name replaces whichever current belief holds the one left (settled
    against the ledger like "left A for B"; when none holds it, no belief is made)."""
    m = _LEFT.search(text)
    if m is None or text.rstrip().endswith("?"):
        return None
    if not _SPEAKER_LEFT.match(re.split(r"[,;.!?:]", text[:m.start()])[-1]):
        return None  # someone else left ("My sister left Rome")
    old = m.group("old").strip(" .,")
    for clause in re.split(r"[,;.!]\s*", text[m.end():]):
        names = [v.text for v in values_in(clause) if v.shape is Shape.NAME and v.text.lower() != old.lower()
                 and not _WHEN.match(v.text)]
        if names and _NEW_THERE.search(clause) and not _TRIP.search(clause):
            return FactDraft(subject="user", predicate=CORRECTION, object=names[0],
                             statement=f"{display} has {names[0]} instead of {old}.", importance=0.7,
                             revision=True, replaces=old)
    return None
