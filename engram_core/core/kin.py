"""Changes in the lives of the people a speaker talks about (pure): "My brother works in Dubai.", then "My
brother got transferred to Doha." The bookkeeper reads few of these ("Mom became a school principal", "My wife
got really into rock climbing instead"), so the older words kept surfacing as current.

A sentence names a person (a relation: "my brother", "Mom"; or a name an older message introduced: "my cousin
Paulo", then "Paulo's in Porto for good"), says a change ("transferred", "became", "retired", "instead", "these
days") and speaks of one of the person's slots by its plain words: where they live, their work, their school,
their pastime, their car. An older short message of the same speaker about the same person and slot is then
outdated (``usecases/retractions.kin_outdated``): flagged, kept for questions about the past, and its fact of
that slot carried over to the new value when the message names one (``core/carryover``). A pet or a thing
(a podcast, a shop, a band) is a person here for its name alone.

The speaker's own home, work, name and diet are read the same way when a clause of theirs names a new value
(``own_changed``: "I'm with Honda as of Monday.", "Ended up buying a house in Ghent."): the older short message
must name another.
"""

from __future__ import annotations

import re

from engram_core.core.chattext import normalise_chat
from engram_core.core.stopping import clause_stops
from engram_core.core.restatements import _ALIASES, _BARE_RELATION, _NAMED, _PEOPLE, _RELATIONS, ADDITIVE_CUE, _said

# A move of home, not of a thing moved ("moved the concert ticket", "the moving van").
_MOVED = (r"(?:moved|moving|move)(?=\s+(?:to|into|in|out|back|away|abroad|house|home|here|there|over|across|from|"
          r"cities|countries)\b|\s*[,.;:!?]|\s*$)")
# Plain words of each slot of another person's life; a trade is a word ending as trades do ("trucker",
# "accountant", "librarian", "pharmacist") after "is a" / "works as".
KIN_SLOTS: dict[str, re.Pattern[str]] = {
    "home": re.compile(
        r"\b(?:liv(?:e|es|ed|ing)\s+(?:in|at|near|with|by|out)|" + _MOVED + r"|relocat\w*|settled|emigrat\w*|flat|"
        r"apartment|condo|house|balcony|based\s+in|transferr?ed\s+to|(?:bought|got|found|rented|took)\s+(?:a|an|his|"
        r"her|their)\s+(?:new\s+)?place|(?:is|'s|are)\s+(?:now\s+)?in\s+(?-i:[A-Z])\w*)\b", re.I),
    "work": re.compile(
        r"\b(?:work(?:s|ed|ing)?\s+(?:at|for|in|as)|job|career|hired|consult\w*|freelanc\w*|employ\w*|company|firm|retir\w*|promot\w*|shop|"
        r"restaurant|business|transferr?ed\s+to|teach(?:es|ing)?|driv(?:es|ing)\s+(?:a\s+)?(?:taxi|cab|bus|truck|lorry)|"
        r"(?:is|'s|as|became|become|becomes)\s+an?\s+(?:[\w-]+\s+)?[\w-]*(?:er|or|ist|ian|ant|ent|nurse|chef|"
        r"doctor|cop|clerk|pilot|principal|barista|medic|midwife|administrator))\b", re.I),
    "school": re.compile(
        r"\b(?:school|university|uni|college|academy|elementary|primary|kindergarten|nursery|preschool|attends|"
        r"stud(?:y|ies|ying|ent)|degree|phd|master'?s|enrol\w*|major(?:s|ing)?\s+in|grade|faculty|"
        r"transferr?ed\s+to)\b", re.I),
    "pastime": re.compile(
        r"\b(?:hobby|hobbies|into|plays?|playing|passion|obsess\w*|practi[cs]e\w*|club|sport|fan|supports?|lessons?|"
        r"instrument|for\s+fun|lives\s+for|trains|training)\b", re.I),
    "diet": re.compile(r"\b(?:eats?|eating|diet|vegetarian|vegan|pescatarian|keto|paleo|meat|gluten|dairy|halal|"
                       r"kosher|plant[\s-]based)\b", re.I),
    "car": re.compile(r"\b(?:drives|car|truck|pickup|suv|motorbike|scooter)\b", re.I),
    "name": re.compile(r"\b(?:name[sd]?|called|calls?|renam\w*|rebrand\w*|relaunch\w*|go(?:es)?\s+by|answers\s+to)\b",
                       re.I),
}
# A change said of the person: a move, a new post, a thing taken up or given up, a value said to hold now.
KIN_CHANGE = re.compile(
    r"\b(?:transferr?ed|moved|relocated|became|become|retired?|enrolled|switched|started|start|joined|quit|left|"
    r"hired|took\s+(?:over|up)|got\s+(?:\w+\s+)?into|(?:got|took|landed|found|bought|rented)\s+(?:a|an|the|his|her|"
    r"their)\s+(?:\w+\s+){0,3}(?:job|post|position|role|gig|place|flat|apartment|house|condo)|latest|instead|"
    r"these\s+days|nowadays|lately|for\s+good|sold|traded|"
    r"bought|opened|opend|open|decided|accepted|changed|converted|finally|now|renam\w*|register\w*|new\s+name|"
    r"went|gone|turned|"
    r"answers\s+to|goes\s+by|rebrand\w*|relaunch\w*)\b", re.I)
