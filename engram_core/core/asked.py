"""The newest word on what a question asks: for a question about one of the asker's own single-valued
slots now ("Where do I live?", "What's my sister's school?"), an older memory of that slot stays out of
the block once a newer memory of the same teller says the slot's value (pure).

The slot veto (``slots.slot_restated``) needs the newer memory to say that the slot changed, a change
cue beside the slot word; ordinary talk often says only the new value ("ok so we officially live in
auckland", "sam is what i go by"). A question that asks for the value now says which slot matters, so
here the newest memory that states that slot is taken as the word on it, whatever cue it carries. Only
first-person questions of the asker (or "the user") count: a question about a named third person
("Where does Caroline live?") asks about someone whose history the chat tells, and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence

import numpy as np

from engram_core.core.chattext import normalise_chat
from engram_core.core.model import Belief, Memory, MemoryKind
from engram_core.core.restatements import _RELATIONS, ADDITIVE_CUE
from engram_core.core.broad_slots import _NAMED_BROADLY, _favourite_slot, named_broadly_in
from engram_core.core.slots import _NOT_YET, _REPORTED, _SENTENCES, DIET_VALUE, OTHER_PEOPLE, THING_SUBJECTS, _owner, \
    _name_slot, _readable, _relation, _slot, _teller, _thing, asks_about_the_past

_A_NAME = re.compile(r"(?-i:[A-Z])[\w'-]+(?:\s(?-i:[A-Z])[\w'-]+)?")  # "Arjun", "Mary Jo": a name, not "a teacher"
# "my sister Inês", "Ravi, my husband": a relative and their name, capitalised.
_NAMED_RELATIVE = re.compile(r"\bmy\s+(?P<who>" + _RELATIONS + r"|partner)\s+(?P<name>(?-i:[A-Z])[\w'-]+)|"
                             r"\b(?P<name2>(?-i:[A-Z])[\w'-]+),\s+my\s+(?P<who2>" + _RELATIONS + r"|partner)\b", re.I)
_NAME_OF = re.compile(r"\s+of\s+((?:the|my|our|his|her|their)\s+[\w\s'-]+)", re.I)  # "the name of my shop"
# "what's my band called": a thing of the asker's, not the asker's own name ("my maiden name", "my nickname").
_MY_THING = re.compile(r"\b(?:my|our)\s+(?!(?:maiden|nick|real|first|last|full|middle|given|stage|pen|user|birth|"
                       r"legal|family|christian|new|old)\b)([a-z]+)(?:'s)?\s+$", re.I)
_ME = re.compile(r"\s+me\b", re.I)
BARE_SIMILARITY = 0.35  # "it's my favourite now" and "My favourite show is Succession" are 0.43; pad thai's, 0.24
# The words of a question that ask for each slot; "job" asks for both the employer and the trade.
_ASKED: dict[str, re.Pattern[str]] = {
    "home": re.compile(r"\b(?:live[sd]?|living|based|home|reside[sd]?|residing|city|town|country)\b", re.I),
    "employer": re.compile(r"\b(?:work(?:s|ing)?(?!\s+(?:as|out|on|shifts?|hours|nights|days|weekends|lates|from)\b)|"
                           r"employer|company|firm|job|hospital|hotel|bank|restaurant|shop|store)\b", re.I),
    "occupation": re.compile(r"\b(?:job|title|role|position|level|rank|occupation|profession|work(?:s|ing)?\s+as|"
                             r"do\s+for\s+(?:a\s+)?(?:living|work)|what\s+(?:do|does)\s+(?:I|my\s+\w+)\s+do)\b", re.I),
    "name": re.compile(r"\b(?:name|surname|nickname|call|called|go\s+by|address)\b", re.I),
    "diet": re.compile(r"\b(?:diet|dietary|eat|eats|eating|vegan|vegetarian|meat|restrictions?)\b", re.I),
    "school": re.compile(r"\b(?:school|study|studies|studying|college|academy|kindergarten|nursery)\b", re.I),
    "team": re.compile(r"\b(?:team|support|supports|root\s+for|cheer\s+for)\b", re.I),
    "car": re.compile(r"\b(?:car|drive|drives|vehicle|motorbike|motorcycle|scooter)\b", re.I),
    "sport": re.compile(r"\b(?:sports?|exercise|work\s+out|works\s+out|training|trains)\b", re.I),
    "instrument": re.compile(r"\binstruments?\b", re.I),
}
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|me|my|mine|the\s+user(?:'s)?)\b", re.I)
_OURS = re.compile(r"\bour\b", re.I)  # "what's our wifi called?": a name of the asker's household
_I = re.compile(r"\b(?:I|I'm|me|mine)\b", re.I)
_USER = re.compile(r"\bthe\s+user(?:'s)?\b", re.I)
# Words that put a sentence in the past: what was so, not the word on what is.
_PAST = re.compile(r"\b(?:used\s+to|back\s+(?:when|then|in)|ago|previous(?:ly)?|former(?:ly)?|old\s+(?:job|flat|"
                   r"place|house|apartment|school|name)|(?:in|since)\s+(?:19|20)\d\d|when\s+I\s+was|as\s+a\s+(?:kid|child|"
                   r"teen\w*|student)|growing\s+up|in\s+my\s+(?:teens|twenties|thirties|youth)|"
                   r"(?:lived|worked|studied)\b(?![\w\s']{0,40}\b(?:for|since)\b)|all\s+through\s+(?:uni|college|school)|"
                   r"\b(?:I|we)\s+(?:was|were)\b(?!\s+(?:just\s+)?(?:promoted|hired|made|named|transferred|moved|offered)))",
                   re.I)


# A clause of its own: "this might sound dramatic, but ... I have a new favourite food: pad thai".
_CLAUSES = re.compile(r",\s*(?:but|and)\b|\s+(?:and|but)\s+(?=(?:the|my|his|her|their|we|I|he|she|they|it|now)\s)|"
                      r",\s*(?=(?:could|can|would|will)\s+you\b)|\s[-–—]\s")
# Offered or interviewed for, not taken: "a startup ended up offering me a role, but I turned it down".
_OFFERED = re.compile(r"\b(?:offer(?:ed|ing|s)?|interview\w*)\b", re.I)
# A polite request is no mere thought: "I would appreciate if you use it".
_POLITE = re.compile(r"\b(?:I|I'd|I\s+would)\s+(?:really\s+)?(?:appreciate|like\s+you\s+to|love\s+it\s+if)\b", re.I)
# A clause whose subject is a thing may still say the speaker's slot: "the new café I work at, Ritual Coffee".
_I_DO = re.compile(r"\b(?:I|we|I'm|we're)\s+(?:now\s+|just\s+)?(?:work|live|moved|study|go|eat)\b", re.I)
# A sentence whose subject is someone else, or a thing ("The company moved to Leeds"); "It's my favourite" is not.
_OTHER = re.compile(r"^\W*(?:" + OTHER_PEOPLE + "|" + THING_SUBJECTS + ")", re.I)
# Of someone's slot ("home:sister"), a clause whose subject is "she" or "they" speaks of them; "you" does not.
_PRONOUN_FIRST = re.compile(r"^\W*(?:he|she|they|his|her|their)\b", re.I)
_NOT_THEIRS = re.compile(r"^\W*(?:you|your|" + THING_SUBJECTS + ")", re.I)
# A clause about a thing ("The meat substitute burger was great now that I think of it"), or about someone
# else ("a heroine who works at the New York Public Library", "he finally moved to Leeds"): not the speaker's slot.
_NOT_MINE = re.compile(r"^\W*(?:the|a|an|this|that|these|those|there|its?)\b", re.I)
_SOMEONE = re.compile(r"\b(?:who|whose)\s+(?:works|lives|goes|studies|is|was|has)\b|\b(?:he|she|he's|she's)\b", re.I)
# A slot the speaker is given by someone: "they made me store manager", "everyone calls me Tony".
_DONE_TO_ME = re.compile(r"\b(?:made|makes?|promoted|named|calls?|called|address)\s+me\b", re.I)
# A stay, not a home: "i'm in Rotterdam for two weeks", "in Da Nang for holiday, I will go back next week".
_STAY = re.compile(r"\b(?:for\s+(?:a\s+|the\s+)?(?:few\s+|couple\s+(?:of\s+)?)?(?:\w+\s+)?"
                   r"(?:days?|nights?|weeks?|weekend|months?)|holidays?|vacation|trip|visit\w*|conference|go(?:ing)?\s+back|until|till|"
                   r"this\s+week(?:end)?|wedding|funeral|graduation)\b", re.I)
# A story's people, not the speaker's: "In the movie we watched, the husband was called Vikram", "my character".
_FICTION = re.compile(r"\b(?:in|on)\s+(?:the|a|this|that|my)\s+(?:movie|film|show|series|game|book|novel|story|play|"
                      r"episode|cartoon|anime|dream)\b|\bmy\s+character\b", re.I)
# A name others call one by, told with no request: "my aunties still call me Rafinha, only family use it".
_CALLED_BY_OTHERS = re.compile(r"\b(?:my\s+\w+|friends|family|everyone|everybody|people|they|aunt\w*|colleagues|"
                               r"co-?workers|kids)\s+(?:still\s+|all\s+|usually\s+|sometimes\s+|always\s+|often\s+)?"
                               r"call(?:s)?\s+me\b", re.I)
_REQUEST = re.compile(r"\b(?:you|please|pls|plz)\b", re.I)
# Not said in earnest ("my friends call me Professor as a joke"), or said not to hold ("they offered me the
# Mediterranean menu, but I don't take it"; a "no longer", "anymore" or "now" beside it is a change, not that).
# A start some weeks ago is now: "I have signed a contract with Safran, I start already two weeks ago".
_RECENT_START = re.compile(r"\b(?:start\w*|began|begun|joined|moved|signed)\b[^.!?]*\b(?:(?:\w+\s+)?(?:days?|weeks?|"
                           r"months?)|a\s+(?:week|month))\s+ago\b", re.I)
_JEST = re.compile(r"\b(?:jok\w*|teas\w*|kidding|jk|j/k|sarcastic\w*|ironic\w*)\b", re.I)
# A trade said in a figure of speech or for a day: "I'm such a chef tonight", "basically a referee at this point".
_FIGURATIVE = re.compile(r"\b(?:basically|practically|literally|such\s+an?|like\s+an?|kind\s+of|kinda|sort\s+of|"
                         r"at\s+this\s+point|tonight|for\s+the\s+(?:day|night|weekend|wedding|party))\b", re.I)
# A post held for a while: "asked to cover as acting site manager for two weeks".
_TEMPORARY = re.compile(r"\b(?:for\s+(?:a\s+|the\s+)?(?:few\s+|couple\s+(?:of\s+)?)?(?:\w+\s+)?(?:days?|weeks?|"
                        r"months?)|temporar\w*|acting|interim|cover(?:ing)?\s+(?:as|for)|fill(?:ing)?\s+in|"
                        r"stand(?:ing)?\s+in)\b", re.I)
# "I've been at Brightpath for three weeks now": how long so far, not a post held for a while
_SO_FAR = re.compile(r"\b(?:I've|I\s+have|we've)\s+been\s+(?:at|with|working|in|here)\b", re.I)
_DENIED = re.compile(r"\b(?:not|don't|dont|do\s+not|didn't|didnt|never|won't|wouldn't|can't|cannot)\b", re.I)
_CHANGED = re.compile(r"\b(?:anymore|any\s+more|no\s+longer|now|instead|switched|these\s+days|from\s+now\s+on)\b", re.I)
# A diet word that names a thing, not how one eats: "a paleo cookbook", "the vegan menu".
_DIET_THING = re.compile(r"\b(?:vegetarian|veggie|vegan|pescatarian|keto|paleo|plant[\s-]based|gluten[\s-]free|"
                         r"dairy[\s-]free|halal|kosher|diet|low[\s-]carb)\s+(?:cookbook|book|recipes?|menu|options?|"
                         r"restaurant|place|cafe|café|food|snacks?|meals?|cheese|burgers?|version|blog|channel|friends?|"
                         r"section|dish|dishes)\b", re.I)
# A value said: a capitalised word past the sentence's first ("moved to Porto", not "Honestly, I love my home"),
# a diet, or in chat written all in lower case, which capitalises nothing, a place after a preposition ("moved
# to bristol lol", not "ugh my landlord is the worst").
_CAPITAL = re.compile(r"(?<=\s)(?!(?:I|I'm|I've|I'd|I'll)\b)(?-i:[A-Z])[\w'&.-]*")
_HOME_VALUE = re.compile(r"\b(?:in|to|into|outside|near|around)\s+(?:the\s+)?(?-i:[A-Z])|"
                         r"(?-i:[A-Z])[\w'-]*(?:-based|\s+is\s+(?:now\s+)?home)\b|\b(?:we're|I'm|im)\s+(?:now\s+)?(?-i:[A-Z])",
                         re.I)
_PLACED = re.compile(r"\b(?:in|to|at|for|with|from|into)\s+(?:the\s+)?[a-z]{3,}", re.I)  # "moved to bristol"
# "now I eat only halal food": a diet, not a dish
_EATS_IT = re.compile(r"\beat(?:s|ing)?\s+(?:only\s+|mostly\s+|just\s+)?(?:halal|kosher|vegan|vegetarian|"
                      r"plant[\s-]based|gluten[\s-]free)\s+food\b", re.I)
_DIET_VALUE = re.compile(r"\b(?:" + DIET_VALUE + r"|omnivore|halal|kosher|gluten[\s-]free|dairy[\s-]free|meat|fish|"
                         r"whole30|fodmap|low[\s-]carb|mediterranean|atkins|intermittent\s+fasting)\b", re.I)
_VALUED_BY_WORD = ("occupation", "favourite", "name")  # their slot words come with the value: "made me", "call me"
# "a tiny agency called pixelfox", "freelancing now": an employer said in other words
_CALLED = re.compile(r"\b(?:called|named)\s+\w|\b(?:freelanc\w*|self-employed|my\s+own\s+boss)\b", re.I)
_RETIRED = re.compile(r"\bretire[ds]?\b", re.I)  # no employer is a value too: "Dad finally retired"
_NAMED_BY_VALUE = ("sport", "instrument")  # read from the value itself ("she plays the cello"), an "also" kept apart
# A car said by its make or model, in chat that capitalises nothing too: "he drives a tesla now".
_CAR_VALUE = re.compile(r"\b(?:driv\w*|bought|got|leas\w*|picked\s+up)\s+(?:an?|the|my|his|her|their|our)\s+"
                        r"(?:new\s+|used\s+|second-hand\s+|electric\s+)?(?!car\b|one\b)[a-z]+", re.I)


def asked_slots(query: str) -> frozenset[str]:
    """The asker's single-valued slots a question asks the value of now, each with whose it is ("home",
    "school:daughter"); none for a question about the past or about a third person named in it."""
    said = normalise_chat(query)
    if asks_about_the_past(said):
        return frozenset()
    if _FIRST_PERSON.search(said) is None:
        return frozenset(slot for m in _ASKED["name"].finditer(said) if _OURS.search(said)
                         and (slot := _asked_name(said, m)) is not None and slot != "name")
    said = _USER.sub("my", said)
    favourites = (_favourite_slot(said, m) for m in _NAMED_BROADLY["favourite"].finditer(said))
    # "What car does my husband drive?": the slot word comes before its owner; a question that names one
    # person and no "I" asks about that person throughout.
    whose = _owner(said, len(said)) if _I.search(said) is None else ""
    asked = (_asked_name(said, m) if slot == "name" else _slot(slot, _owner(said, m.start()) or whose)
             for slot, words in _ASKED.items() for m in words.finditer(said))
    return frozenset(slot for slot in (*asked, *favourites) if slot is not None)


def _asked_name(said: str, word: re.Match[str]) -> str | None:
    """Whose or what name a question asks: "name:band" for "what's my band called?" and "what's the name of my
    shop?", as a memory's name words are read (``slots._name_slot``)."""
    of, mine = _NAME_OF.match(said, word.end()), _MY_THING.search(said, 0, word.start())
    if _ME.match(said, word.end()):  # "what do my friends call me?": the asker's own
        return "name"
    if of and (thing := _thing(of.group(1))):
        return _slot("name", thing)
    return _slot("name", mine.group(1).lower()) if mine else _name_slot(said, word)


