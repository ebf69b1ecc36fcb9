"""Whose statement a clause is, and whether it says what is true now (pure).

Before any extraction rule runs, each clause is placed. A question, a hypothetical or wish, the past, and
words quoted or reported from someone else say nothing about the user's present, so they are skipped: the
message is still kept as an episode, it just makes no belief. A clause about another person ("my sister
lives in Porto", "Priya moved to Sydney", "she's at Oakwood now") is rewritten as that person's own
first-person statement, so the same rules read it and the facts get that person as their subject. A clause
whose subject is left out ("Just moved to Madrid!") gets its "I" back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from engram_core.adapters.offline.checks import could_be_a_name
from engram_core.adapters.offline.lexicon import REL_ALIASES

USER = "user"
NOBODY_NAMED = "nobody named for he/she"


class Scope(str, Enum):
    USER = "user"
    OTHER = "other"  # another person's fact, rewritten in the first person
    SKIP = "skip"  # states nothing true now about anyone we can name


@dataclass(frozen=True)
class Person:
    subject: str  # the belief subject: "sister", "tom"
    display: str  # how statements name them: "The user's sister", "Tom"


@dataclass(frozen=True)
class Placed:
    scope: Scope
    text: str
    person: Person | None = None
    reason: str = ""


# -- what a clause does not assert --------------------------------------------------

_WISH = re.compile(
    r"\b(?:some\s*day|one\s+day|in\s+(?:the\s+)?future|(?<!is\sa\s)(?<!are\sa\s)(?<!'s\sa\s)(?<!like\sa\s)dream(?:s|ing|ed)?|day\s*dream\w*|wants?\s+to(?!\s+say)|wanna|"
    r"would\s+(?:like|love)|'d\s+(?:like|love)|hope|hoping|gonna|going\s+to|thinking\s+(?:about|of)|"
    r"planning\s+(?:to|on)|plan\s+to|part\s+of\s+me|in\s+another\s+life|will|'ll|shall|consider(?:ing)?|"
    r"tempted|fantasi[sz]e|what\s+if|even\s+if|whenever|"
    # a frame for a request: "write it like I'm a lawyer", "let's say I work at Google"
    r"(?:(?<!looks )(?<!seems )like|as\s+if|as\s+though)\s+I(?:'m|\s+am|\s+was|\s+were)|"
    r"let's\s+say|say\s+I|suppos(?:e|ing)|imagine|pretend(?:ing)?|hypothetically|in\s+theory|role-?play)\b", re.I)
_HABITUAL_PAST = re.compile(
    # "back in 2010", "back in the day" are the past; "moved back in with my parents", "back in Leeds" are not.
    r"\b(?:(?<!getting\s)(?<!get\s)(?<!got\s)(?<!gets\s)(?<!am\s)(?<!I'm\s)(?<!be\s)used\s+to|use\s+to|back\s+(?:when|then)|back\s+in\s+(?=(?:the\s+)?(?:day|days|\d|'\d|\w+ties|those|"
    r"that|my|our|his|her|college|school|uni|university|high|old|olden)\b)|in\s+the\s+day|when\s+I\s+was|as\s+an?\s+(?:kid|child|teen|"
    r"teenager|student|boy|girl|youngster)|in\s+(?:college|high\s+school|hs|uni|university|school|my\s+(?:twenties|"
    r"teens|thirties|forties|youth|childhood|country))|(?:years|decades|ages)\s+ago|until\s+I\s+was|formerly|"
    r"previously|once\s+upon|growing\s+up|before\s+I\s+was|last\s+year\s+I\s+was)\b", re.I)
# A stative past ("I was vegetarian", "I had a Beetle", "I lived in Bergen") is history; an event that
# made the present is not ("I was laid off", "I was born in", "I moved").
_STATIVE_PAST = re.compile(
    r"\b(?:I|we)\s+(?:was|were|had|lived|worked|studied|played|flew|owned|ate|drove|taught|dated)\b"
    r"(?!\s+(?:born|raised|laid|fired|let|hired|promoted|diagnosed|told|asked|just|recently|finally|to))", re.I)
# "I'm not sure I like sushi", "no idea if I still work there": a doubt, not a statement.
_UNSURE = re.compile(
    r"\b(?:not\s+(?:sure|certain)|unsure|(?:don't|do\s+not|dont)\s+know|no\s+idea|wonder(?:ing)?)"
    r"\s+(?:if\s+|whether\s+|that\s+)?(?:I|I'm|I've|we)\b", re.I)
_NOW = re.compile(r"\b(?:now|still|currently|these\s+days|nowadays|anymore|any\s+more|since|today)\b", re.I)
_REPORTING = re.compile(
    r"\b(?:said|says|say|saying|told|tells|tell|mentioned|mentions|announced|announces|claims?|claimed|"
    r"insists?|thinks|reckons|introduced\s+(?:himself|herself|themselves)|texted|wrote)\b", re.I)
_SELF_REPORT = re.compile(r"^(?:I\s+(?:told|tell|said|say|mentioned)\s+(?:\w+\s+){0,3}?(?:that\s+)?)"
                          r"(?=I\b|I'm\b|I've\b|my\b)", re.I)
_ACCORDING = re.compile(r"^according\s+to\s+(?P<who>[^,]+),\s*(?P<rest>.+)$", re.I)
_ACCORDING_ALONE = re.compile(r"^according\s+to\s+(?P<who>.+?)[,.]?$", re.I)


def skip_reason(clause: str) -> str | None:
    """Why a (first-person) clause asserts nothing about now, or None."""
    if _WISH.search(clause):
        return "hypothetical or wish"
    if _HABITUAL_PAST.search(clause):
        return "the past"
    if _UNSURE.search(clause):
        return "a doubt"
    if _STATIVE_PAST.search(clause) and not _NOW.search(clause):
        return "the past"
    return None


# -- other people ---------------------------------------------------------------------

_PEOPLE = {"bro": "brother", "sis": "sister", "gf": "girlfriend", "bf": "boyfriend", "hubby": "husband",
           "neighbor": "neighbour", "coworker": "colleague", "co-worker": "colleague", "roomie": "roommate",
           "best friend": "friend", "bestie": "friend", "mother in law": "mother-in-law",
           "father in law": "father-in-law", **REL_ALIASES}
_REL_WORDS = (
    r"(?:wife|husband|hubby|partner|spouse|boyfriend|girlfriend|bf|gf|fianc[ée]e?|son|daughter|kid|child|"
    r"baby|mom|mum|mother|dad|father|brother|bro|sister|sis|sibling|twin|grandmother|grandma|granny|"
    r"grandfather|grandpa|grandad|granddad|gran|nan|nana|aunt|uncle|cousin|niece|nephew|stepson|stepdaughter|"
    r"mother[- ]in[- ]law|"
    r"father[- ]in[- ]law|in-laws|parents|best\s+friend|friend|bestie|boss|manager|colleague|co-?worker|"
    r"roommate|roomie|flatmate|housemate|neighbou?r|teacher|coach|doctor|therapist|landlord|landlady)")
_REL_ADJ = r"(?:(?:little|older|younger|big|baby|eldest|oldest|youngest|twin|new|lil|step|ex|dear|old)[- ]?\s*)*"
_LEAD_FILLERS = r"(?:(?:and|so|but|also|oh|well|btw|ok|okay|plus|then|now|today|yesterday|apparently)[,]?\s+)*"
_POSSESSIVE_OF = re.compile(r"^(?:the|a)\s+(?P<what>\w+(?:\s+\w+)?)\s+of\s+my\s+" + _REL_ADJ + r"(?P<rel>"
                            + _REL_WORDS + r")\s+(?P<rest>(?:is|are|was)\b.*)$", re.I)
_REL_SUBJECT = re.compile(
    r"^" + _LEAD_FILLERS + r"(?:my|our)\s+" + _REL_ADJ + r"(?P<rel>" + _REL_WORDS + r")(?P<poss>'s|s')?"
    r"(?:,?\s+(?-i:(?P<name>[A-Z][\w-]+)),?)?\s+(?P<rest>.+)$", re.I)
# Chat drops the "my": "husband sold the civic", "Dad quit smoking" (a verb must follow).
_BARE_REL_SUBJECT = re.compile(
    r"^" + _LEAD_FILLERS + r"(?P<rel>" + _REL_WORDS + r")"
    r"(?P<poss>'s(?=\s+(?:\w+ed|been|got|gone|finally|just|now|in|at|living|staying|back)\b))?"
    r"\s+(?P<rest>(?:\w+ed|sold|quit|left|got|went|took|made|(?<='s\s)(?:in|at|living|staying|back)|"
    r"moved|lives|works|plays|is|has|was|says|said|told|just|finally|now)\b.*)$", re.I)
# A bare name as a subject only with a verb that people do: "Quill is dead" names a product.
_PERSON_VERBS = (r"(?:moved|relocated|lives|works|worked|joined|started|quit|left|graduated|studies|switched|"
                 r"retired|became|got|bought|sold|plays|goes|went|finally|just|recently|now|hung|took|told|said|"
                 r"says|keeps|announced|mentioned|texted|drives|teaches|runs|stopped|dropped|gave\s+up|surprised|"
                 r"decided|admitted|confessed|called|asked|insists|"
                 r"has\s+(?:moved|started|joined|left|quit|gone|taken|given|become|switched|stopped|dropped)|"
                 r"is\s+(?:now\s+)?(?:obsessed|into|engaged|married|retired))")
# "Radiohead just doesn't do it for me": a taste of the speaker's, whatever the name's verb.
_TASTE = re.compile(r"\bdo(?:es)?(?:n't|\s+not)?\s+(?:\w+\s+)?it\s+for\s+me\b", re.I)
_NAME_SUBJECT = re.compile(r"^" + _LEAD_FILLERS + r"(?-i:(?P<name>[A-ZÀ-Þ][a-zß-ÿ]+))\s+(?P<rest>" + _PERSON_VERBS
                           + r"\b.*)$", re.I)
_PRONOUN = re.compile(r"^" + _LEAD_FILLERS + r"(?P<pro>he|she|they)\b(?P<verb>'s|'ve|'d|'ll)?\s*(?P<rest>.*)$", re.I)
_POSSESSIVE_PRONOUN = re.compile(r"^" + _LEAD_FILLERS + r"(?P<pro>his|her|their)\s+(?P<rest>\w+.*)$", re.I)
_NOT_PEOPLE_NAMES = frozenset(
    "i the my our this that it its maybe marketing leadership everyone someone nobody today yesterday tomorrow "
    "mom dad mum just finally recently also so and ok okay well now then actually anyway update guess big new "
    "sorry still really honestly basically literally officially already never always usually please yes no "
    "hey hi hello oh wow ugh quick small huge fun plot good bad great after before since when while once we "
    "you they he she there here what who why how which right sadly luckily thankfully hopefully apparently "
    "obviously seriously meanwhile lately sometimes funnily weirdly somehow otherwise besides".split())
# "'s" after a person is "is" when a place, state or verb follows, else it is a possessive.
_IS_FOLLOWERS = re.compile(r"^(?:in|at|a|an|the|from|on|not|no|now|still|back|home|going|moving|living|working|"
                           r"studying|teaching|coordinating|retired|married|pregnant|vegan|vegetarian|a\b|"
                           r"\w+ing\b|been|got|into|obsessed|off|out|over|with|also|just|finally|really|always|"
                           # a participle: "my sister's based in Leeds", "my son's moved to Leeds"; not "bed"
                           r"(?!(?:bed|shed|sled|red|need|seed|speed|breed|feed|weed|creed)\b)\w+ed\b|gone|"
                           r"become|taken|quit|left|started|joined|done|given)",
                           re.I)


def person_for(rel: str | None, name: str | None) -> Person:
    if rel:
        key = _PEOPLE.get(" ".join(rel.lower().split()), " ".join(rel.lower().split()))
        key = _PEOPLE.get(key, key)
        return Person(key, f"The user's {key}")
    if name is None:
        raise ValueError("a person is named by a relation or by a name")
    return Person(name.lower(), name)


_THIRD_TO_FIRST = {"is": "am", "'s": "'m", "has": "have", "does": "do", "doesn't": "don't", "isn't": "am not",
                   "hasn't": "haven't", "was": "was", "wasn't": "wasn't", "'ve": "'ve", "'d": "'d", "'ll": "'ll",
                   "are": "am", "aren't": "am not", "have": "have", "were": "was", "goes": "go"}
_VERB_ADVERBS = frozenset("just finally now still also really recently already actually currently never always "
                          "usually no longer even apparently officially".split())
_OBJECT_PRONOUNS = [(re.compile(r"\b(?:his|her|their)\b", re.I), "my"), (re.compile(r"\bhim\b", re.I), "me"),
                    (re.compile(r"\b(?:himself|herself|themselves)\b", re.I), "myself"),
                    (re.compile(r"\b(?:he|she)(?='s|'ve|'d|'ll|\b)", re.I), "I"),
                    (re.compile(r"\bI's\b"), "I'm"), (re.compile(r"\bI\s+is\b"), "I am"),
                    (re.compile(r"\bI\s+has\b"), "I have"), (re.compile(r"\bI\s+doesn't\b"), "I don't")]


# "she's moved" is "she has moved", but "she's obsessed", "he's based in Leeds" are "is".
_PARTICIPLE = re.compile(r"^(?:(?:just|finally|now|also|recently|already|never|always)\s+)*"
                         r"(?!(?:obsessed|married|engaged|interested|based|settled|employed|tired|excited|involved|scared|worried|stressed|bored|"
                         r"pleased|thrilled|exhausted|located|retired|allergic|addicted|hooked|attached)\b)"
                         r"(?:\w+ed|been|gone|got|"
                         r"gotten|left|become|done|taken|found|made|given|quit|started|joined|moved)\b", re.I)


def _base_verb(word: str) -> str:
    low = word.lower()
    if low in _THIRD_TO_FIRST:
        return _THIRD_TO_FIRST[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if re.search(r"(?:ch|sh|ss|x|o)es$", low):
        return low[:-2]
    return low[:-1] if low.endswith("s") and not low.endswith("ss") and len(low) > 3 else low


def first_person(rest: str, contraction: str | None = None) -> str:
    """"lives in Porto" -> "I live in Porto"; "'s at Oakwood now" -> "I'm at Oakwood now"."""
    if contraction == "'s" and _PARTICIPLE.match(rest):
        contraction = "'ve"  # "she's moved" is "she has moved"
    if contraction:
        rest = f"{contraction} {rest}"
    words = rest.split()
    for i, word in enumerate(words):
        if word.lower() in _VERB_ADVERBS or (word.lower() == "no" and i + 1 < len(words)):
            continue
        words[i] = _base_verb(word)
        break
    text = "I " + " ".join(words)
    text = re.sub(r"\b(and|but|then)\s+(?!is\b|was\b|has\b)(\w+s)\b",  # "graduated and works at" -> "... and work at"
                  lambda m: f"{m.group(1)} {_base_verb(m.group(2))}", text)
    text = text.replace("I 'm ", "I'm ").replace("I 've ", "I've ").replace("I 'd ", "I'd ").replace("I 'll ", "I'll ")
    for pattern, replacement in _OBJECT_PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


# A role one person holds at a time, said to have a new holder: "my new manager is Tom" names him for sure.
_NEW_HOLDER = re.compile(r"^" + _LEAD_FILLERS + r"(?:my|our)\s+new\s+(?:boss|manager|doctor|gp|therapist|landlord|"
                         r"landlady|coach|teacher)\b", re.I)
_IS_NAME = re.compile(r"^(?:is|'s)\s+(?:now\s+)?(?P<name>(?-i:[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?))\s*(?:$|[,.!])")


def _relation_clause(clause: str) -> tuple[Person, str] | None:
    m = _POSSESSIVE_OF.match(clause)
    if m:  # "The hobby of my husband is fishing" -> the husband's "my hobby is fishing"
        return person_for(m.group("rel"), None), f"my {m.group('what')} {m.group('rest')}"
    m = _REL_SUBJECT.match(clause)
    if m is None:
        bare = _BARE_REL_SUBJECT.match(clause)
        return (person_for(bare.group("rel"), None),
                first_person(bare.group("rest"), "'s" if bare.group("poss") else None)) if bare else None
    if re.match(r"and\s+I\b", m.group("rest"), re.I):
        return None  # "My husband and I live in Braga" is the user's own
    person, rest = person_for(m.group("rel"), None), _not_theirs(m.group("rest"), person_for(m.group("rel"), None))
    if _NEW_HOLDER.match(clause) and not m.group("poss") and (named := _IS_NAME.match(rest)) \
            and could_be_a_name(named.group("name")):
        return person, f"my name is {named.group('name')}"  # "my new manager is Tom": the role has a new holder
    if m.group("poss") and not m.group("name") and not _IS_FOLLOWERS.match(rest):
        return person, "my " + rest  # "my mom's favourite flower is ..." -> "my favourite flower is ..."
    return person, first_person(rest, "'s" if m.group("poss") else None)


def _name_clause(clause: str) -> tuple[Person, str] | None:
    m = _NAME_SUBJECT.match(clause)
    if m is None or m.group("name").lower() in _NOT_PEOPLE_NAMES or _TASTE.search(m.group("rest")):
        return None
    return person_for(None, m.group("name")), first_person(m.group("rest"))


def _pronoun_clause(clause: str, last: Person | None) -> tuple[Person | None, str] | None:
    m = _PRONOUN.match(clause)
    if m is not None:
        return _agreeing(last, m.group("pro")), first_person(m.group("rest"), m.group("verb"))
    m = _POSSESSIVE_PRONOUN.match(clause)  # "now his hobby is golf" -> his "my hobby is golf"
    return (_agreeing(last, m.group("pro")), "my " + m.group("rest")) if m is not None else None


# Whom "he" and "she" cannot mean: "My mother has an old dog, his name is Rufus. He is 14" is not her name or age.
_SHE = frozenset("mother mum sister wife daughter girlfriend aunt niece grandma grandmother gran nan granny".split())
_HE = frozenset("father dad brother husband son boyfriend uncle nephew grandpa grandfather grandad".split())
_HIS, _HERS = re.compile(r"\b(?:he|his)\b", re.I), re.compile(r"\b(?:she|her)\b", re.I)


def _not_theirs(rest: str, person: Person) -> str:
    """A relative's clause with a "he" or "his" that cannot mean them said of it ("My mother has an old dog, his
    name is Rufus": the dog's name, not hers), so the clause does not read it as theirs."""
    other = _HIS if person.subject in _SHE else _HERS if person.subject in _HE else None
    return other.sub(lambda m: "its" if m.group(0).lower() in ("his", "her") else "it", rest) if other else rest



