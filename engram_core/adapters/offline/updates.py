"""More ways people state where they live, where they work, what things are called and what they gave up
(pure data: rules in the form of ``patterns``, run after its table).

A rule here is marked ``tentative`` where the wording leaves room for another reading: a
tentative fact may add a value where none is held, or retire the very value it names, but
never replaces one on its own ("I'm at Starbucks now" may be a coffee, not a new employer).
"""

from __future__ import annotations

import re

from engram_core.adapters.offline.checks import capitalised, first_word_not_in, workplace
from engram_core.adapters.offline.lexicon import MEANS, NOT_NAMES, PASTIMES
from engram_core.adapters.offline.patterns import (
    ADV, DIETS, FACT, I_, I_VE, IM, IM_OR_BEEN, MANY, OBJ, ONE, WE, PredicateSpec, Rule, name,
)

_ADV_DIET = r"(?:(?:fully|full|completely|totally|100%|strictly|now|officially|basically)\s+)*"
_BE = r"\b(?:I|we)(?:'m|\s+am|m|'re|\s+are)\s+" + ADV
_ORG = r"(?P<obj>(?-i:(?:the\s+)?[A-Z][\w&'.-]*(?:\s+(?:&\s+)?[A-Z][\w&'.-]*){0,4}))"
# "Left Paris at 6am", "left London this morning": a trip, which ends neither a job nor a home.
_NOT_A_TRIP = (r"(?![^,;.!?]*\b(?:at\s+\d|\d+\s*(?:am|pm)|this\s+(?:morning|afternoon|evening)|today|tonight|yesterday|"
               r"airport|flight|train|for\s+the\s+(?:weekend|day|night))\b)")
_THINGS = (r"(?P<thing>project|side project|podcast|newsletter|band|app|shop|store|product|channel|server|blog|"
           r"restaurant|team|group|lab|company|startup|business|brand|club|book club|org|organisation|"
           r"organization|website|site|tool|cafe|bakery|show|game|repo)")
_SCHOOLISH = r"(?:school|academy|primary|elementary|high|middle|college|university|uni|kindergarten|nursery)"

THING_NAME = PredicateSpec(ONE, FACT, "{p} {thing} is called {o}.", 0.75)
SPECS = {"school": PredicateSpec(ONE, FACT, "{d} goes to {o}.", 0.7),
         "drives": PredicateSpec(MANY, FACT, "{d} drives {ao}.", 0.6),
         "address": PredicateSpec(ONE, FACT, "{p} address is {o}.", 0.75),
         "studies_at": PredicateSpec(ONE, FACT, "{d} studies in {o}.", 0.65)}


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_ORG_WORDS = re.compile(r"\b(?:school|academy|primary|elementary|high|college|university|hospital|infirmary|clinic|"
                        r"inc|ltd|llc|corp|company|group|labs?|studio|agency|bank|office|team|department|pharmacy|"
                        r"chemist|hotel|restaurant|cafe|café|bakery|supermarket)\b", re.I)


def _organisation(obj: str) -> bool:
    return _ORG_WORDS.search(obj) is not None


# Where one may be for an hour as well as work: a chain one visits, or a place named by its kind.
_VENUES = frozenset("starbucks costa pret nero mcdonald's mcdonalds subway kfc greggs tesco sainsbury's sainsburys "
                    "asda aldi lidl waitrose morrisons walmart target costco ikea primark boots home work "
                    "church".split())
_VENUE_WORDS = re.compile(r"\b(?:airport|station|terminal|mall|centre|center|park|beach|arena|stadium|pub|bar|inn|"
                          r"arms|tavern|hotel|gym|museum|cinema|theatre|theater|zoo|market|square)\b", re.I)


def _venue(obj: str) -> bool:
    """A place one visits ("Starbucks", "Heathrow Airport") or someone's home ("Sarah's", "Mum's")."""
    return (obj.lower().removeprefix("the ") in _VENUES or _VENUE_WORDS.search(obj) is not None
            or obj.lower().endswith(("'s", "s'")))


def _pronoun(obj: str) -> bool:
    return obj.lower() in {"i", "he", "she", "they", "we", "it", "you", "the boss", "the manager"}


def _school(obj: str) -> bool:
    return capitalised(obj) and re.search(r"\b" + _SCHOOLISH + r"\b", obj, re.I) is not None


# "I'm in Braga." is where one is, not always where one lives (a trip, a meeting, "in IT"): only a place said
# alone at the end of its clause, and only tentatively (it never replaces a home held).
_NOT_PLACES = frozenset("bed love pain trouble shock tears charge control luck time line hurry debt denial recovery "
                        "therapy labour labor office work class meeting meetings court jail prison hospital school "
                        "college uni town bits pieces heaven hell it hr pr qa sales marketing finance engineering "
                        "accounts accounting tech retail management admin ops support year grade form".split())