# A change only thought of, asked, or told of someone else's words.
_NOT_YET = re.compile(r"\b(?:if|would|might|maybe|perhaps|could|should|thinking\s+(?:of|about)|wants?\s+to|"
                      r"kill\s+for|dream(?:ing|s)?\s+(?:of|about)|I'?d\s+love|"
                      r"wanna|wish(?!\s+(?:me|us)\s+luck)|hope|someday|planning|plans?\s+to|considering|talk(?:s|ing)?\s+about|"
                      r"who\s+knows|(?:yrs|years|months)\s+from\s+now|(?-i:may))\b", re.I)
# Work beside the main job: "Started a side gig driving for Uber on weekends".
_SIDE = re.compile(r"\b(?:side\s+(?:gig|job|hustle|business|project)|on\s+the\s+side|second\s+job|"
                   r"extra\s+cash)\b", re.I)
# A clause that goes on with the last one's subject: "Dad left Ford and is consulting for Rivian now".
_GOES_ON = re.compile(r"^\s*(?:is|was|has|had|got|gets|started|starts|moved|works|took|became|quit|left|joined|"
                      r"now\s+(?:is|works|lives))\b", re.I)
# A life told from its start, not a change of now: "mum grew up in Enugu, she only moved to lagos after uni".
_LIFE_STORY = re.compile(r"\b(?:grew\s+up|was\s+born|born\s+and\s+raised|raised\s+in|as\s+a\s+(?:kid|child|teen)|"
                         r"after\s+(?:uni|university|college|school|the\s+war))\b", re.I)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
# A name opening a clause, before a word in lower case ("Paulo's in Porto", "Arjun surprised me"): someone only
# where an older message introduced the name ("my cousin Paulo").
# A name opening a clause, not as someone's ("Mei's best friend transferred": the friend, not Mei).
_OPENING_NAME = re.compile(r"^\W*(?P<name>(?-i:[A-Z][a-z]{2,})(?<!ing))(?:'s\b(?!\s+(?:\w+\s+)?(?:" + _RELATIONS
                           + r"|friend|boss|colleague|roommate|flatmate|neighbou?r|teacher|partner|coach)\b)|"
                           r"\s+(?-i:[a-z]))")
# A person named as whose someone else is: "My partner's sister just became a lawyer" is the sister's news.
_OF_SOMEONE = re.compile(r"'s\s+(?:\w+\s+)?(?:" + _RELATIONS + r"|friend|boss|colleague|roommate|flatmate|neighbou?r|"
                         r"teacher|partner|coach|cousin|aunt|uncle|niece|nephew|kids?|children|parents|ex)\b", re.I)
SHORT_WORDS = 40  # an older message longer than this speaks of more than one thing of the person


_RELATION_WORDS = re.compile(r"^(?:" + _RELATIONS + r"|kid|kids)$", re.I)
_PRONOUN = re.compile(r"\b(?:he|she|he's|she's|hes|shes)\b", re.I)
# The speaker as the clause's subject ("I finally took my kids to a pottery workshop"): the speaker's doing, not a
# change of the person's; but "we enrolled our son at Lincoln Academy" is the son's school.
_SELF = re.compile(r"\b(?:I|I'm|I've|we|we're|we've)\b(?!\s+(?:just\s+|finally\s+)?(?:enrolled|moved\s+(?:him|her)|"
                   r"renam\w*|register\w*|call(?:ed)?\s+(?:the|our|my|him|her)\b))", re.I)