def _agreeing(last: Person | None, pronoun: str) -> Person | None:
    """The person a pronoun stands for, unless it cannot be them ("he" for a mother); then nobody."""
    said = pronoun.lower()
    if last is not None and ((said in ("he", "his") and last.subject in _SHE)
                             or (said in ("she", "her") and last.subject in _HE)):
        return None
    return last


def about_someone(clause: str, last: Person | None) -> tuple[Person | None, str] | None:
    """(the person, their statement in the first person) when the clause is about someone else;
    the person is None for "he"/"she" with nobody named before it."""
    return _relation_clause(clause) or _name_clause(clause) or _pronoun_clause(clause, last)


# -- reported speech ------------------------------------------------------------------

def _reported(clause: str, last: Person | None) -> Placed | None:
    """Someone else's words: their own facts when they speak of themselves ("she moved to Madrid"), else nothing."""
    alone = _ACCORDING_ALONE.match(clause)
    if alone and "," not in clause.rstrip(","):  # "According to my sister" then ", she's moved to Galway"
        who = about_someone(alone.group("who").strip() + " is", last)
        return Placed(Scope.SKIP, clause, who[0] if who else None, "someone else's words")
    according = _ACCORDING.match(clause)
    if according:
        who = about_someone(according.group("who").strip() + " is", last)
        speaker = who[0] if who else None
        content = according.group("rest")
    else:
        verb = _REPORTING.search(clause)
        if verb is None or re.search(r"\b(?:I|we)\b", clause[:verb.start()], re.I):
            return None  # the user's own words ("I want to say", "I told my team")
        who = about_someone(clause, last)
        if who is None:
            return None  # nobody is reporting ("please tell couriers to call me")
        speaker = who[0]
        content = re.sub(r"^(?:me\s+|us\s+|that\s+)*", "", clause[verb.end():].strip(), flags=re.I)
    if speaker is None:
        return Placed(Scope.SKIP, clause, reason="someone else's words")
    about = _pronoun_clause(content, speaker)
    if about is None or about[0] is None:
        return Placed(Scope.SKIP, clause, reason="someone else's words")
    return Placed(Scope.OTHER, about[1], speaker, "reported")