# Somewhere for a while: "I'm in Paris now for a conference", "im in Lisbon now for work, back friday".
_NOT_STAYING = (r"(?![^.!?]*\b(?:for\s+(?:a|an|the|work|business)\b|trip|holiday|vacation|conference|visiting|flight|"
                r"wedding|funeral|graduation|layover|back\s+(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|home|"
                r"next\s+week))\b)")
_ONLY_PLACE = (r"(?!(?:a|an|the|my|our|his|her|their|this|that|some|no|there|here)\b)"
               r"(?P<obj>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)?)(?=\s*(?:[,.!]|$))")


def _a_place(obj: str) -> bool:  # a town, not "Lloyds Pharmacy" (a workplace)
    return capitalised(obj) and obj.split()[0].lower() not in _NOT_PLACES and obj.lower() not in _NOT_PLACES \
        and not workplace(obj)


_HOME_KIND = (r"(?:(?:new|little|tiny|small|big|old|one-bed|two-bed|three-bed|\w+-bedroom|shared|rented)\s+)*"
              r"(?:flat|house|apartment|place|room|studio|cottage|bedsit|home|care\s+home|nursing\s+home|"
              r"retirement\s+home|retirement\s+village)")

# What one settles into that is no home: "settled into our seats", "settling into the new role".
_TRIPPY = re.compile(r"\b(?:hotel|airbnb|hostel|seat|chair|routine|role|job)\b", re.I)

