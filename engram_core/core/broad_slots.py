"""The slots a memory speaks of, read broadly, for a question about one of them now (``asked``) (pure).

Besides the words the slot veto and the write path read (``slots.slots_named``), a slot is read from its
circumstances ("Nestlé onboarding", "done w the move"), from a title or a trade ("they made me store manager"),
from a child's going to a school, and three more slots are read: the team one supports, the car one drives and
a favourite of a kind ("favourite:show"). They are kept apart from the narrow reading, which would otherwise
find an older message speaking of two slots where it spoke of one (the write path flags an older message of
one slot only).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engram_core.core.slots import _drop_none, _named_in, _owner, _readable, _relation, _slot, _slot_of

# Trades named outright, with or without "a": "I am charge nurse", "running the kitchen as head chef".
_TRADES = (r"(?:chef|cook|nurse|doctor|teacher|assistant|supervisor|manager|director|intern|clerk|engineer|developer|"
           r"designer|analyst|consultant|accountant|lawyer|attorney|architect|pharmacist|cashier|barista|waiter|"
           r"waitress|receptionist|scientist|officer|coordinator|administrator|technician|paramedic|librarian|"
           r"student|tester|electrician|plumber|mechanic|firefighter|pilot|dentist|surgeon|vet|carpenter|driver|"
           r"programmer|secretary|banker|journalist|editor|lecturer|professor|tutor|trainer|coach|chemist)")
# Words that say a slot only to a question about it now: wider than the slot veto and the write path read.
# Up to two words before a trade, none of them a place's: "a head chef", not "at the dentist".
_WORDS = r"(?:(?!(?:at|in|to|with|from|on|for|by)\b)[\w-]+\s+){0,2}?"
_NAMED_BROADLY: dict[str, re.Pattern[str]] = {
    # A home told by the move's circumstances: "done w the move", "the movers", "our landlord", "settling into".
    "home": re.compile(r"\b(?:settl(?:ed|ing)\s+in(?:to)?|(?:the|our|my)\s+move|moving\s+day|movers|unpack\w*|"
                       r"first\s+(?:week|month)\s+in\s+(?!(?:the|a|my|our|this|that)\b)\w+|"
                       r"housewarming|landlord|landlady|(?:new\s+)?neighbou?rs|(?:new\s+)?neighbou?rhood|"
                       r"new\s+(?:address|1br|2br|studio)|residence\s+(?:card|permit)|"
                       r"(?:a|the)\s+local\s+(?:here|now)|"
                       r"(?:my|our|his|her|their)\s+(?:new\s+|own\s+)?(?:flat|apartment|house|condo|unit|studio|place)\s+(?:in|at|near)"
                       r"(?=\s+(?-i:[A-Z]))|(?:bought|rented|found|signed\s+for|my\s+new|our\s+new)\s+(?:(?:a|an|our|my)\s+)?"
                       r"(?:[\w-]+\s+){0,2}?(?:flat|apartment|house|condo|cottage|place|home)\s+(?:just\s+)?"
                       r"(?:in|at|near|outside)(?=\s+(?-i:[A-Z])))\b", re.I),
    # A job told by its circumstances: "Nestlé onboarding", "first week at Acme", "my new colleagues at Bosch".
    "employer": re.compile(r"\b(?:(?:I'm|I\s+am|im|I've\s+been|I\s+have\s+been)\s+(?:now\s+)?(?:with|at)\s+"
                           r"(?:(?-i:[A-Z])|(?:an?\s+)(?:[\w-]+\s+){0,2}?(?:agency|company|firm|startup|start-up|studio|consultancy|"
                           r"fintech)\b)|onboarding|"
                           r"(?:first|second|third|1st|2nd|3rd)\s+(?:day|week|month)\s+(?:at|with)|"
                           r"(?:day|week|month)\s+(?:\d+|one|two|three|four|five)\s+(?:at|with)\s+(?-i:[A-Z])|"
                           r"signed\s+(?:a|the|my)\s+(?:\w+\s+)?contract\s+with|internship|new\s+team\s+at\s+(?-i:[A-Z])|"
                           r"new\s+(?:boss|colleagues|co-?workers|"
                           r"workmates|manager|office)|signed\s+with|offer\s+letter|badge|retired\b|retirement)", re.I),
    # What one works as, said without "work as": a title, a post, "I'm now a head chef", "made me manager".
    "occupation": re.compile(
        r"\b(?:(?:job\s+)?title|position|role|promot\w+|(?:moved|stepped|bumped)\s+up\s+to|(?:made|makes?)\s+me|head\s+of|"
        r"(?:I'm|I\s+am|im)\s+(?:now\s+|officially\s+)?"
        r"(?:(?:an?|the)\s+" + _WORDS + r"[\w-]*(?:er|or|ist|ian|ant|ent|eer)|(?:an?\s+|the\s+)?" + _WORDS
        + _TRADES + r")|\bas\s+(?:an?\s+|the\s+)?" + _WORDS + _TRADES + r"|"
        r"(?:'s|\bis)\s+(?:now\s+|finally\s+)?(?:an?\s+|the\s+)?" + _WORDS + _TRADES + r"|"
        r"retired|retirement)\b", re.I),
    # A name the law gives one: "court approved it, im legally wren now".
    "name": re.compile(r"\b(?:legally\s+[\w'-]+\s+now|deed\s+poll)\b", re.I),
    # The school a child goes to, said by its going: "my son is now going to Greenfield", "got admission in".
    "school": re.compile(r"\b(?:got\s+(?:an?\s+)?admission|enroll?ed|(?:goes|going|go|went)\s+to\s+(?-i:[A-Z])|"
                         r"transferred\s+to|start(?:s|ed|ing)?\s+(?:at|in)\s+[\w\s]{0,30}?(?:school|primary|"
                         r"elementary|academy|public|high))\b", re.I),
    # The team one supports and the car one drives, one at a time.
    "team": re.compile(r"\b(?:support(?:s|ing)?|cheer(?:s|ing)?\s+for|root(?:s|ing)?\s+for|(?:a|huge|big)\s+fan\s+of|"
                       r"my\s+(?:\w+\s+)?team|season\s+ticket|switched\s+allegiance)\b", re.I),
    "car": re.compile(r"\b(?:driv(?:e|es|ing)\s+(?:an?|my|the)|(?:my|our|new)\s+(?:\w+\s+)?(?:car|motorbike|motorcycle|"
                      r"scooter)|dealer(?:ship)?|test\s+drive)\b", re.I),
    # A sport and an instrument, named by themselves: "she took up bouldering", "he's on cello now".
    "sport": re.compile(r"\b(?:football|soccer|rugby|cricket|tennis|badminton|squash|basketball|baseball|volleyball|"
                        r"hockey|golf|swimming|cycling|climbing|bouldering|boxing|judo|karate|taekwondo|fencing|rowing|"
                        r"sailing|surfing|skiing|snowboarding|skating|gymnastics|athletics|yoga|pilates|crossfit|netball|"
                        r"handball|lacrosse|padel|pickleball|ping\s+pong|martial\s+arts|jiu[\s-]?jitsu|kickboxing|"
                        r"triathlons?|marathons?|weightlifting|powerlifting|ballet|archery|water\s+polo|wrestling|"
                        r"mma|running|jogging|horse\s+riding|dancing)\b", re.I),
    "instrument": re.compile(r"\b(?:piano|guitar|violin|viola|cello|double\s+bass|drums|flute|clarinet|saxophone|sax|"
                             r"trumpet|trombone|tuba|harp|ukulele|banjo|mandolin|accordion|oboe|bassoon|harmonica|"
                             r"french\s+horn|sitar|tabla)\b", re.I),
    # One favourite of a kind at a time: "my favourite show", "my fav band", "my #1 food", "my go-to drink".
    "favourite": re.compile(
        r"(?:\b(?:favou?rite|fav|fave|go-to)|#1|\bnumber\s+one)(?:\s+(?P<thing>[a-z]+(?:\s+[a-z]+)?))?", re.I),
}


# A thing of the speaker's named beside it: "My band Night Owl Parade played", "our boat Juniper".
_NAMED_THING = re.compile(r"\b(?i:my|our)\s+(?:(?-i:[a-z]+)\s+)?(?P<thing>(?-i:[a-z]+))\s+(?=(?-i:[A-Z])[\w'&-]*[a-z])"
                          r"(?!(?:I|I'm|I've|And|But|So|On|In|At|To|For|The|This|That|Mon|Tue|Wed|Thu|Fri|Sat|Sun)\w*\b)")


_NOT_A_KIND = frozenset("is are was to of and now by in at on for ever right these this no so one thing things "
                        "part".split())


# One word for a kind said in several: "favourite tv", "favourite series" and "favourite show" are one slot.
_KIND_WORDS = {"tv": "show", "serie": "show", "series": "show", "programme": "show", "program": "show",
               "film": "movie", "dish": "food", "meal": "food", "cuisine": "food", "group": "band", "singer": "band",
               "artist": "band", "colour": "color", "beverage": "drink", "game": "sport"}


_KINDS = frozenset("food show band movie book sport drink team game song color colour album restaurant place city "
                   "author player coffee snack dessert podcast app holiday season animal flower beer wine car brand "
                   "tv serie film dish meal cuisine group singer artist beverage".split())


def _favourite_slot(text: str, word: re.Match[str]) -> str | None:
    """Which favourite a favourite word speaks of ("favourite:show" for "my favourite TV shows"); None when it
    names no kind ("my favourite is ...")."""
    kinds = []
    for kind in (word.group("thing") or "").lower().split():
        if kind in _NOT_A_KIND:
            break
        kinds.append(kind)
    if not kinds:  # "it is my favourite now": a favourite of a kind the sentence leaves out
        return _slot("favourite", _owner(text, word.start()))
    known = [kind for kind in kinds if kind.removesuffix("s") in _KINDS]  # "fave food unlocked": the food
    owner, kind = _owner(text, word.start()), (known or kinds)[-1].removesuffix("s")
    return _slot("favourite", _KIND_WORDS.get(kind, kind) + (f":{owner}" if owner else ""))


def slots_named_broadly(text: str) -> frozenset[str]:
    """``slots.slots_named`` and the slots only a question about now reads, each with whose it is."""
    return named_broadly_in(_readable(text))


def named_broadly_in(said: str) -> frozenset[str]:
    """``slots_named_broadly`` of a text already made readable (``slots._readable``)."""
    return _named_in(said) | _drop_none(
        _favourite_slot(said, m) if slot == "favourite" else _slot_of(slot, said, m)
        for slot, words in _NAMED_BROADLY.items() for m in words.finditer(said)) \
        | {_slot("name", _relation(m.group("thing").lower())) for m in _NAMED_THING.finditer(said)
           if m.group("thing").lower() not in _NOT_A_KIND}  # "my internship in Airbus" names no thing "in"


def may_name_broadly(text: str, slots: Iterable[str]) -> bool:
    """Whether a raw text may speak of one of the slots in the broad words alone: a quick look before
    ``slots_named_broadly`` (the full reading of 400 candidates on first sight was 35 ms of a recall)."""
    return any(((words := _NAMED_BROADLY.get(slot.split(":")[0])) is not None and words.search(text) is not None)
               or (slot.startswith("name") and _NAMED_THING.search(text) is not None) for slot in slots)
