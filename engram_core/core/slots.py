"""The slot veto at recall: a newer memory that says one of the speaker's single-valued slots changed
keeps an older memory of the same person about that slot out of the block (pure).

The bookkeeper retires an old value when it can read the change ("I moved to Porto"). When it cannot
("Porto's home these days, the old flat in Lisbon is let out"), both episodes stay and the old one keeps
surfacing as current. The restatement veto (``restatements.restated``) catches these by meaning alone,
and cost real conversations half their evidence, since long chats are full of "now" between turns close
in meaning. This veto is narrower: the newer memory must say, in one sentence, that a slot changed (a
slot word and a change cue together), the older one must speak of the same slot, both of the same
person, and the two must be close in meaning. The slots are the single-valued ones, where a new value
is the end of the old: where one lives, whom one works for, one's name, one's diet. Likes, pets and
languages are left alone: a new one sits beside the old.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

import numpy as np

from engram_core.core.chattext import normalise_chat
from engram_core.core.model import Belief, Memory, MemoryKind
from engram_core.core.restatements import _ALIASES, _BARE_RELATION, _PEOPLE, _RELATIONS, ADDITIVE_CUE, _retirable, \
    _said, _speaker

# A move of the speaker's own, not of something moved: "moved to Porto", "moving house", "just moved!"; not
# "we moved the team offsite to Porto" or "moved the party to Saturday".
_NO_OBJECT = (r"(?=\s*(?:$|[,.;:!?)]|(?:just|finally|recently|again|all|permanently|officially)\b|"
              r"(?:back|to|into|in|out|over|across|up|down|away|abroad|home|house|here|there|from|with|cities|"
              r"countries|flats?|apartments?|day)\b|(?-i:[A-Z])))")
# "a new job search", "the job offer": things about a job, not the job.
_JOB_THINGS = (r"(?:as|search|hunt|hunting|interview|interviews|application|applications|offer|offers|board|fair|title|"
               r"ad|ads|listing|description|centre|center)")
# "I'm at the airport", "I'm at home": where one is for an hour, not whom one works for ("I'm at Arup now").
_NOT_AT_WORK = (r"(?:the|a|an|my|home|work|school|uni|church|airport|station|gym|park|beach|pub|bar|mall|shops|"
                r"doctor's|dentist|dentist's|hospital|hotel|cinema|library)")
# The words that speak of each slot; plain vocabulary, not sentence shapes. Words that chat uses for much
# else ("team", "joined", "place", "career") are left out: on LoCoMo they retired turns nobody had changed.
SLOT_WORDS: dict[str, re.Pattern[str]] = {
    "home": re.compile(
        r"\b(?:live[sd]?\s+(?:in|at|on|with|near|by|out)|living\s+(?:in|at|on|with|near|by|out)|"
        r"(?:moved|moving|relocat\w*)" + _NO_OBJECT + r"|(?:my|our|new)\s+(?:home|flat|apartment|place|house|condo)|"
        r"(?<!from\s)(?<!at\s)home\s+(?:is|now)|'s\s+home|"
        r"based\s+in|emigrat\w*|(?:got|bought|rented|found)\s+(?:a|an|my|our)\s+(?:own\s+)?(?:new\s+)?"
        r"(?:place|flat|house|home|apartment)\b|(?:been|lived)\s+(?:here\s+)?in\s+(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)*\s+"
        r"(?:for|since))\b", re.I),
    # Whom one works for, and what one works as, are two slots: a new employer is no new trade ("I started a
    # new job at Initech" leaves "I work as an electrician" standing).
    "employer": re.compile(
        r"\b(?:work(?:s|ed|ing)?\s+(?:at|for|in)|(?:my|new|old|the|day)\s+(?:\w+\s+)?job(?!\s+" + _JOB_THINGS + r"\b)|"
        r"job\s+(?:at|with|in)|employer|employed|company|firm|hired|resign\w*|redundan\w*|laid\s+off|freelanc\w*|"
        r"(?:I'?m|im)\s+an?\s+(?:\w+\s+){0,2}at|(?:I'?m|im)\s+at(?!\s+" + _NOT_AT_WORK + r"\b)|"
        r"I\s+do\s+\w+\s+(?:\w+\s+)?at|teach(?:es|ing)?\s+(?:at|in)|"
        r"stud(?:y|ies|ying)\s+(?:at|in)|start(?:ed|ing)\s+at\s+(?-i:[A-Z])\w*)\b", re.I),
    "occupation": re.compile(r"\b(?:work(?:s|ed|ing)?\s+as|job\s+as|student)\b", re.I),
    # When one works: one pattern of shifts at a time ("works nights", then "switched to days").
    "shifts": re.compile(
        r"\b(?:work(?:s|ed|ing)?\s+(?:nights|days|weekends|lates|earlies)|(?:night|day|early|late|morning|evening)\s+"
        r"shifts?|(?:on|onto|to)\s+(?:nights|days|lates|earlies)(?!\s+(?:off|ago|later|before|after|when|of|in)\b))\b",
        re.I),
    # A child's school, one at a time ("my son moved to Greenfield Primary").
    "school": re.compile(
        r"\b(?:school|primary|nursery|kindergarten|preschool|academy|sixth\s+form|high\s+school|middle\s+school|"
        r"elementary|montessori|daycare|gymnasium)\b"
        r"(?!\s+(?:run|trip|holidays?|bus|uniform|play|fees|gates?|disco|fair|concert|report|friends?|shoes|bag)\b)",
        re.I),
    "name": re.compile(
        r"\b(?:(?:nick|first\s+|last\s+)?name[sd]?|renam\w*|called|address\s+me|introduc\w+\s+myself|known\s+as|call(?:s|ed)?\s+(?:me|it|him|her|them|us)|go(?:es)?\s+by|surname|maiden|"
        r"rebrand\w*|title[sd]?)\b", re.I),
    "diet": re.compile(
        r"\b(?:vegetarian|veggie|vegan|pescatarian|pescetarian|meat|fish|dairy|diet|keto|paleo|plant[\s-]based|"
        r"gluten|carnivore|c(?:o)?eliac|lactose|omnivore|flexitarian|halal|kosher|fasting|fodmap|whole30|eat(?:s|ing)?\s+(?:\w+\s+){0,2}?(?:everything|anything)|no\s+(?:dietary\s+|food\s+)?restrictions)\b",
        re.I),
    # How to reach the speaker: one email, one phone number at a time.
    "email": re.compile(r"\be-?mail(?:\s+address)?\b|[\w.+-]+@[\w-]+\.[\w.]+", re.I),
    "phone": re.compile(r"\b(?:(?:phone|mobile|cell)(?:\s+number)?|my\s+number|number\s+(?:is|ends))\b", re.I),
}
# Words that say which slot an older message speaks of, never that it changed: "im in austin tx btw" tells where
# one lives once a newer message says where one lives now, while "I'm in Paris now" may be a trip.
_NAMED_ONLY: dict[str, re.Pattern[str]] = {
    "home": re.compile(r"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:now\s+|currently\s+|still\s+)?(?:out\s+)?in\s+"
                       r"(?:(?-i:[A-Z])|(?!(?:the|a|an|my|our|love|trouble|pain|bed|charge|town|time|need|shock|"
                       r"tears|luck|line|class|school|work|hospital|debt|heaven|hell)\b)[a-z]+(?:\s+[a-z]{2})?"
                       r"(?=\s*(?:$|[,.!;]|by\s+the\s+way|to\s+be\s+honest|now\b)))", re.I),
    "employer": re.compile(r"\b(?:I'm|I\s+am)\s+(?:an?\s+)?(?:[\w-]+\s+){0,2}[\w-]*(?:er|or|ist|ian|ant|ent|eer)\s+"
                           r"(?:in|for)\s+(?-i:[A-Z])|"
                           r"\b(?:drive|drives|driving|write|writes|writing|deliver|delivers|delivering)\s+for\s+"
                           r"(?-i:[A-Z])", re.I),
}
# A change of the speaker's own: the cue near the slot word, in a sentence that speaks of the speaker
# (or leaves the speaker out, as chat does: "Moving day done, hello Philadelphia!").
DIET_VALUE = r"(?:vegetarian|veggie|vegan|pescatarian|pescetarian|keto|paleo|plant[\s-]based|carnivore|flexitarian)"
# "now" and "new" are in most sentences ("my job is stressful now", "the new company canteen"), so only
# their changing uses count: "I'm now at", "now I eat", a value said to hold now ("I'm at Arup now",
# "vegan now"), a new home or job that is the point ("my new flat is", "new job at"). "Went", "left" and
# "changed" count only with what changed ("went vegan", "left Initech", "changed jobs").
SLOT_CHANGE = re.compile(
    r"\b(?:anymore|any\s+more|any\s+longer|no\s+longer|switched|moved|moving|relocated|transferred|quit|"
    r"instead|these\s+days|nowadays|stopped|from\s+now\s+on|back\s+to|gave\s+up|giving\s+up|cut\s+out|"
    r"cutting\s+out|ditched|home\s+now|(?:is|'s)\s+(?:my\s+|our\s+)?(?:new\s+)?home\b|"
    r"(?:got|bought|found)\s+(?:a|an|my|our)\s+(?:own\s+)?(?:new\s+)?(?:place|flat|house|home|apartment)\b|"
    r"renam\w*|rebrand\w*|resigned|emigrated|laid\s+off|redundant|started|"
    r"(?:got|was|been|get|getting)\s+hired|"
    r"put\s+(?:me|him|her|us|them)\s+on\s+(?:a\s+|an\s+|the\s+)?(?:[\w-]+\s+){0,2}?(?:diet|nights|days|lates|earlies)|"
    r"(?:went|gone|going|turned)\s+(?:full\s+|fully\s+|back\s+)?(?:" + DIET_VALUE + r"|freelance|self-employed)|"
    r"left\s+(?:(?:my|the|our)\s+(?:\w+\s+)?(?:job|company|firm|employer|flat|place|house|city)|(?-i:[A-Z]))|"
    r"changed\s+(?:jobs|careers|companies|employers|(?:my|our)\s+(?:\w+\s+)?(?:name|surname|job|diet|address)"
    r"(?!\s+(?:app|plan|book|tracker|account|settings|photo|picture)\b))|"
    r"(?:I'm|I\s+am|we're|we\s+are|is|it's|I|we)\s+now|now\s+(?:I|I'm|we|we're|it's|its|he|he's|she|she's|they|they're)|"
    r"new\s+(?:job|flat|place|home|house|apartment|address|name|employer|company|diet|school|shifts?)"
    r"(?=\s*(?:$|[,.;:!]|at\b|in\b|with\b|is\b|'s\b|starts\b|as\b)))", re.I)
# A value said to hold now, "now" closing its clause: "I'm at Arup now", "vegan now", "im at wagamama now";
# not "stressful now", not "I'm at work now".
_NOW_AFTER_VALUE = re.compile(
    r"(?:\b(?:(?-i:[A-Z])[\w'&-]*|" + DIET_VALUE + r")|\b(?:at|in|for|with)\s+(?!(?:work|home|the\s+moment|last|"
    r"least|first|the\s+office|school|uni|bed|the\s+gym|the\s+end|my\s+desk)\b)(?:[\w'&-]+\s+){0,2}?[\w'&-]+)"
    r"\s+now(?=\s*(?:$|[,.;:!]))", re.I)
NEAR_WORDS = 6  # at most this many words between the cue and the slot word
# A sentence about someone else, or about a thing ("The company moved offices", "Our firm switched to ..."):
# not a change of the speaker's own slot.
OTHER_PEOPLE = r"(?:you|your|he|she|they|his|her|their)\b"
THING_SUBJECTS = (r"(?:the|our|my)\s+(?:company|firm|office|team|business|employer|boss|manager|school|landlord|"
                  r"department)\b")
_OTHER_SUBJECT = re.compile(r"^\W*(?:" + OTHER_PEOPLE + r"|(?:it|that|this)\b|" + THING_SUBJECTS + ")", re.I)
# A change only thought of: "if I moved to Seattle", "I might go freelance", "someday I want to" ("may", not "May").
_NOT_YET = re.compile(r"\b(?:if|would|wud|might|maybe|perhaps|could|should|thinking\s+(?:of|about)|want(?:s|ed)?\s+to|"
                      r"wanna|wish|hope|someday|one\s+day|planning|plan\s+to|considering|talk(?:s|ing)?\s+about|who\s+knows|dream\w*|"
                      r"(?:yrs|years|months)\s+from\s+now|(?-i:may))\b", re.I)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
# Words reported from someone else ("My cousin told me she's moved", "Pieter said, 'I live in Bruges now'"):
# their change, not the speaker's. "I told my boss I'm moving" is the speaker's own.
_REPORTED = re.compile(r"(?<!\bI\s)(?<!\bwe\s)\b(?:said|says|say|told|tells|tell|mentioned|mentions|announced|"
                       r"texted|wrote|writes|reckons|claims|claimed)\b", re.I)


_SELF = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|we|we're|we've|our|us)\b", re.I)


_SUBJECT_PRONOUN = re.compile(r"\b(?:he|she|he's|she's)\b", re.I)
_FACT_SUBJECTS = {"grandmother": "grandma", "grandfather": "grandpa"}  # the ledger's words for whom "gran" means


# "my brother's wife Jess": the wife's, not the brother's.
_PERSONS_PERSON = re.compile(r"\w's\s+(?:\w+\s+)?(?P<who>" + _RELATIONS + r"|partner|boss|friend|kids?|children)\b",
                             re.I)


def _owner(text: str, at: int) -> str:
    """Whose slot a sentence speaks of, from the words before the slot word at ``at``: the speaker's own ("")
    unless a person named there comes after the speaker's last "I" or "my" ("My sister lives in Leeds",
    "Grandma moved")."""
    own = max((m.end() for m in _SELF.finditer(text[:at])), default=-1)
    others = sorted((m.start("who"), m.group("who").lower()) for pattern in (_PEOPLE, _BARE_RELATION, _PERSONS_PERSON)
                    for m in pattern.finditer(text) if m.start("who") < at)
    pronoun = _SUBJECT_PRONOUN.search(text, max(own, 0), at)  # "My sister called me, she moved": the sister's
    later = [who for start, who in others if start >= own or (pronoun is not None and start < pronoun.start())]
    return _relation(later[-1]) if later else ""


def _relation(word: str) -> str:
    return _ALIASES.get(word, _FACT_SUBJECTS.get(word, word))


def _slot(slot: str, owner: str) -> str:
    return f"{slot}:{owner}" if owner else slot


# A name is one slot per thing named: a podcast renamed leaves the puppy's name alone. The thing is the last
# of up to three lower-case words after "the", "my", "a" ("my coffee shop", "an old sailing boat").
_THING = re.compile(r"\b(?i:the|my|our|his|her|their|its|a|an)\s+(?P<words>[a-z0-9-]+(?:\s+[a-z0-9-]+){0,2})")
_DETERMINER = re.compile(r"(?:the|my|our|his|her|their|its|a|an)\b", re.I)
_NOT_A_THING = frozenset("to as into is are was were be has have had goes go went got gets just also still finally "
                         "after from and but because now name names named called new old back own first last real "
                         "full about of for with at in on by that which who i".split())
# The speaker's own name: "my name", "my maiden name", "call me", "I go by", "I'm called", a surname.
_OWN_NAME = re.compile(r"(?:\bmy\s+(?:\w+\s+)?|\bI\s+|\bI'm\s+|\bI\s+am\s+|\bI(?:'d)?\s+(?:\w+\s+){0,2}to\s+be\s+)$|"
                       r"^(?:surname|maiden|address\s+me|introduc\w+\s+myself)|^call(?:s|ed)?\s+me\b", re.I)


def _thing(words: str) -> str | None:
    """The last thing a run of words names after a determiner, if any."""
    heads = []
    for m in _THING.finditer(words):
        kept = []
        for word in m.group("words").split():
            if word in _NOT_A_THING:
                break
            kept.append(word)
        if kept:
            heads.append(kept[-1])
    return heads[-1] if heads else None


def _name_slot(text: str, word: re.Match[str]) -> str | None:
    """Whose or what name a name word speaks of: "name" (the speaker's), "name:sister", "name:podcast";
    None when it cannot tell (then it is no slot: precision first)."""
    before, at = text[:word.start()], word.group(0).lower()
    owner = _owner(text, word.start())
    if owner:
        return _slot("name", owner)
    if at.startswith(("renam", "rebrand")):  # "renamed the podcast": the thing follows at once
        after = " ".join(text[word.end():].split()[:4])
        thing = _thing(after) if _DETERMINER.match(after) else None
    elif _OWN_NAME.search(before) or _OWN_NAME.match(word.group(0)):
        return "name"
    else:  # "the podcast is called": the thing comes before
        thing = _thing(" ".join(before.split()[-10:]))
    return _slot("name", thing) if thing else None


def _slot_of(slot: str, text: str, word: re.Match[str]) -> str | None:
    if slot == "occupation" and _SELF.search(word.group(0)):  # "they've made me manager": the speaker's own
        return slot
    return _name_slot(text, word) if slot == "name" else _slot(slot, _owner(text, word.start()))


SLOT_CHANGED = "a newer message changes its "  # why a slot's older episode is flagged, the slot's name after it
# The slot a belief's predicate fills: what the bookkeeper read, in the words the slot rules use.
_PREDICATE_SLOTS = {"lives_in": "home", "works_at": "employer", "job_title": "occupation", "name": "name",
                    "diet": "diet", "school": "school", "email": "email", "phone": "phone"}


def belief_slot(predicate: str, subject: str) -> str | None:
    """The slot a belief fills, with whose it is ("home", "home:sister", "name:dog"); None for a predicate of
    no single-valued slot ("likes")."""
    if predicate.startswith("pet_"):
        return _slot("name", predicate.removeprefix("pet_"))
    slot = _PREDICATE_SLOTS.get(predicate)
    owner = "" if subject == "user" else _relation(subject.split()[-1])
    return _slot(slot, owner) if slot else None


def _drop_none(found: Iterable[str | None]) -> frozenset[str]:
    return frozenset(slot for slot in found if slot is not None)


_USERS = re.compile(r"\bthe\s+user's\b", re.I)
_USER = re.compile(r"\bthe\s+user\b", re.I)


def _readable(text: str) -> str:
    """A text as the slot rules read it: chat normalised, a fact's "The user's husband" as "my husband"."""
    return _USER.sub("I", _USERS.sub("my", normalise_chat(_said(text))))


def slots_named(text: str) -> frozenset[str]:
    """The single-valued slots a text speaks of, each with whose it is ("home", "employer:sister")."""
    return _named_in(_readable(text))


def _named_in(said: str) -> frozenset[str]:
    return _drop_none(_slot_of(slot, said, m) for words_of in (SLOT_WORDS, _NAMED_ONLY)
                      for slot, words in words_of.items() for m in words.finditer(said))


def _near(sentence: str, a: re.Match[str], b: re.Match[str]) -> bool:
    lo, hi = sorted((a.start(), b.start()))
    return len(sentence[lo:hi].split()) <= NEAR_WORDS


def slots_changed(text: str) -> frozenset[str]:
    """The slots a text says changed, each with whose it is: a slot word with a change cue near it, in a
    sentence that adds nothing beside it, is no question, no mere thought and no one else's words."""
    return _changed_in(_readable(text))


def _changed_in(said: str) -> frozenset[str]:
    if SLOT_CHANGE.search(said) is None and _NOW_AFTER_VALUE.search(said) is None:
        return frozenset()
    found: set[str] = set()
    for sentence in _SENTENCES.split(said):
        if sentence.rstrip().endswith("?") or ADDITIVE_CUE.search(sentence) is not None \
                or _OTHER_SUBJECT.search(sentence) is not None or _NOT_YET.search(sentence) is not None \
                or _REPORTED.search(sentence) is not None:
            continue
        cues = [*SLOT_CHANGE.finditer(sentence), *_NOW_AFTER_VALUE.finditer(sentence)]
        found |= _drop_none(_slot_of(slot, sentence, word) for slot, words in SLOT_WORDS.items()
                            for word in words.finditer(sentence) if any(_near(sentence, cue, word) for cue in cues))
    return frozenset(found)


def slot_reading(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``slots_changed`` and ``slots_named`` of a text as sorted tuples, the chat text normalised once."""
    said = _readable(text)
    return tuple(sorted(_changed_in(said))), tuple(sorted(_named_in(said)))


# A question about what was, not what is: "When did I move?", "Where did I live before?", "Was I ever vegan?".
# "When is my flight?" asks about now.
_PAST_QUESTION = re.compile(
    r"\b(?:did|didn't|was|wasn't|were|weren't|had|used\s+to|before|previous(?:ly)?|former(?:ly)?|originally|ago|"
    r"ever|back\s+then|earlier|history|in\s+the\s+past|(?:last|first)\s+(?:year|month|week|time)|"
    r"(?:19|20)\d\d)\b", re.I)


def asks_about_the_past(query: str) -> bool:
    """Whether a question asks what was so (the veto then stands aside), not what is so now."""
    return _PAST_QUESTION.search(normalise_chat(query)) is not None


def _teller(memory: Memory, slots: Collection[str]) -> str:
    """Who told a memory: an episode's speaker; a fact's subject, or the user for a fact drawn about someone
    its slot names as the owner ("The user's husband works nights.": slot "shifts:husband")."""
    owner = _relation((memory.subject or "").lower())
    if memory.kind is MemoryKind.FACT and any(s.endswith(f":{owner}") for s in slots):
        return "user"
    return _speaker(memory)


def _same_teller(old: Memory, new: Memory, slots: Collection[str]) -> bool:
    return _teller(old, slots) == _teller(new, slots)


def slot_restated(memories: Sequence[tuple[Memory, Belief | None]], vectors: np.ndarray, least_similarity: float,
                  changed: Sequence[Collection[str]], named: Sequence[Collection[str]]) -> set[str]:
    """Ids of older memories whose slot a newer memory of the same person says changed (pure).

    ``changed`` and ``named`` give ``slots_changed`` and ``slots_named`` of each memory (recall keeps
    both per memory): each slot's memories are listed once, so a recall costs a pass over the
    candidates and one over each change's slot-mates (a scan of all 400 per change was 4 ms of a
    recall in ``engram bench scale``, whose sentences often say "moved" or "new")."""
    if least_similarity > 1.0:
        return set()
    changers = [j for j, slots in enumerate(changed) if slots and memories[j][0].kind is MemoryKind.EPISODE]
    if not changers:  # a fact the bookkeeper drew has its own supersession in the ledger
        return set()
    of_slot: dict[str, list[int]] = {}
    for i, slots in enumerate(named):
        for slot in slots:
            of_slot.setdefault(slot, []).append(i)
    drop: set[str] = set()
    for j in changers:
        new = memories[j][0]
        olds = sorted({i for slot in changed[j] for i in of_slot.get(slot, ())
                       if i != j and memories[i][0].id not in drop})
        if not olds:
            continue
        close = vectors[olds] @ vectors[j] >= least_similarity
        for i in (i for i, near in zip(olds, close.tolist(), strict=True) if near):
            old, belief = memories[i]
            if new.created_at > old.created_at and _retirable(old, belief) \
                    and not set(old.provenance) & set(new.provenance) and _same_teller(old, new, changed[j]):
                drop.add(old.id)
    return drop