_HOME = (
    # "the new apartment in Oakland has a real kitchen", "settlin into galway", "Since I don relocate to Abuja",
    # "I am in Lisbon since last month": a home named in words that say it is new.
    Rule("lives_in", _rx(r"\b(?:the|my|our)\s+new\s+(?:apartment|flat|house|home|condo|bungalow|cottage)\s+"
                         r"(?:in|outside|near)\s+" + name()), revision=True, first_person=False),
    Rule("lives_in", _rx(r"\bsettl(?:ed|ing|in'?)\s+(?:down\s+)?(?:in|into)\s+" + name()), revision=True,
         first_person=False, check=lambda o: not _TRIPPY.search(o)),
    Rule("lives_in", _rx(r"(?:^|\b(?:I|we|he|she|they|has|have|had|don|just|finally)\s+)relocat\w*\s+to\s+" + name()),
         revision=True, first_person=False),
    Rule("lives_in", _rx(IM + r"in\s+" + name() + r"\s+since\b"), revision=True),
    # "the movers dropped the last boxes at my place in Tucson", "the flat in Leeds is sorted, got the keys",
    # "bought a little cottage outside Norwich": a home named beside what a move leaves behind; not a stay.
    Rule("lives_in", _rx(r"^(?=.*\b(?:movers?|boxes|keys|unpack\w*|lease|settled|moved|moving|bought|closed\s+on|"
                         r"sold\s+the\s+house)\b)"
                         r"(?!.*\b(?:trip|holiday|vacation|weekend|airbnb|hotel|visit\w*|staying|stayed)\b).*?"
                         r"\b(?:my|our|the|a|an)\s+" + _HOME_KIND + r"\s+(?:in|outside|near)\s+"
                         r"(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\b(?!\s+(?:park|station|square|street|road|"
                         r"lake|river|beach|gardens?|market|airport|stadium|campus|university|hospital)\b)"),
         revision=True, first_person=False),  # "a small flat near Lužánky park": a landmark, not the town
    # "I'm in a flat in Limerick now", "Dad's in a care home in Limerick now": a home said to be new.
    Rule("lives_in", _rx(_BE + r"(?:now\s+)?in\s+(?:a|an|my|our|the)\s+" + _HOME_KIND + r"\s+(?:in|near|outside)\s+"
                         r"(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))(?=\s+(?:now|these\s+days)\b)"),
         revision=True),
    # "Renting in Dallas right now", "I've been renting a little flat in Turin since May".
    Rule("lives_in", _rx(r"\b(?:I|we)(?:'m|\s+am|m|'re|\s+are|'ve\s+been|\s+have\s+been)\s+" + ADV + r"renting\s+"
                         r"(?:(?:a|an|the|our|my)\s+(?:[\w-]+\s+){0,3}?(?:flat|house|apartment|place|room|studio|"
                         r"cottage|bedsit)\s+)?in\s+" + OBJ), revision=True, check=capitalised),
    # "I share a two-bed flat in Glasgow", "we rent a house in Leith": the home named by how one holds it.
    Rule("lives_in", _rx(r"\b(?:I|we)\s+" + ADV + r"(?:share|rent)\s+(?:a|an|the|our|my)\s+" + _HOME_KIND
                         + r"\s+in\s+" + OBJ), check=capitalised),
    # "moved back in with my parents in Paisley", "got the keys to our new place in York".
    Rule("lives_in", _rx(I_VE + r"(?:have\s+)?moved\s+(?:back\s+)?in\s+with\s+(?:my|our)\s+[\w -]+?\s+in\s+" + OBJ),
         revision=True, check=capitalised),
    Rule("lives_in", _rx(WE + r"got\s+(?:a|an|my|our)\s+(?:own\s+)?" + _HOME_KIND + r"\s+in\s+"
                         r"(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\b(?!\s+for\b)"), revision=True),
    Rule("lives_in", _rx(WE + r"got\s+the\s+keys?\s+(?:to|for)\s+(?:our|my|the)\s+" + _HOME_KIND + r"\s+in\s+" + OBJ),
         revision=True, check=capitalised),
    # "New address: 22 Rua do Almada, Porto.": the town is the last part of the address.
    Rule("lives_in", _rx(r"^(?:my\s+)?new\s+address(?:\s+is)?\s*:?\s+[^.!?]*?,\s*"
                         r"(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\s*[.!]*$"),
         revision=True, first_person=False, check=lambda o: not any(ch.isdigit() for ch in o)),
    # "gran moved in with us": someone else's home is now the user's.
    Rule("lives_in", _rx(I_VE + r"(?:have\s+)?moved\s+in\s+(?P<obj>with\s+(?:us|me))\b"), revision=True,
         template="{d} lives with the user."),
    Rule("lives_in", _rx(r"^(?:(?:lol|haha|so|well|ok|okay|also|and|btw)\s+)*" + IM
                         + r"(?:(?:up|down|over|out|back)\s+)?in\s+" + _ONLY_PLACE), tentative=True, check=_a_place),
    Rule("lives_in", _rx(r"\b(?:I|we)\s+" + ADV
                         + r"call\s+(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\s+home\b"), revision=True),
    Rule("lives_in", _rx(r"(?:^|\bmy\s+)(?:new\s+)?home(?:\s+city|\s+town)?\s+is\s+(?:now\s+)?(?:in\s+)?" + OBJ),
         check=lambda o: capitalised(o) and not _school(o), first_person=False),
    Rule("lives_in", _rx(r"(?:^|,\s*)(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))(?:'s|\s+is)\s+(?:my\s+)?"
                         r"(?:new\s+)?home\b(?!\s+(?:to|of|for)\b)"), revision=True, first_person=False),
    Rule("lives_in", _rx(_BE + r"(?:now\s+)?(?:an?\s+)?(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\s+"
                         r"resident\b"), revision=True),
    Rule("lives_in", _rx(r"\bresident\s+of\s+" + OBJ), check=capitalised),
    Rule("lives_in", _rx(WE + r"packed\s+up\s+(?:and\s+)?(?:went|headed|moved|relocated)\s+to\s+" + OBJ), revision=True,
         check=capitalised),
    # "We're Cardiff-based now": where one is based, said to have changed.
    Rule("lives_in", _rx(_BE + r"(?:now\s+)?" + name() + r"-based\b(?=.*\b(?:now|these\s+days)\b)"), revision=True),
    Rule("lives_in", _rx(WE + r"been\s+(?:living\s+)?in\s+" + OBJ + r"(?=\s+since\s+(?:the\s+)?(?:spring|summer|autumn|"
                         r"fall|winter|january|february|march|april|may|june|july|august|september|october|november|"
                         r"december|last\s+(?:month|year|spring|summer|autumn|fall|winter)|\d{4})\b)"),
         revision=True, check=capitalised),
    Rule("lives_in", _rx(r"^(?:(?:my|our)\s+)?new\s+(?:flat|house|apartment|place|home)\s+(?:is\s+)?in\s+" + OBJ),
         revision=True, check=capitalised, first_person=False),
    Rule("lives_in", _rx(r"^(?:and\s+|so\s+)?now,?\s+" + _BE + r"(?:living|staying|based)\s+in\s+" + OBJ),
         revision=True, check=capitalised),
    Rule("lives_in", _rx(r"^(?:officially\s+|now\s+)*(?:an?\s+)?(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\s+"
                         r"resident\b"), revision=True, first_person=False),
    Rule("lives_in", _rx(r"\bmy\s+(?:new\s+)?(?:apartment|flat|house|place|home|address)(?:'s|\s+is)\s+(?:now\s+)?"
                         r"in\s+" + OBJ), check=capitalised),
    # "moved over to Leeds General as a nurse" is a new job, not a home.
    Rule("lives_in", _rx(WE + r"(?:moved|relocated)\s+(?:up|over|down|back|out|across|away)\s+to\s+"
                         r"(?![^,;!?]*\bas\s+an?\s)" + OBJ),
         revision=True, check=lambda o: capitalised(o) and not _organisation(o) and not workplace(o)),
    Rule("lives_in", _rx(WE + r"settled\s+in\s+" + OBJ + r"(?=.*\b(?:for good|home|now|settled)\b|$)"),
         revision=True, check=capitalised),
    # "landed in Rome" is a flight, unless it says it is for good ("landed in Lisbon for good")
    Rule("lives_in", _rx(WE + r"landed\s+in\s+" + OBJ + r"(?=.*\b(?:for good|home|settled)\b)"), revision=True,
         check=capitalised),
    Rule("lives_in", _rx(_BE + r"(?:now\s+)?(?:living\s+|staying\s+|settled\s+)?in\s+" + OBJ
                         + r"(?=\s+now\b|\s+these days\b|\s+for good\b)" + _NOT_STAYING), revision=True,
         check=capitalised),
)