def named_people(beliefs: Iterable[Belief], texts: Iterable[str], asked: Collection[str]) -> dict[str, str]:
    """The names known for the people whose slots a question asks: from the ledger ("Arjun" for
    "diet:boyfriend", from the belief ``user family_boyfriend Arjun``) and from the texts ("my sister Inês",
    "Ravi, my husband")."""
    owners = {slot.split(":", 1)[1] for slot in asked if ":" in slot}
    known = {b.object: _relation(b.predicate.removeprefix("family_")) for b in beliefs
             if b.subject == "user" and b.predicate.startswith("family_") and _A_NAME.fullmatch(b.object)}
    known |= {m.group("name") or m.group("name2"): _relation((m.group("who") or m.group("who2")).lower())
              for text in texts for m in _NAMED_RELATIVE.finditer(text)}
    return {name: who for name, who in known.items() if who in owners}


def told_of(text: str, people: dict[str, str]) -> str:
    """The text with each known person's name said as whose they are: "Arjun has gone vegetarian" reads as
    "my boyfriend has gone vegetarian"; "my boyfriend Arjun" stays as it is."""
    for name, who in people.items():
        text = re.sub(rf"(?<!{re.escape(who)} )\b{re.escape(name)}\b", f"my {who}", text)
    return text


def _speaks_of(asked: str, slots: Collection[str]) -> bool:
    """Whether a memory's slots include the asked one, or its bare kind (``_bare``)."""
    return asked in slots or _bare(asked, slots)