# -- a clause without its subject -------------------------------------------------------

_ELIDED = re.compile(
    r"^(?:(?:just|finally|recently|also|so|and|ok|okay|officially|already|basically|literally|totally|kinda|"
    r"kind\s+of|sort\s+of|pretty\s+much|honestly|now|currently|still)\s+)*"
    r"(?P<verb>moved|relocated|started|joined|left|quit|went|got|became|switched|stopped|gave\s+up|picked\s+up|"
    r"grew|lost|ditched|dropped|kicked|prefer|gone|"
    r"learned|learnt|bought|sold|adopted|retrained|transferred|handed|cut|landed|finished|retired|promoted|"
    r"love|like|live|work|hate|enjoy|speak|play|"
    r"living|renting|working|based|settled|done\s+with|married|obsessed|(?:a\s+)?(?:big|huge|massive)"
    r"\s+fan|fan|into|not\s+into|over|off|back\s+on|back\s+to|no\s+longer|vegan|vegetarian|pescatarian|"
    r"keto|paleo|employed|(?:in|(?<=still\s)at)\s+(?=(?-i:[A-Z])))\b", re.I)
_ELIDED_BE = frozenset("living renting working based settled done married obsessed big huge massive a fan into "
                       "not over off back no vegan vegetarian pescatarian keto paleo employed in at".split())