_AT_ORG_NOW = _rx(IM + r"(?=now\s+at\b|at\s+[^,.;!?]*?\s+(?:now|these\s+days)\b)(?:now\s+)?at\s+" + _ORG)

# "after the wedding I'm going by Jennifer Okafor", "I've started going by Theo", "I'm using the name Mila now",
# "im going by rae now" in all-lower-case chat: a name taken on ("I'm going by train now" is none).
_GOING_BY = Rule("name", _rx(r"(?:" + IM + r"|\bI(?:'ve|\s+have)\s+started\s+)(?:now\s+)?(?:go(?:ing|in'?)\s+by|"
                             r"using\s+the\s+name)\s+" + name(any_case=True) + r"(?=\s*(?:$|[,.;!(]|(?:now|from\s+now|"
                             r"these\s+days|officially|on\s+everything|everywhere|at\s+work)\b))"), negatable=False,
                 revision=True, check=lambda o: o[:1].isupper() and first_word_not_in(NOT_NAMES | MEANS)(o))

_TAKEN = r"[^.;!?]*\b(?:took|accepted|accept|signed|said\s+yes)\b"  # an offer got is a job only when taken
_GOT, _GOT_TAKEN = r"got(?![^,.;!?]*\boffer(?!" + _TAKEN + "))", r"got(?=\s+(?:job\s+)?offer" + _TAKEN + ")"
_WORK = (
    Rule("works_at", _rx(r"\b(?:" + _GOT_TAKEN + r"|accepted|accept|took|take)\s+(?:an?\s+|the\s+|their\s+)?"
                         r"(?:job\s+)?offer\s+from\s+" + _ORG), revision=True, first_person=False),
    Rule("works_at", _rx(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next\s+week)\s+"
                         r"I\s+start\s+(?:at|with)\s+" + _ORG), revision=True),
    # "..., starting at Riverside Clinic on monday", "they hired me in Santander bank", "working by Bosch".
    Rule("works_at", _rx(r"(?:^|,\s*|\bI'm\s+|\bI\s+am\s+|\bim\s+)(?:starting|I\s+start)\s+at\s+" + _ORG
                         + r"(?=\s+(?:on|next|this|in|from|tomorrow|monday|tuesday|wednesday|thursday|friday)\b)"),
         revision=True, first_person=False, check=lambda o: not _venue(o)),
    Rule("works_at", _rx(r"\b(?:they|\w+)\s+(?:have\s+|has\s+|finally\s+)?hired\s+me\s+(?:at|in|by|for)\s+" + _ORG),
         revision=True, first_person=False),
    Rule("works_at", _rx(_BE + r"working\s+(?:by|bei)\s+" + _ORG), revision=True),
    # "Went freelance in January": working for oneself is the employer now.
    Rule("works_at", _rx(I_VE + r"(?:have\s+)?(?:went|gone|turned|became|am\s+now|'m\s+now)\s+"
                         r"(?P<obj>freelance|self-employed|self\s+employed)\b"), revision=True, template="{d} is {o}."),
    Rule("works_at", _rx(IM + r"(?:now\s+)?(?P<obj>freelance|self-employed|self\s+employed)\b"
                         r"(?=\s+(?:now|these\s+days|nowadays)\b)"), revision=True, template="{d} is {o}."),
    # "Still at Accenture, still tired.": where one still is, said alone, is where one works (tentatively).
    Rule("works_at", _rx(IM + r"still\s+(?:at|with)\s+" + _ORG + r"(?=\s*(?:[,.;!]|$))"), tentative=True,
         check=lambda o: not _school(o)),
    # "I'm at Globex Labs now" is a new employer; "I'm at Globex now" only suggests one, as "I'm at Gatwick
    # now" may be a flight (it fills an empty slot; recall's restatement veto handles the rest); "I'm at
    # Starbucks now" is a coffee and "I'm with Sarah now" company: neither says anything.
    Rule("works_at", _AT_ORG_NOW, revision=True, check=lambda o: _organisation(o) and not _school(o) and not _venue(o)),
    Rule("works_at", _AT_ORG_NOW, revision=True, tentative=True, check=lambda o: not _school(o) and not _venue(o)),
    Rule("works_at", _rx(IM + r"(?:now\s+)?with\s+" + _ORG + r"(?=\s+(?:now|these days)\b)"),
         revision=True, tentative=True, check=lambda o: _organisation(o) and not _venue(o)),
    Rule("works_at", _rx(I_ + r"(?:started|began)\s+(?:(?:a\s+new\s+job|work(?:ing)?)\s+)?(?:at|with)\s+" + OBJ),
         revision=True, check=capitalised),
    Rule("works_at", _rx(r"\bI(?:'ve|\s+have)?\s+" + ADV + r"(?:taken|took|accepted|" + _GOT + r"|landed)\s+"
                         r"(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:job|position|role|offer|post)\s+(?:at|with|from|in)\s+(?:the\s+)?"
                         + OBJ), revision=True, check=capitalised),
    Rule("works_at", _rx(I_ + r"(?:got\s+|was\s+|been\s+)?(?:hired|poached|headhunted|recruited|snapped\s+up)\s+"
                         r"(?:at|by)\s+" + OBJ), revision=True),
    # "moved over to the tax team at PwC": a team named, then the employer.
    Rule("works_at", _rx(I_ + r"(?:moved|switched|transferred)\s+(?:over\s+)?to\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,3}?"
                         r"(?:team|department|division|unit|office|group)\s+at\s+" + _ORG), revision=True),
    Rule("works_at", _rx(I_ + r"(?:started|began|joined)\s+(?:(?:a\s+new\s+job|work(?:ing)?)\s+)?"
                         r"(?:as\s+(?:an?\s+)?(?:[\w-]+\s+){1,3}?)?(?:at|with)?\s*"
                         r"(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?:company|startup|start-up|nonprofit|non-profit|charity|"
                         r"firm|agency|studio|lab|bank|school|hospital|clinic|consultancy|restaurant|cafe|café|bakery|"
                         r"practice|shop|store)\s+(?:called|named)\s+" + _ORG), revision=True),
    Rule("works_at", _rx(r"\b(?:my\s+)?(?:first|1st)\s+(?:day|week)\s+(?:at|with)\s+(?P<obj>[^,;!?]+?)(?:\s+(?:done|"
                         r"over|went|was|is|has|had|and|but|so|tomorrow|today|on|starts|begins)\b|\s*[,;!?.]|$)"),
         revision=True, check=capitalised, first_person=False),
    Rule("works_at", _rx(IM + r"employed\s+(?:by|at|with)\s+" + OBJ)),
    Rule("works_at", _rx(I_VE + r"(?:have\s+)?(?:left|quit)\s+" + _NOT_A_TRIP + _ORG), negated=True, revision=True,
         tentative=True),
    # Tentative negations only retire a held value they name, so any object may be tried.
    Rule("works_at", _rx(I_ + r"(?:left|quit)\s+" + _NOT_A_TRIP + r"(?:my\s+job\s+at\s+)?" + OBJ), negated=True,
         revision=True, tentative=True),
    Rule("works_at", _rx(IM + r"(?:no\s+longer|not)\s+(?:at|with)\s+" + _ORG), negated=True, revision=True,
         tentative=True),
    # The employer as the one who acts: "Amazon laid me off", "Sainsbury's hired me".
    Rule("works_at", _rx(r"(?:^|[,;]\s*)(?:(?:so|and|then)\s+)?" + _ORG + r"\s+(?:just\s+|finally\s+)?"
                         r"(?:laid\s+me\s+off|let\s+me\s+go|fired\s+me|sacked\s+me|made\s+me\s+redundant)\b"),
         negated=True, revision=True, tentative=True, first_person=False, check=lambda o: not _pronoun(o)),
    Rule("works_at", _rx(r"(?:^|[,;]\s*)(?:(?:so|and|then)\s+)?" + _ORG + r"\s+(?:just\s+|finally\s+)?(?:hired\s+me|"
                         r"took\s+me\s+on|has\s+hired\s+me|signed\s+me)\b"),
         revision=True, first_person=False, check=lambda o: not _pronoun(o) and not _VENUE_WORDS.search(o)),
    Rule("works_at", _rx(I_VE + r"(?:have\s+)?(?:handed|put|gave|given)\s+in\s+my\s+notice\s+(?:at|to|with)\s+" + _ORG),
         negated=True, revision=True, tentative=True),
    Rule("works_at", _rx(I_ + r"(?:teach|work)\s+at\s+" + OBJ), check=capitalised),
    # "I work in company Unilever like accountant": the kind of place, then its name.
    Rule("works_at", _rx(I_ + r"work\s+(?:in|at|for|by)\s+(?:the\s+|a\s+)?(?:company|firm|bank|hotel|agency|factory|"
                         r"restaurant|shop|store|hospital|clinic|school)\s+" + _ORG), check=lambda o: not _school(o)),
    Rule("works_at", _rx(WE + r"(?:moved|switched|transferred)\s+(?:over\s+)?to\s+" + OBJ), revision=True,
         check=lambda o: capitalised(o) and _organisation(o)),
    # "transferred to the Royal London": a place with "the" before its name is not a town.
    Rule("works_at", _rx(WE + r"transferred\s+(?:over\s+)?to\s+(?=the\s+(?-i:[A-Z]))" + _ORG), revision=True,
         check=lambda o: not _school(o) and not _venue(o)),
    # Work that ends: "I retired at last" is a new status; "I graduated" ends being a student (only that).
    Rule("job_title", _rx(I_VE + r"(?:have\s+)?(?:just\s+|finally\s+)?(?P<obj>retired)\b"
                          r"(?!\s+(?:from\s+)?(?:the|my|a|an|his|her|our)\b)"), revision=True, template="{d} is {o}."),
    # "She's teaching now": the work named by what one does.
    Rule("job_title", _rx(IM + r"(?:now\s+)?(?P<obj>teaching|nursing|tutoring|coaching|lecturing|consulting|"
                          r"freelancing|bartending|babysitting)\b(?!\s+(?:a|an|the|my|some|at|for|me|us|him|her|them|you|about)\b)"),
         revision=True, template="{d} works as {o}."),
)