def _bare(asked: str, slots: Collection[str]) -> bool:
    """Whether a memory names the asked slot only barely: a school with no owner ("Leo transferred to Summit",
    a child by name) for a child's school, a favourite of no kind ("it's my favourite now") for one of a kind."""
    base = asked.split(":")[0]
    return asked not in slots and asked != base and base in slots and base in ("school", "favourite")


def states(text: str, slot: str) -> bool:
    """Whether a text says the slot's value as so now: a clause that names the slot and a value, and is no
    question, no mere thought, no one else's words, not the past, not in jest and not denied."""
    if slot == "name" and _CALLED_BY_OTHERS.search(text) and not _REQUEST.search(text) \
            and not re.search(r"\bnow\b", text, re.I):  # "Now everyone call me Wei": the name one took
        return False
    return any(_of_the_slot(slot, named_broadly_in(clause), clause) and _says_a_value(clause, slot, text)
               for clause in _clauses(text) if _earnest(clause, slot) and not (slot == "home" and _STAY.search(clause)))


def _of_the_slot(slot: str, named: Collection[str], clause: str) -> bool:
    """Whether a clause speaks of the slot: by its words, or, for someone's slot, by "she" or "he" standing for
    the person the text named before ("My sister Ana visited. She lives in Lisbon now")."""
    return _speaks_of(slot, named) or (":" in slot and _PRONOUN_FIRST.search(clause) is not None
                                       and slot.split(":")[0] in named)