_DIET_WORDS = frozenset("vegan vegetarian pescatarian keto paleo".split())
_A_VERB_NEXT = re.compile(r"\s+(?:was|were|is|isn'?t|wasn'?t|didn'?t|doesn'?t|did|does|has|had|never|made|ruined|"
                          r"gave|got|ended|felt|feels|seemed|seems|sounded|sounds|just|really|wasn'?t|killed|left)\b",
                          re.I)


# Praise ("Love the colours!"), a wish ("Enjoy your day!"), a noun, chat filler ("like 20km max"): no liking.
_NOT_A_LIKING = re.compile(r"\s*(?:(?:the|this|that|these|those|all|your|you|how|it|and|or|seeing|under|over|around|"
                           r"about|maybe|max|literally|idk|i|im|so|super|when|if|half|twice|retire|go|do|be|get|"
                           r"make|take)\b|\d)", re.I)
_LIKING_VERBS = frozenset({"love", "like", "enjoy", "hate"})


def with_subject(clause: str) -> str:
    """"Just moved to Madrid!" -> "I just moved to Madrid!" (a chat message often leaves out its "I")."""
    m = _ELIDED.match(clause)
    if m is None:
        return clause
    if m.group("verb").lower() in _LIKING_VERBS and _NOT_A_LIKING.match(clause, m.end()):
        return clause
    first = m.group("verb").split()[0].lower()
    if first in _DIET_WORDS and _A_VERB_NEXT.match(clause, m.end()):
        return clause  # "vegan didn't work for me", "keto was too hard": the diet is the subject, not the speaker
    return ("I'm " if first in _ELIDED_BE else "I ") + clause