_CLAUSES = re.compile(r"\s*[,;:]\s*|\s+(?:and|but|so|because|bc)\s+", re.I)


SPEAKER = "\0"  # the speaker, as a clause's subject
# Pets the relations leave out: "Our parrot answers to Zazu instead."
_PET_WORDS = (r"parrot|rabbit|bunny|hamster|horse|pony|goldfish|lizard|budgie|puppy|kitten|tortoise|turtle|snake|"
              r"ferret|gecko")
# The things a speaker names and renames: "The podcast relaunched as Big Pot Energy".
_THING_WORDS = (r"podcast|shop|store|blog|bakery|cafe|café|restaurant|company|startup|business|band|channel|project|"
                r"newsletter|app|brand|studio|salon|team")
_PETS = re.compile(r"\b(?:my|our|the|his|her)\s+(?:\w+\s+)?(?P<who>" + _PET_WORDS + r"|" + _THING_WORDS + r")\b", re.I)
# A person or pet introduced by the name they are called: "My cat is called Shadow", "our dog's name is Rex".
_CALLED = re.compile(r"\b(?:my|our|his|her|the)\s+(?:\w+\s+)?(?P<kind>" + _RELATIONS + r"|cat|dog|" + _PET_WORDS + r"|"
                     + _THING_WORDS + r")(?:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+goes\s+by)\s+"
                     r"(?P<name>(?-i:[A-Z][\w'-]+))", re.I)
_THING = re.compile(_THING_WORDS, re.I)  # a thing has a name, and no home, work or pastime of its own
# Capitalised words opening a clause that name no one.
_NOT_OPENERS = frozenset("The Our My Your This That These Those It Its Their His Her We They You Then And But So Now "
                         "Just Also Please Got Everyone People Friends Honestly Well Still Since Today Yesterday Last "
                         "Next Every Some Any One Big Small Quick Long What When Where Why How Who Hello Hi Hey Ok "
                         "Okay Yes Yeah Sorry Oops Wow Lol Haha Thanks Anyway Fun Update News Good Great "
                         "Rebrand".split())


def _mentions(clause: str, openers: bool = True) -> list[tuple[int, str]]:
    """Where a clause names someone: relations ("my brother", "Mom"), a name opening it ("Paulo's in
    Porto") with ``openers``, each with its place; a pronoun ("he", "she") as the empty name, the speaker
    as ``SPEAKER``."""
    found = [(m.start("who"), _ALIASES.get(m.group("who").lower(), m.group("who").lower()))
             for p in (_PEOPLE, _BARE_RELATION) for m in p.finditer(clause)
             if not _OF_SOMEONE.match(clause, m.end("who"))]
    found += [(m.start("who"), m.group("who").lower()) for m in _PETS.finditer(clause)]
    opening = _OPENING_NAME.match(clause) if openers else None
    if opening and not _RELATION_WORDS.match(opening.group("name")) and opening.group("name") not in _NOT_OPENERS:
        found.append((opening.start("name"), opening.group("name").lower()))
    found += [(m.start(), "") for m in _PRONOUN.finditer(clause)]
    return sorted([*found, *((m.start(), SPEAKER) for m in _SELF.finditer(clause))])


def _who(sentence: str) -> frozenset[str]:
    """The people a sentence names (not by a name opening it: "Losing my job ...")."""
    return frozenset(who for _, who in _mentions(sentence, openers=False) if who and who != SPEAKER)


def _slots(sentence: str) -> frozenset[str]:
    return frozenset(slot for slot, words in KIN_SLOTS.items() if words.search(sentence))


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCES.split(normalise_chat(_said(text))) if s.strip()]


def kin_changed(text: str) -> frozenset[tuple[str, str]]:
    """(person, slot) pairs a text says changed for someone else: a clause whose subject is that person
    (named, or "he"/"she" after the person was named) speaks of the slot, in a sentence with a change cue
    that is no question and no mere thought, the clause adding nothing beside the old ("also")."""
    found: set[tuple[str, str]] = set()
    current = ""
    for sentence in _sentences(text):
        changing = KIN_CHANGE.search(sentence) is not None and not sentence.rstrip().endswith("?") \
            and _LIFE_STORY.search(sentence) is None and _IN_JEST.search(sentence) is None
        stay = _STAY.search(sentence) is not None  # "staying with us for three weeks": no new home or job
        for clause in _CLAUSES.split(sentence):
            mentions = _mentions(clause)
            subject = (mentions[0][1] or current) if mentions else (current if _GOES_ON.match(clause) else "")
            if mentions:
                current = current if subject == SPEAKER else subject
            if changing and subject and subject != SPEAKER and ADDITIVE_CUE.search(clause) is None \
                    and _NOT_YET.search(clause) is None:
                found |= {(subject, slot) for slot in _slots(clause)
                          if (slot == "name" or not _THING.fullmatch(subject))
                          and not (stay and slot in ("home", "work"))}
    return frozenset(found)