def _clauses(text: str) -> list[str]:
    return [clause for sentence in _SENTENCES.split(_readable(text)) for clause in _CLAUSES.split(sentence)]


def _earnest(clause: str, slot: str) -> bool:
    """Whether a clause says what holds now, of the speaker (or of whom the slot names)."""
    if clause.rstrip().endswith("?") or _NOT_YET.search(_POLITE.sub(" ", clause)) or _FICTION.search(clause) \
            or _OFFERED.search(clause) \
            or _REPORTED.search(clause) \
            or (_PAST.search(clause) and not _RECENT_START.search(clause)) or _JEST.search(clause) \
            or (_DIET_THING.search(clause) and not _EATS_IT.search(clause)) \
            or (ADDITIVE_CUE.search(clause) and not slot.startswith(_VALUED_BY_WORD + ("diet",))) \
            or (_DENIED.search(clause) and not _CHANGED.search(clause)) \
            or (slot.startswith("occupation") and _FIGURATIVE.search(clause)) \
            or (slot.startswith(("occupation", "employer")) and _TEMPORARY.search(clause)
                and not _SO_FAR.search(clause)):
        return False
    if _DONE_TO_ME.search(clause):  # "my boss left and they've made me manager": the speaker's, whoever did it
        return True
    if ":" in slot:
        return _NOT_THEIRS.search(clause) is None
    if _OTHER.search(clause) is not None:
        return False
    return (_SOMEONE.search(clause) is None
                           and (_NOT_MINE.search(clause) is None or _I_DO.search(clause) is not None))