_NAMES_OF_THINGS = (
    Rule("{thing}_name", _rx(r"\b(?:my|our)\s+(?:little\s+|new\s+|side\s+)?" + _THINGS + r"(?:'s\s+name|\s+name)?"
                             r"(?:\s+is|'s)\s+(?:now\s+)?(?:called\s+|named\s+)?" + name(digits=True)),
         first_person=False),
    Rule("{thing}_name", _rx(r"\b(?:the|my|our)\s+(?:\w+\s+)?" + _THINGS
                             + r"\s+(?:is|are)\s+now\s+(?:called\s+|named\s+)?" + name(digits=True)),
         revision=True, first_person=False),
    Rule("{thing}_name", _rx(r"\b(?:renamed|rebranded|rename|rebrand)\s+(?:the|my|our)\s+" + _THINGS
                             + r"\s+(?:to|as)\s+" + OBJ), revision=True, first_person=False, check=capitalised),
    Rule("{thing}_name", _rx(r"\bchanged\s+(?:the|my|our)\s+" + _THINGS + r"(?:'s)?\s+name\s+to\s+" + OBJ),
         revision=True, first_person=False, check=capitalised),
    Rule("{thing}_name", _rx(r"\b(?:the|my|our)\s+" + _THINGS + r"(?:\s+(?!(?:my|his|her|their|our)\b)[\w-]+){0,4}?"
                             r"\s+(?:is\s+)?called\s+" + name(digits=True)), first_person=False),
)