# Someone else's new home or workplace taken for granted, a name after it: "Tomasz's flat in Dublin is tiny",
# "she can see the sea from her balcony in Trieste", "his students at Halden Conservatory".
KIN_PRESUMED: dict[str, re.Pattern[str]] = {
    "home": re.compile(r"(?:'s|\bhis|\bher|\btheir)\s+(?:new\s+)?(?:flat|apartment|place|house|balcony|room|garden|"
                       r"condo)\s+(?:\w+\s+)?in\s+(?-i:[A-Z])", re.I),
    "work": re.compile(r"(?:'s|\bhis|\bher|\btheir)\s+(?:new\s+)?(?:boss|office|students|colleagues|job|shop|"
                       r"restaurant)\s+(?:at|in)\s+(?-i:[A-Z])", re.I),
}


def kin_presumed(text: str) -> dict[tuple[str, str], frozenset[str]]:
    """(person, slot) pairs whose new value a text takes for granted, each with the names said in that clause
    (not the person's own): the older text must name the slot with another name."""
    found: dict[tuple[str, str], set[str]] = {}
    current = ""
    for sentence in _sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        for clause in _CLAUSES.split(sentence):
            mentions = _mentions(clause)
            subject = (mentions[0][1] or current) if mentions else (current if _GOES_ON.match(clause) else "")
            if mentions:
                current = current if subject == SPEAKER else subject
            if not subject or subject == SPEAKER or _NOT_YET.search(clause) or _BEFORE.search(clause):
                continue
            for slot, words in KIN_PRESUMED.items():
                if words.search(clause) and (named := names_in(clause) - {subject}):
                    found.setdefault((subject, slot), set()).update(named)
    return {pair: frozenset(names) for pair, names in found.items()}


def kin_named(text: str) -> frozenset[tuple[str, str]]:
    """(person, slot) pairs a short text speaks of, a person also by the name it gives them ("my cousin
    Paulo": cousin and paulo); empty for a long text, which speaks of too much to be one slot's words."""
    said = normalise_chat(_said(text))
    if len(said.split()) > SHORT_WORDS:
        return frozenset()
    found: set[tuple[str, str]] = set()
    for sentence in _sentences(text):
        who = set(_who(sentence)) | {m.group("name").lower() for p in (_NAMED, _CALLED) for m in p.finditer(sentence)}
        things = {m.group("name").lower() for m in _CALLED.finditer(sentence) if _THING.fullmatch(m.group("kind"))}
        found |= {(person, slot) for person in who for slot in _slots(sentence)
                  if slot == "name" or not (person in things or _THING.fullmatch(person))}
    return frozenset(found)