def _says_a_value(clause: str, slot: str, text: str) -> bool:
    if slot.startswith("home") and text != text.lower():  # a place one lives in, not "the shop on Saint-Denis"
        return _HOME_VALUE.search(clause) is not None
    return slot.startswith(_VALUED_BY_WORD + _NAMED_BY_VALUE) or _CAPITAL.search(clause) is not None \
        or (slot.startswith("car") and _CAR_VALUE.search(clause) is not None) \
        or (slot.startswith(("employer", "occupation")) and _RETIRED.search(clause) is not None) \
        or (slot.startswith("employer") and _CALLED.search(clause) is not None) \
        or (text == text.lower() and _PLACED.search(clause) is not None) \
        or (slot.startswith("diet") and _DIET_VALUE.search(clause) is not None)


def _retirable(memory: Memory) -> bool:
    """Raw episodes, and facts or preferences the ledger may have missed (one that speaks of a single-valued
    slot is of it, whatever its predicate: "The user prefers to be called Dani."); never a critical one."""
    return not memory.critical and memory.kind in (MemoryKind.EPISODE, MemoryKind.FACT, MemoryKind.PREFERENCE)


# A memory that only hints at the asker's own slot, naming a value in passing: "coffee on the balcony here in
# Valencia", "another all-hands at Deloitte", "amazon warehouse shift was 10hrs". Such a memory may be the
# older word a newer statement leaves out; it never counts as a statement itself.
_HINTS: dict[str, re.Pattern[str]] = {
    "home": re.compile(r"\b(?:in|from|near|around|home\s+to)\s+(?-i:[A-Z])"),
    "employer": re.compile(r"\b(?:all-hands|stand-?ups?|shifts?|(?:my|our)\s+(?:boss|manager|team\s+lead)|warehouse|"
                           r"client\s+site|payroll|HR|works?\s+(?:\w+\s+){1,2}(?:at|for)|town\s+hall|offsite|"
                           r"(?:at|for)\s+(?:the\s+)?(?-i:[A-Z])[\w&'-]+)\b", re.I),
    "occupation": re.compile(r"\b(?:teaching|grading|(?:my|our)\s+(?:students|pupils|patients|clients)|shifts?|"
                             r"(?:being|still|(?:I've|I\s+have)\s+been|as)\s+an?\s+[\w-]+|intern(?:ship)?)\b", re.I),
    # "Made my usual bacon sandwich": what one ate, said in passing.
    "diet": re.compile(r"\b(?:bacon|steak|ribeye|burgers?|kebabs?|pork|sausages?|salami|chorizo|meatballs?|"
                       r"gluten[\s-]free|dairy[\s-]free)\b", re.I),
    # "hi its bobby again", "Hey, Dominic here.": a name said in greeting.
    "name": re.compile(r"\b(?:it's|its|this\s+is)\s+[\w'-]+\s+(?:again|here)\b|"
                       r"^\W*(?:(?:hi|hey|hello)\W+)?[\w'-]+\s+here\b|^\W*(?:hi+|hey+|hello)\W+(?:it's|its)\s+[\w'-]+",
                       re.I),
}