# "he got a tesla model 3": a car bought is one driven, known by its make (whatever its case).
_CAR_MAKES = (r"(?:tesla|toyota|honda|ford|bmw|audi|vw|volkswagen|kia|hyundai|nissan|mazda|subaru|volvo|mercedes|"
              r"skoda|renault|peugeot|citroen|fiat|jeep|porsche|lexus|mini\s+cooper|chevy|chevrolet|polestar|"
              r"rivian|dacia|suzuki|mitsubishi|land\s+rover|range\s+rover|jaguar|prius)")
_CAR_END = r"(?=\s*(?:$|[,.;!]|\s+(?:and|but|because|so|last|this|yesterday|today|now|on|in|for|lol|haha)\b))"

_PEOPLE_AND_DIETS = (
    # A diet in other words: "eating only vegetarian food", "I'm on keto", "going fully vegan", "try to be flexitarian".
    Rule("diet", _rx(r"\bgoing\s+(?:fully\s+|full\s+|totally\s+|completely\s+)?(?P<obj>" + DIETS + r")\b"),
         revision=True, first_person=False),
    Rule("diet", _rx(r"\btry(?:ing)?\s+to\s+(?:be|go|eat)\s+(?:more\s+)?(?P<obj>" + DIETS + r")\b"), revision=True),
    Rule("diet", _rx(r"\b(?:I|I'm|I\s+am)\s+" + ADV + r"(?:eat|eating)\s+only\s+(?P<obj>" + DIETS + r")\b"),
         revision=True),
    Rule("diet", _rx(IM + r"on\s+(?P<obj>" + DIETS + r")\b(?!\s+(?:day|night|menu|recipes?|food|stuff|thing)\b)")),
    # "back to normal eating": no diet any more, whichever was held.
    Rule("diet", _rx(r"\bback\s+to\s+(?P<obj>(?:normal|regular)\s+(?:eating|food|meals))\b"), revision=True,
         first_person=False, template="{d} is back to {o}."),
    # "I'm eating meat again": a food taken back, which ends a diet that leaves it out (``ledger``).
    Rule("eats", _rx(IM_OR_BEEN + r"(?:back\s+to\s+)?eating\s+(?P<obj>[\w ]+?)\s+again\b"), revision=True),
    # "Ana and I divorced last year", "I split up with Tom": the partner named is no longer one; the
    # negation retires whichever held fact names them (a wife, a boyfriend), and no other.
    Rule("relationship_status", _rx(r"(?:^|[,;]\s*)(?:so\s+|and\s+)?(?P<obj>(?-i:[A-Z][a-z'-]+))\s+and\s+I\s+"
                                    r"(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|officially\s+)?(?:divorced|got\s+divorced|"
                                    r"split\s+up|split|broke\s+up|separated)\b"),
         negated=True, revision=True, tentative=True, first_person=False),
    Rule("relationship_status", _rx(I_VE + r"(?:have\s+)?(?:divorced|split\s+up\s+with|broke\s+up\s+with|"
                                    r"separated\s+from|left)\s+" + _NOT_A_TRIP + r"(?P<obj>(?-i:[A-Z][a-z'-]+))\b"),
         negated=True, revision=True, tentative=True),
    # "I'm driving a Tesla now": the car driven these days.
    Rule("drives", _rx(IM + r"(?:now\s+)?driving\s+(?:a|an|the|my|our)\s+(?:(?:new|used|electric)\s+)*(?P<obj>"
                       + _CAR_MAKES + r"\b(?:\s+[\w-]+){0,2}?)" + _CAR_END), revision=True),
    Rule("drives", _rx(I_VE + r"(?:have\s+)?(?:got|bought|leased|picked\s+up)\s+(?:a|an|the|my|our)\s+"
                       r"(?:(?:new|used|second-hand|secondhand|brand\s+new|electric)\s+)*(?P<obj>" + _CAR_MAKES
                       + r"\b(?:\s+[\w-]+){0,2}?)" + _CAR_END), revision=True),
    Rule("drives", _rx(I_ + r"(?:drive|ride)\s+(?:an?|my)\s+" + OBJ)),
    Rule("drives", _rx(r"\bmy\s+car\s+is\s+(?:an?\s+)?" + OBJ)),
    Rule("address", _rx(I_ + r"live\s+(?:on|at)\s+(?P<obj>[^,;!?]*?\b(?:street|st|road|rd|avenue|ave|lane|drive|way|"
                        r"place|square|boulevard|close|court)\b)")),
    Rule("address", _rx(r"\bmy\s+(?:new\s+|home\s+|delivery\s+)?address(?:\s+for\s+\w+)?\s+is\s+(?!in\b)"
                        r"(?P<obj>[^;!?]+?)"
                        r"(?=,?\s+(?:and|but|so)\b|[.;!?]|$)"), keep_time=True),
    Rule("birthday", _rx(r"\bmy\s+(?:date\s+of\s+birth|birth\s*date|dob)\s+is\s+(?:on\s+)?" + OBJ), keep_time=True),
    Rule("drives", _rx(I_ + r"(?:sold|scrapped|crashed|got rid of)\s+(?:the|my|our)\s+" + OBJ), negated=True,
         revision=True, tentative=True),
    Rule("school", _rx(I_ + r"(?:go|goes|started|attend|attends)\s+(?:(?:middle|high|primary|secondary)\s+school\s+)?"
                       r"(?:to|at)\s+" + OBJ), check=_school),
    Rule("school", _rx(IM_OR_BEEN + r"(?:now\s+)?(?:at|in)\s+" + OBJ), check=_school, revision=True),
    # "I switched schools to Oakwood Academy": a teacher "moved over to" a school is a new employer instead.
    Rule("school", _rx(WE + r"(?:moved|switched|transferred|changed)\s+schools?\s+(?:over\s+)?(?:to|at)\s+" + OBJ),
         check=_school, revision=True),
    Rule("studies_at", _rx(r"\bI(?:'m|\s+am|m)?\s+" + ADV + r"(?:study|studying|studies)\s+(?:\w+\s+)?(?:at|in)\s+"
                           r"(?:the\s+university\s+of\s+)?" + OBJ), check=capitalised),
    Rule("diet", _rx(I_VE + r"(?:went|have gone|gone|turned|became|switched to|switched)\s+" + _ADV_DIET
                     + r"(?P<obj>" + DIETS + r")\b"), revision=True),
    Rule("diet", _rx(IM + r"(?:more\s+like\s+|now\s+)?(?P<obj>" + DIETS + r")\s+(?:now|these days|rather)\b"),
         revision=True),
    Rule("diet", _rx(I_ + r"(?:eat|follow|have|keep)\s+an?\s+(?P<obj>[\w-]+(?:\s+[\w-]+)?)\s+diet\b")),
    Rule("diet", _rx(r"\b(?:switching|switched|moving|moved|going)\s+(?:over\s+)?to\s+(?:an?\s+|the\s+)?"
                     r"(?P<obj>[\w-]+)\s+(?:diet|style\s+of\s+eating|way\s+of\s+eating)\b"), revision=True),
    Rule("diet", _rx(r"^(?P<obj>(?:raw\s+|strict\s+)?" + DIETS + r")\s+here\b"), first_person=False),
    # Said alone: "Vegetarian, by the way.", "just regular vegan", "so fully veggie now".
    Rule("diet", _rx(r"^(?:(?:so|just|now|fully|full|regular|plain|normal|strictly)\s+)*(?P<obj>" + DIETS
                     + r")(?:,?\s+(?:by\s+the\s+way|btw|fyi|now|these\s+days|(?:as\s+of|since|from)\s+"
                     r"(?:this|last|the)?\s*\w+(?:\s+on)?))?\s*[.!]*$"), revision=True,
         first_person=False),
    # "took up climbing", "joined the robotics club": a pastime begun; "hung up my rugby boots": one ended.
    Rule("hobby", _rx(I_VE + r"(?:have\s+)?(?:taken|took)\s+up\s+" + OBJ)),
    # "started cello", "started playing the drums": a pastime of the lexicon begun.
    Rule("hobby", _rx(I_VE + r"(?:have\s+)?(?:started|began|begun)\s+"
                      r"(?:(?:playing|learning|doing|practising|practicing)\s+)?"
                      r"(?:the\s+)?(?P<obj>" + "|".join(sorted(PASTIMES, key=len, reverse=True)) + r")\b"
                      r"(?=\s*(?:$|[,.;!]|(?:and|but|so|again|lessons?|classes|class|last|this|on|in|at|every|now|recently|too|"
                      r"as\s+well|instead|lol|haha|after|since|with\s+(?:my|a|the))\b))")),
    Rule("hobby", _rx(I_VE + r"(?:have\s+)?joined\s+(?:the|a|an)\s+(?P<obj>(?:[\w-]+\s+){0,3}?(?:club|choir|"
                      r"orchestra|society|league|troupe|ensemble))\b")),
    Rule("hobby", _rx(I_VE + r"(?:have\s+)?hung\s+up\s+my\s+(?P<obj>[\w-]+)\s+(?:boots|gloves|skates|racket|racquet|"
                      r"shoes|spikes|cleats|bat|clubs)\b"), negated=True, revision=True, tentative=True),
    # "Swimming instead.": an activity taken up in place of another, said alone.
    Rule("likes", _rx(r"^(?:just\s+|now\s+|so\s+)?(?P<obj>[a-z]+ing(?:\s+[a-z]+){0,2}?)\s+instead\s*[.!]*$"),
         revision=True, first_person=False),
    # Given up in other words: retires the very thing it names, never stands as a belief alone.
    Rule("likes", _rx(r"\bI(?:'m|\s+am|m|'ve|\s+have)?\s+" + ADV + r"(?:done\s+with|over|sick\s+of|tired\s+of|"
                      r"off(?!\s+(?:to|for|on|at|in|work|sick|duty|home)\b)|finished\s+with|gone\s+(?:right\s+)?off|"
                      r"lost\s+(?:all\s+)?interest\s+in|grew\s+out\s+of|grown\s+out\s+of)\s+"
                      + OBJ), negated=True, revision=True, tentative=True),
    Rule("likes", _rx(r"\bno\s+more\s+" + OBJ), negated=True, revision=True, tentative=True, first_person=False),
    # "Jazz doesn't do it for me anymore", "running's over for me": a liking ended, the thing named first.
    Rule("likes", _rx(r"^(?:(?:so|and|but|well|sadly|honestly)\s+)*(?P<obj>[\w' -]+?)\s+"
                      r"(?:(?:just|really|simply|honestly|totally|kinda|somehow)\s+)?(?:(?:doesn't|does\s+not|don't|do\s+not|no\s+"
                      r"longer)\s+(?:really\s+)?do(?:es)?|(?:isn't|aren't|is\s+not|are\s+not)\s+doing)\s+it\s+for\s+me\b"),
         negated=True, revision=True, tentative=True, first_person=False),
    Rule("likes", _rx(r"(?:^|[,;]\s*|\b(?:so|and|but|because|now)\s+)(?P<obj>[\w'-]+(?:\s+[\w'-]+){0,2}?)"
                      r"(?:'s|\s+is|\s+are)\s+(?:now\s+)?over\s+for\s+me\b"),
         negated=True, revision=True, tentative=True, first_person=False),
    # "Sushi's off the menu for me now": a food or drink given up, the thing named first.
    Rule("likes", _rx(r"^(?:(?:so|and|well|sadly|honestly)\s+)*(?P<obj>[\w' -]+?)(?:'s|\s+is|\s+are)\s+(?:now\s+)?"
                      r"off\s+the\s+menu(?:\s+for\s+(?:me|us))?(?:\s+now)?\s*[.!]*$"),
         negated=True, revision=True, tentative=True, first_person=False),
    Rule("likes", _rx(I_VE + r"(?:have\s+)?(?:gave\s+up|given\s+up|had\s+to\s+give\s+up|quit|cut\s+out|"
                      r"ditched|dropped|kicked|"
                      r"stopped(?:\s+(?:drinking|eating|having|buying|watching|playing))?)\s+" + OBJ),
         negated=True, revision=True, tentative=True,
         check=lambda o: re.match(r"(?:my|the|a)\s+(?:job|position|role|work)\b", o, re.I) is None),
    # "I am not watching football anymore": a habit ended, said of the thing.
    Rule("likes", _rx(IM + r"(?:not|no\s+longer)\s+(?:watching|playing|doing|eating|drinking|reading|following)\s+"
                      + OBJ + r"(?=\s+(?:anymore|any\s+more|these\s+days|now)\b)"),
         negated=True, revision=True, tentative=True),
    Rule("likes", _rx(r"\bI(?:'m|\s+am|m)\s+(?:not|no\s+longer)\s+(?:a|an)\s+(?P<obj>[\w-]+)\s+person\b"),
         negated=True, revision=True, tentative=True),
)

RULES: tuple[Rule, ...] = _HOME + _WORK + _NAMES_OF_THINGS + _PEOPLE_AND_DIETS + (_GOING_BY,)