# The speaker's own home and work, said in other words than the bookkeeper reads ("Ended up buying a house in
# Ghent.", "I'm with Honda as of Monday."): a clause of the speaker's with a change cue, a slot word and a new
# name; an older short message of the speaker's that names the slot with another name is outdated.
OWN_SLOTS: dict[str, re.Pattern[str]] = {
    "home": re.compile(
        r"\b(?:liv(?:e|es|ed|ing)|" + _MOVED + r"|relocat\w*|settled|house|flat|apartment|condo|place|lease|"
        r"rent(?:ed|ing)?|postcode|address|neighbou?rhood|residents?|unpack\w*|boxes|based|home|got\s+here)\b", re.I),
    "work": re.compile(
        r"\b(?:(?<!after\s)(?<!before\s)(?<!from\s)(?<!off\s)work(?:s|ed|ing)?|job|gig|contract|hired|employ\w*|company|firm|office|role|position|offer|shifts?|signed\s+with|"
        r"(?:I'?m|I\s+am|we're)\s+(?:now\s+)?with(?=\s+(?-i:[A-Z]))|new\s+colleagues|colleagues(?=\s+(?:at|from)\b)|"
        r"clinic|teaching)\b", re.I),
    "diet": re.compile(
        r"\b(?:vegan|vegetarian|veggie|pescatarian|pescetarian|keto|paleo|carnivore|raw|flexitarian|mediterranean|"
        r"dash|zone|atkins|whole30|jain|halal|kosher|low[\s-](?:fodmap|carb|fat|sodium|salt)|gluten[\s-]free|"
        r"dairy[\s-]free|plant[\s-]based|fasting|16:8|macros|omnivore)\b", re.I),
    # The speaker's own name, not a thing's ("My podcast is called ...", "My shop name is ...").
    "name": re.compile(
        r"\b(?:my\s+(?:(?:first|last|middle|full|real|legal|maiden|sur|nick)\s*)?name|(?:sur|nick|maiden)name|"
        r"call(?:s|ing)?\s+me|go(?:ing)?\s+by|I'?m\s+called|rather\s+be\s+called)\b|prefer\s+(?=(?-i:[A-Z]))", re.I),
}
OWN_CHANGE = re.compile(
    KIN_CHANGE.pattern + r"|\b(?:as\s+of|from\s+today|starting|ended\s+up|signed|unpacked|first\s+(?:day|week|shift|"
    r"month)|since\s+last|new(?!\s+(?-i:[A-Z]))|got\s+here|heading\s+over|just|rather|prefer|took|married|legally|from\s+here\s+on|"
    r"going\s+forward|please|use\s+that|went|gone|going|caved|again|no\s+more|back\s+(?:to|in)|put\s+me\s+on|"
    r"has\s+me|set\s+me\s+up|sticking|following|trying|doing)\b", re.I)
# A stay, not a home or an employer: "this week im at the Hitachi office in Osaka for a joint training".
_STAY = re.compile(r"\b(?:for\s+(?:a|the|an)\s+(?:\w+\s+)?(?:training|conference|trip|visit|meeting|workshop|holiday|"
                   r"vacation|week|weekend|few\s+days|course)|this\s+week|visit(?:ing|ed|s)?|business\s+trip|"
                   r"for\s+(?:two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of|a\s+few|\d+)\s+(?:days|nights|weeks|"
                   r"months)|"
                   r"staying\s+with)\b", re.I)
# Said not in earnest: "mom joked she's quitting to open a flower shop".
_IN_JEST = re.compile(r"\b(?:jok(?:e|es|ed|ing)|kidding|sarcastic\w*)\b", re.I)
# A name someone gets wrong: "my new manager keeps calling me Shaun, I've given up correcting him".
_MISNAMED = re.compile(r"\b(?:keeps?\s+calling\s+me|correcting|by\s+mistake|wrongly)\b", re.I)
# A home or a workplace taken for granted, a name after it: "the neighbours here in Halifax", "first month in
# Tromso", "the commute from Geelong", "my boss at Zelena Energija", "my first day in Nusa Catering".
PRESUMED: dict[str, re.Pattern[str]] = {
    "home": re.compile(
        r"\b(?:here\s+in|first\s+(?:day|night|week|month|winter|summer)\s+(?:\w+\s+){0,3}in|since\s+(?:we|I)\s+"
        r"(?:arrived?|got\s+here|moved)\s+(?:in|to)|commute\s+from|(?:my|our)\s+(?:new\s+)?(?:place|flat|apartment|"
        r"room|studio|house|balcony|backyard|neighbou?rs)\s+(?:\w+\s+)?in|(?:the|my|our)\s+(?:big\s+)?move\s+"
        r"(?:over\s+)?to|since\s+moving\s+to)\s+(?-i:[A-Z])"
        # "our Brooklyn apartment", "I'm a Melbourne local now": the place named before what it is
        r"|\b(?:(?:my|our)\s+(?:new\s+)?|(?:I'?m|I\s+am)\s+(?:now\s+)?an?\s+)(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])"
        r"[\w'-]+)?\s+(?:place|flat|apartment|house|home|local|resident)\b", re.I),
    "work": re.compile(
        r"\b(?:(?:my|our)\s+(?:new\s+)?(?:boss|manager|team\s+lead|supervisor|colleagues|co-?workers|students|"
        r"head\s+chef)\s+(?:at|in|from)|first\s+(?:day|week|month|shift|paycheck|roster)\s+(?:at|in|from|with))\s+"
        r"(?:the\s+)?(?-i:[A-Z])", re.I),
}
# A diet named as a thing to cook or order, not one kept: "a vegan recipe", "the keto menu".
_DISH = re.compile(r"\b(?:recipes?|restaurants?|place|options?|dish(?:es)?|menus?|cafe|café|cookbooks?|versions?|"
                   r"friends?|guests?|snacks?|section|aisle)\b", re.I)