# In chat that capitalises nothing: "been in phoenix 4 yrs", "another sprint planning at shopify".
_LOWER_HINTS: dict[str, re.Pattern[str]] = {
    "home": re.compile(r"\b(?:in|from)\s+(?!(?:the|a|an|my|our|bed|town|work|class|school|here|there)\b)[a-z]{4,}"),
    "employer": re.compile(r"\bat\s+(?!(?:the|a|an|my|our|home|work|night|last|least|all|once|first)\b)[a-z]{3,}"),
}


_AVOIDED = re.compile(r"\b(?:avoid\w*|allerg\w*|intoleran\w*|no|dont|doesn'?t|does\s+not|never|without)\b", re.I)
_HINTED_KINDS = (MemoryKind.EPISODE, MemoryKind.PREFERENCE)  # a fact read from words says its slot outright


def _hinted(slot: str, text: str, named: Collection[str], newer: str) -> bool:
    """Whether an older text hints at the slot, of whom it names ("my mom works nights at the walmart" for
    "employer:mum"), and names none of the values the newer one says."""
    base, _, owner = slot.partition(":")
    if base == "diet" and (_DENIED.search(text) or _AVOIDED.search(text)):  # "i dont eat pork": no meal in passing
        return False
    hints = (_HINTS.get(base), _LOWER_HINTS.get(base) if text == text.lower() else None)
    return any(h is not None and h.search(text) for h in hints) and not _value_words(newer) & _value_words(text) \
        and (any(other.endswith(":" + owner) for other in named) if owner else not any(":" in o for o in named))