# -- placing a clause -------------------------------------------------------------------

# What someone does to the speaker is the speaker's fact: "My doctor put me on a low-fat diet".
_DONE_TO_ME = re.compile(r"^\W*(?:they|(?:(?:my|our|the)\s+)?(?:\w+\s+)?(?:doctor|gp|nutritionist|dietitian|physio|"
                         r"cardiologist|trainer|coach|boss|manager|company|employer|firm|owners?|board|cto|ceo))\s+(?:has\s+|"
                         r"have\s+|just\s+|finally\s+)?(?:put|puts|has|got|keeps|moved|transferred|promoted|talked|"
                         r"convinced|persuaded|made|appointed|named)\s+me\b", re.I)


def place(clause: str, last: Person | None) -> Placed:
    """Where a clause's facts belong, given the last person named earlier in the message."""
    if _DONE_TO_ME.match(clause):
        return Placed(Scope.USER, clause)
    clause = _SELF_REPORT.sub("", clause, count=1)  # "I told my team I'm going vegan": the user's own
    reported = _reported(clause, last)
    if reported is not None:
        return reported
    other = about_someone(clause, last)
    if other is not None:
        person, text = other
        if person is None:
            return Placed(Scope.SKIP, clause, reason=NOBODY_NAMED)
        why = skip_reason(text)
        return Placed(Scope.SKIP, clause, person, why) if why else Placed(Scope.OTHER, text, person)
    text = with_subject(clause)
    why = skip_reason(text)
    return Placed(Scope.SKIP, text, reason=why) if why else Placed(Scope.USER, text)


# -- third persons ----------------------------------------------------------------------

# Someone's relative opening a clause ("Yesterday his brother visited, he is a doctor"): a "he" or "she" after it
# means them, not whom the message named before.
_THIRD_PARTY = re.compile(r"^\W*(?:(?:yesterday|today|tonight|then|and|so|also|oh|well|anyway|btw|"
                          r"this\s+(?:morning|week)|last\s+(?:night|week|weekend))\W+)*"
                          r"(?:(?:my|our)\s+\w+'s\s+|(?:his|her|their)\s+|(?-i:[A-Z])[\w-]+'s\s+)(?:\w+\s+)?"
                          r"(?:" + _REL_WORDS + r")\b", re.I)
_CALLS_ME = re.compile(r"\bcall(?:s|ed|ing)?\s+me\s+([\w'-]+)", re.I)


def opens_with_third_party(clause: str) -> bool:
    """"his brother changed career", "My husband's brother ...": a relative of someone else's."""
    return _THIRD_PARTY.match(clause) is not None


def called_me(clause: str) -> list[str]:
    """What someone calls the speaker ("my dad calls me kiddo"): no name of the caller's."""
    return [m.group(1) for m in _CALLS_ME.finditer(clause)]