_DIET_ALIASES = {"veggie": "vegetarian", "pescetarian": "pescatarian", "16:8": "fasting"}
# Someone else's words: "My colleague Pieter said, 'I live in Bruges now'" is no move of the speaker's.
_REPORTED = re.compile(r"\b(?:said|says|say|told|tells|tell|mentioned|announced|texted|wrote|writes|reckons|claims?|"
                       r"claimed)\b|[\"“‘']\s*I\b", re.I)
# A clause about what was: "my maiden name was Bianchi", "my old flat in Leeds", "back when I lived in Lyon".
_BEFORE = re.compile(r"\b(?:was|were|used\s+to|ago|back\s+(?:then|when|in)|previous(?:ly)?|former(?:ly)?|old|maiden|"
                     r"last\s+(?:year|summer|winter|spring|autumn|fall|time)|in\s+(?:19|20)\d\d|"
                     r"(?<!'ve\s)(?<!have\s)(?<!has\s)(?<!'s\s)lived)\b", re.I)
_NEW_NAME = re.compile(r"(?<![.!?]\s)(?<!^)(?<![.!?])\b(?-i:[A-Z][\w'&-]+)")
_NOT_VALUES = frozenset("I I'm I've I'd Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February "
                        "March April May June July August September October November December".split())


def names_in(text: str) -> frozenset[str]:
    """The capitalised words of a text that do not open a sentence: the names it says ("Ghent", "Honda")."""
    return frozenset(w.lower() for w in _NEW_NAME.findall(normalise_chat(_said(text))) if w not in _NOT_VALUES)


def _values(slot: str, text: str) -> frozenset[str]:
    """What a text says fills a slot of the speaker's: the diets it names, or the names it says."""
    return diets_in(text) if slot == "diet" else names_in(text)


def diets_in(text: str) -> frozenset[str]:
    """The diets a text names ("vegan", "keto"), none when it speaks of a dish ("a vegan recipe")."""
    if _DISH.search(text):
        return frozenset()
    found = (re.sub(r"[\s-]+", "-", m.group(0).lower()) for m in OWN_SLOTS["diet"].finditer(text))
    return frozenset(_DIET_ALIASES.get(d, d) for d in found)


def own_changed(text: str) -> dict[str, frozenset[str]]:
    """The speaker's own slots a text says changed, each with the names said in its clauses: a clause of the
    speaker's (or of no one's: "Just signed with Deloitte."), in a sentence with a change cue, a slot word and
    a name in it; or a clause that takes a new home or workplace for granted ("the landlord here in
    Stornoway", "my boss at Zelena Energija"). Never in a question, a mere thought, someone else's words, a
    stay, a clause about what was, or one that adds beside the old."""
    found: dict[str, set[str]] = {}
    for sentence in _sentences(text):
        if sentence.rstrip().endswith("?") or _REPORTED.search(sentence) or _STAY.search(sentence) \
                or _IN_JEST.search(sentence) or _MISNAMED.search(sentence):
            continue
        changing = OWN_CHANGE.search(sentence) is not None
        if _SIDE.search(sentence):
            continue
        for clause in _CLAUSES.split(sentence):
            if ADDITIVE_CUE.search(clause) or _BEFORE.search(clause) or _NOT_YET.search(clause) or clause_stops(clause):
                continue  # a clause that ends a value ("Keto is over") names no new one
            mentions = _mentions(clause, openers=False)
            own = changing and not (mentions and mentions[0][1] != SPEAKER)
            for slot, words in OWN_SLOTS.items():
                said = (own and words.search(clause)) or (slot in PRESUMED and PRESUMED[slot].search(clause))
                if said and (named := _values(slot, clause)):
                    found.setdefault(slot, set()).update(named)
    return {slot: frozenset(names) for slot, names in found.items()}


def own_named(text: str) -> dict[str, frozenset[str]]:
    """The speaker's own slots a short text of the speaker's names, each with the names said there; empty for a
    long text, or one about someone else."""
    said = normalise_chat(_said(text))
    if len(said.split()) > SHORT_WORDS or _who(said):
        return {}
    return {slot: names for slot, words in OWN_SLOTS.items() if words.search(said) and (names := _values(slot, said))}