def _value_words(text: str) -> frozenset[str]:
    """The words that may be a value: capitalised past a sentence's first word; in all-lower-case chat, the word
    after a preposition."""
    said = [m.group(0) for m in _CAPITAL.finditer(text)] if text != text.lower() \
        else [m.group(0).split()[-1] for m in _PLACED.finditer(text)]
    return frozenset(word.lower().strip(".,'") for word in said)


def outdated(memories: Sequence[tuple[Memory, Belief | None]], named: Sequence[Collection[str]],
             asked: Collection[str], vectors: np.ndarray, stated: Callable[[int, str], bool] | None = None) -> set[str]:
    """Ids of memories of an asked slot that a newer memory of the same teller states anew (pure).

    ``named`` gives ``slots_named_broadly`` of each memory, as recall keeps it; ``vectors`` their embeddings: a pair
    one of which names the slot only barely must be at least ``BARE_SIMILARITY`` close; ``stated(i, slot)`` whether
    memory ``i`` states the slot (``states``, which recall keeps per memory)."""
    stated = stated or (lambda i, slot: states(memories[i][0].text, slot))
    drop: set[str] = set()
    for slot in asked:
        members = [i for i, slots in enumerate(named) if _speaks_of(slot, slots)]
        stating = [i for i in members if memories[i][0].kind is MemoryKind.EPISODE
                   and stated(i, slot)]
        for j in stating:
            new = memories[j][0]
            hinted = [i for i in range(len(memories)) if i not in members and memories[i][0].kind in _HINTED_KINDS
                      and _hinted(slot, memories[i][0].text, named[i], new.text)]
            for i in members + hinted:
                old = memories[i][0]
                if old.created_at < new.created_at and _retirable(old) \
                        and not set(old.provenance) & set(new.provenance) \
                        and _teller(old, (slot,)) == _teller(new, (slot,)) \
                        and (not (_bare(slot, named[i]) or _bare(slot, named[j]))
                             or float(vectors[i] @ vectors[j]) >= BARE_SIMILARITY):
                    drop.add(old.id)
    return drop
