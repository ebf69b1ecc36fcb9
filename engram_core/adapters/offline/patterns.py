"""The offline extractor's vocabulary: lexicons, predicate specs and the rule table (pure data).

Kept apart from ``heuristics`` so the rules read as one table. Every rule is a
regex compiled once, case-insensitive, whose ``obj`` group is the fact's object;
``(?-i:...)`` spots require capitals where a proper noun is the only evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_core.adapters.offline.checks import (
    NOT_EMPLOYERS, NOT_PLAYED, NOT_WORKED_ON, SKILL_WORDS, Check, a_food, a_taste, capitalised, could_be_a_name, dated,
    a_role, first_word_not_in, is_occupation, joined_employer, names_a_place, one_of, plausible_age, workplace,
)
from engram_core.adapters.offline.lexicon import LANGUAGES, NATIONS, NOT_IN_JEST, NOT_NAMES, OCCUPATIONS, topic_of
from engram_core.core.model import Cardinality, MemoryKind

ONE, MANY = Cardinality.ONE, Cardinality.MANY
PREF, FACT, SKILL = MemoryKind.PREFERENCE, MemoryKind.FACT, MemoryKind.SKILL


# -- predicate vocabulary ------------------------------------------------------------


@dataclass(frozen=True)
class PredicateSpec:
    cardinality: Cardinality
    kind: MemoryKind
    template: str  # {d} display, {p} possessive, {o} object, {ao} object with a/an, {v} verb, {rel}
    importance: float
    critical: bool = False


PREDICATES: dict[str, PredicateSpec] = {
    "name": PredicateSpec(ONE, FACT, "{p} name is {o}.", 0.85),
    "lives_in": PredicateSpec(ONE, FACT, "{d} lives in {o}.", 0.8),
    "hometown": PredicateSpec(ONE, FACT, "{d} is from {o}.", 0.65),
    "nationality": PredicateSpec(ONE, FACT, "{d} is {o}.", 0.6),
    "works_at": PredicateSpec(ONE, FACT, "{d} works at {o}.", 0.75),
    "job_title": PredicateSpec(ONE, FACT, "{d} works as {ao}.", 0.75),
    "work_schedule": PredicateSpec(ONE, FACT, "{d} works {o}.", 0.65),
    "project_name": PredicateSpec(ONE, FACT, "{p} project is named {o}.", 0.75),
    "working_on": PredicateSpec(MANY, FACT, "{d} is working on {o}.", 0.6),
    "allergy": PredicateSpec(MANY, FACT, "{d} is allergic to {o}.", 0.97, critical=True),
    "intolerance": PredicateSpec(MANY, FACT, "{d} is intolerant to {o}.", 0.92, critical=True),
    "medical_condition": PredicateSpec(MANY, FACT, "{d} has {o}.", 0.93, critical=True),
    "diet": PredicateSpec(ONE, FACT, "{d} is {o}.", 0.85),
    "avoids_food": PredicateSpec(MANY, PREF, "{d} doesn't eat {o}.", 0.75),
    "eats": PredicateSpec(MANY, FACT, "{d} eats {o}.", 0.5),
    "likes": PredicateSpec(MANY, PREF, "{d} {v} {o}.", 0.6),
    "dislikes": PredicateSpec(MANY, PREF, "{d} {v} {o}.", 0.65),
    "prefers": PredicateSpec(MANY, PREF, "{d} prefers {o}.", 0.65),
    "availability": PredicateSpec(MANY, FACT, "{d} is free {o}.", 0.7),
    "unavailable": PredicateSpec(MANY, FACT, "{d} is not available {o}.", 0.7),
    "hobby": PredicateSpec(MANY, FACT, "{d} enjoys {o} as a hobby.", 0.6),
    "skill": PredicateSpec(MANY, SKILL, "{d} knows {o}.", 0.6),
    "speaks_language": PredicateSpec(MANY, SKILL, "{d} speaks {o}.", 0.6),
    "learning": PredicateSpec(MANY, SKILL, "{d} is learning {o}.", 0.55),
    "age": PredicateSpec(ONE, FACT, "{d} is {o} years old.", 0.6),
    "birthday": PredicateSpec(ONE, FACT, "{p} birthday is {o}.", 0.75),
    "relationship_status": PredicateSpec(ONE, FACT, "{d} is {o}.", 0.7),
    "fears": PredicateSpec(MANY, FACT, "{d} is afraid of {o}.", 0.6),
    "goal": PredicateSpec(MANY, FACT, "{p} goal is {o}.", 0.65),
    "zodiac_sign": PredicateSpec(ONE, FACT, "{p} zodiac sign is {o}.", 0.5),
    "scheduled": PredicateSpec(MANY, FACT, "{d} has {o}.", 0.7),  # a dated engagement, not a wish
}
# The topic word stays in the statement: "What do I like to drink?" should find "preferred drink".
TOPIC_PREFERENCE = PredicateSpec(ONE, PREF, "{p} preferred {topic} is {o}.", 0.7)
RELATION = PredicateSpec(MANY, FACT, "{p} {rel} is {o}.", 0.7)
FAVOURITE = "{p} favourite {topic} is {o}."
RELATION_COUNT = PredicateSpec(ONE, FACT, "{d} has {o}.", 0.7)

# -- shared pattern pieces -----------------------------------------------------------

ADV = (r"(?:(?:just|only|recently|finally|actually|now|also|really|still|currently|mostly|usually|mainly|"
       r"generally|typically|normally|always|absolutely|totally|definitely|officially|truly|honestly|"
       r"basically|already|even|kind of|sort of|kinda|both|all)\s+)*")
I_ = r"\bI\s+" + ADV
I_VE = r"\bI(?:'ve)?\s+" + ADV  # "I've gone vegan": the "'ve" joined to the "I"
IM = r"\bI(?:'m|\s+am|m)\s+" + ADV
IM_OR_BEEN = r"\bI(?:'m|\s+am|m|'ve\s+been|\s+have\s+been)\s+" + ADV
WE, WE_HAVE = r"\b(?:I|we)(?:'ve|\s+have)?\s+" + ADV, r"\b(?:I|we)(?:'ve|\s+have)\s+" + ADV
HAVE = r"\b(?:(?:I|we)\s+" + ADV + r"(?:have|own)|(?:I|we)(?:'ve|\s+have)\s+got)\s+"
OBJ, LIST = r"(?P<obj>[^,;!?]+)", r"(?P<obj>[^;!?]+)"
ROLE = r"(?P<obj>[a-z][\w -]*)"
_DURATION = r"for\s+(?:about\s+|almost\s+|nearly\s+|over\s+|like\s+)?[\w-]+\s+(?:years?|decades?|months?)\b"
_FOR_YEARS = r"(?=an?\s+[a-z][\w -]*?\s+" + _DURATION + ")"
LEAD = r"^(?:(?:also|and|oh|btw|so|ok|okay|update|fyi|news|by the way|actually|big news)[,:!]?\s+)*"
END_NAME = r"(?=\s*(?:$|[,.!;()]|-|\b(?:and|but|who|by the way|btw|here)\b))"
# "favourite", and what people say instead of it ("my go-to drink").
FAVOURED = r"(?:favou?rite|go-?to|preferred)"
HEDGE = r"(?:these\s+days|nowadays|lately|right\s+now|at\s+the\s+moment|currently|of\s+all\s+time|by\s+far)"
ADJ = r"(?:(?:older|younger|little|big|baby|eldest|oldest|youngest|twin|new|\d+[- ]year[- ]old)\s+)?"
REL = (r"(?P<rel>wife|husband|hubby|partner|spouse|boyfriend|girlfriend|fianc[ée]e?|son|daughter|kid|child|"
       r"baby|mom|mum|mother|dad|father|brother|sister|sibling|twin|grandmother|grandma|granny|grandfather|"
       r"grandpa|grandad|granddad|gran|nan|nana|aunt|uncle|cousin|niece|nephew|stepson|stepdaughter|mother-in-law|"
       r"father-in-law|dog|puppy|cat|kitten|rabbit|bunny|hamster|parrot|budgie|horse|pony|turtle|tortoise|guinea pig|"
       r"ferret|gecko|goldfish)")
ZODIAC = ("(?P<obj>(?-i:Aries|Taurus|Gemini|Cancer|Leo|Virgo|Libra|Scorpio|Sagittarius|Capricorn|Aquarius|"
          "Pisces))")

NUMBER = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|several|no)"
DIETS = (r"(?:vegetarian|veggie|vegan|pescatarian|pescetarian|keto|paleo|kosher|halal|gluten[- ]free|dairy[- ]free|"
         r"plant[- ]based|flexitarian|carnivore)")
CONDITIONS = (r"(?:type [12] diabetes|diabetes|asthma|epilepsy|c[o]?eliac disease|hypertension|"
              r"high blood pressure|a heart condition|heart disease|adhd|autism|depression|anxiety|migraines|"
              r"arthritis|cancer|crohn's(?: disease)?|ibs|a pacemaker|sleep apnea|ptsd|bipolar disorder|"
              r"lupus|multiple sclerosis|hiv|copd)")
AVAIL = (r"(?P<obj>(?:on|in|at|after|before|from|during|every|most|until|till|between|weekdays?|weekends?|"
         r"mornings?|afternoons?|evenings?|nights?|today|tomorrow|tonight|this|next|mon|tue|wed|thu|fri|sat|"
         r"sun|\d)\b[^,;!?]*)")
SHIFTS = (r"(?P<obj>(?:the\s+)?(?:night|day|early|late|evening|morning|weekend|graveyard|double|split|"
          r"rotating|12-hour|long)\s+shifts?|nights|weekends|(?:part|full)[- ]time|remotely|from home|"
          r"(?:from\s+)?\d{1,2}(?::\d\d)?\s*(?:am|pm)?\s*(?:to|-|until)\s*\d{1,2}(?::\d\d)?\s*(?:am|pm)?|"
          r"nine to five)")


def name(group: str = "obj", digits: bool = False, any_case: bool = False) -> str:
    """A capitalised name of up to four words (particles like "da" allowed inside).

    ``any_case`` lets the first word be lower-case, for phrasings that announce a
    name outright ("my name is sam").
    """
    word = ("[A-Z0-9]" if digits else "[A-Z]") + r"[\w'-]*"
    first = r"[A-Za-z][\w'-]*" if any_case else word
    title = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?"  # "Dr. Sam" is a name, "Dr" alone is not
    return (rf"(?-i:(?P<{group}>{title}{first}(?:\s+(?:(?:de|da|do|dos|das|van|von|der|del|di|la|le)\s+)?{word})"
            r"{0,3}))")


# -- the rule table ------------------------------------------------------------------

_ROLE_WORDS = r"[a-z][a-z-]*(?:\s+(?!(?:at|for|with)\b)[a-z][a-z-]*){0,3}?"  # "graphic designer", never "engineer at"
_A_ROLE = r"(?:" + name("who") + r",\s+)?an?\s+(?P<role>" + _ROLE_WORDS + r")\s+"

@dataclass(frozen=True)
class Rule:
    """One phrasing of one fact. ``predicate`` may hold {rel} / {topic}; "prefers_?" infers the topic."""

    predicate: str
    pattern: re.Pattern[str]
    revision: bool = False
    negated: bool = False
    template: str | None = None
    listy: bool = False  # the object may be a list ("shellfish, peanuts and eggs")
    check: Check | None = None
    check_group: str = "obj"  # the check reads this group instead of the cleaned object
    first_person: bool = True
    keep_time: bool = False  # time phrases are the point ("free on Tuesdays")
    tentative: bool = False  # the wording only suggests the fact: it never replaces a held value
    negatable: bool = True  # read in a clause with its negation removed ("don't call me X" names nobody)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_IDENTITY = (
    Rule("name", _rx(r"\bmy\s+name(?:'s|\s+is)\s+" + name(any_case=True)), check=first_word_not_in(NOT_NAMES),
         negatable=False),
    Rule("name", _rx(NOT_IN_JEST + r"(?:^\W*|\b(?:please|pls|plz|just|can|could|should|to|and|so|i)\s+)call\s+me\s+"
                     + name(any_case=True)), check=first_word_not_in(NOT_NAMES), negatable=False),
    Rule("name", _rx(r"\bI\s+go\s+by\s+" + name(any_case=True)), check=first_word_not_in(NOT_NAMES),
         negatable=False),
    Rule("name", _rx(r"\bI(?:'m|\s+am)\s+called\s+" + name(any_case=True)), check=first_word_not_in(NOT_NAMES),
         negatable=False),
    # "I'm Sam" could as well be "I'm Tired": a name from it never replaces the one held.
    Rule("name", _rx(IM + name() + END_NAME), check=could_be_a_name, tentative=True, negatable=False),
    Rule("lives_in", _rx(IM + name() + r"-based\b")),
    Rule("nationality", _rx(IM + r"(?P<obj>[a-z]+)(?=\s*(?:$|[,.!]|\band\b))"), check=one_of(NATIONS)),
    Rule("hometown", _rx(IM + r"(?:originally\s+)?from\s+" + OBJ), check=capitalised),
    Rule("hometown", _rx(I_ + r"was\s+born\s+in\s+" + OBJ), check=capitalised),  # "grew up in" is the past
    Rule("age", _rx(IM + r"(?P<obj>\d{1,3})(?:\s+(?:years?|yrs?)(?:\s+old)?)?(?=\s*(?:$|[,.!]|\band\b))"),
         check=plausible_age),
    Rule("age", _rx(I_ + r"turned\s+(?P<obj>\d{1,3})\b"), revision=True, check=plausible_age),
    Rule("birthday", _rx(r"\bmy\s+birthday\s+is\s+(?:on\s+)?" + OBJ), keep_time=True),
    Rule("birthday", _rx(I_ + r"was\s+born\s+on\s+" + OBJ), keep_time=True, check=lambda o: dated(o)),
    Rule("relationship_status", _rx(IM + r"(?P<obj>married|single|engaged|divorced|widowed|separated)\b")),
    Rule("relationship_status", _rx(I_ + r"got\s+(?P<obj>married|engaged|divorced|separated)\b"), revision=True),
)

_HOME_AND_WORK = (
    Rule("lives_in", _rx(WE + r"(?:moved|relocated)\s+(?:out\s+of|away\s+from)\s+" + OBJ), negated=True,
         revision=True, check=capitalised),
    Rule("lives_in", _rx(WE + r"(?:moved|relocated|shifted|shift)\s+(?:from\s+[^,]+?\s+)?(?:back\s+)?(?:here\s+)?to\s+"
                         + OBJ),
         revision=True, check=lambda o: capitalised(o) and not workplace(o)),
    # Plain past ("I lived in Paris") is history, not where the user lives now.
    Rule("lives_in", _rx(r"(?:" + WE_HAVE + r"(?:been\s+living|been\s+residing|lived|resided)|(?:\b(?:I|we)|\band)\s+"
                         + ADV + r"(?:live|reside))\s+in\s+" + OBJ), check=names_a_place),
    Rule("lives_in", _rx(WE + r"(?:bought|buy|rented|found|got)\s+(?:an?|our)\s+(?:new\s+)?(?:house|home|flat|"
                         r"apartment|place)\s+in\s+" + OBJ), revision=True, check=capitalised),
    Rule("lives_in", _rx(WE + r"(?:moved|relocated)\s+into\s+(?:an?|the|my|our|his|her|their)\s+(?:new\s+|little\s+)?"
                         r"(?:house|home|flat|apartment|place|bungalow|studio)\s+in\s+" + OBJ), revision=True,
         check=capitalised),
    # "I stay in Accra with my parents": where one lives, in many Englishes; tentative, as a stay may be a visit.
    Rule("lives_in", _rx(r"\b(?:I|we)\s+" + ADV + r"stay\s+in\s+" + OBJ), check=capitalised, tentative=True),
    Rule("lives_in", _rx(r"\b(?:I|we)(?:'m|\s+am|m|'re|\s+are)\s+" + ADV + r"(?:based|living|settled|located)\s+"
                         r"(?:(?:now|currently|these\s+days)\s+)?(?:in|out of)\s+" + OBJ)),
    # "I'm a teacher in Leeds", not "an engineer at a startup in Austin"; "a nurse from Lagos" is where one is from.
    Rule("lives_in", _rx(IM + _A_ROLE + r"(?:based\s+|living\s+)?in\s+" + name())),
    Rule("hometown", _rx(IM + _A_ROLE + r"(?:originally\s+)?from\s+" + name())),
    Rule("works_at", _rx(I_ + r"(?:quit|left|lost)\s+my\s+(?:job|position|role)\s+(?:at|with)\s+" + OBJ),
         negated=True, revision=True),
    Rule("works_at", _rx(r"\bI\s+(?:was|got)\s+(?:laid off|fired|let go)\s+(?:from|by)\s+" + OBJ), negated=True,
         revision=True),
    Rule("works_at", _rx(I_ + r"resigned\s+from\s+" + OBJ), negated=True, revision=True),
    Rule("works_at", _rx(I_ + r"(?:started|began|got|landed|accepted|took)\s+(?:a\s+)?(?:new\s+)?(?:job|position|"
                         r"role|offer|work(?:ing)?)\s+(?:at|for|with)\s+" + OBJ), revision=True),
    Rule("works_at", _rx(r"\bI(?:'ve|\s+have)?\s+" + ADV + r"joined\s+" + OBJ), revision=True, check=joined_employer),
    Rule("works_at", _rx(r"\bI\s+(?:was|got|have been|'ve been)\s+hired\s+(?:at|by)\s+" + OBJ), revision=True),
    Rule("works_at", _rx(r"\b(?:I(?:'m|\s+am|m)?|and)\s+" + ADV + r"(?:work|working)\s+(?:at|for)\s+" + OBJ),
         check=lambda o: o.lower() not in NOT_EMPLOYERS),
    Rule("works_at", _rx(r"\bmy\s+(?:new\s+|current\s+)?(?:employer|company)(?:\s+" + HEDGE + r")?\s+is\s+(?:now\s+)?"
                         r"(?!(?:\w+ing|very|so|really|too|great|awful|nice|good|bad|based|closing|hiring)\b)" + OBJ)),
    Rule("works_at", _rx(IM_OR_BEEN + r"an?\s+(?P<role>[a-z][a-z -]*?)\s+(?:at|(?!" + _DURATION + r")for)\s+" + OBJ),
         check=is_occupation, check_group="role"),
    Rule("job_title", _rx(r"\bI(?:'m|\s+am|m|'ve\s+been|\s+have\s+been)?\s+" + ADV
                          + r"(?:work(?:ing)?(?:\s+(?:now\s+)?(?:at|for|in)\s+[^,]*?)?|employed|"
                          r"hired|started|joined\s+[^,]*?)\s+as\s+(?:an?\s+|the\s+)?" + ROLE)),
    # "My job is stressful now" names no job: only an occupation will do.
    Rule("job_title", _rx(r"\bmy\s+(?:job(?:\s+title)?|title|role|position|profession|occupation)\s+is\s+(?:an?\s+)?"
                          + ROLE), check=is_occupation),
    Rule("job_title", _rx(I_VE + r"(?:became|(?:got\s+|was\s+|been\s+)?promoted\s+to|retrained as|requalified as|"
                          r"qualified as)\s+(?:an?\s+|the\s+)?" + ROLE), revision=True, check=a_role),
    Rule("job_title", _rx(r"(?:" + IM + "|" + IM_OR_BEEN + _FOR_YEARS + r")an?\s+" + ROLE), check=is_occupation),
    # Without the article ("I am teacher", second-language English) only a known occupation will do.
    Rule("job_title", _rx(IM + r"(?:now\s+)?(?P<obj>[a-z]+)(?=\s*(?:$|[,.!]|\s+(?:now|at|in|for(?!\s+(?:my|his|her)\b))"
                          r"\b))"), check=one_of(OCCUPATIONS)),
    Rule("job_title", _rx(IM + r"(?:now\s+)?(?P<obj>retired)\b"), revision=True, template="{d} is {o}."),
    Rule("job_title", _rx(IM + name("who") + r",\s+an?\s+" + ROLE), check=is_occupation),
    Rule("work_schedule", _rx(I_ + r"work\s+" + SHIFTS), keep_time=True),
)

_PROJECTS = (
    Rule("project_name", _rx(r"\bproject\s+(?:called|named|titled|codenamed)\s+" + name(digits=True))),
    Rule("project_name", _rx(r"\b(?:the|my|our)\s+project(?:'s\s+name)?\s+(?:is|was|has been|got)\s+(?:now\s+)?"
                             r"(?:been\s+)?(?:re)?(?:named|called)\s+(?:to\s+)?" + name(digits=True)), revision=True,
         first_person=False),
    Rule("project_name", _rx(r"\b(?:my|our)\s+(?:\w+\s+)?project(?:'s\s+name\s+is|\s+is\s+(?:called|named)|,)?\s+"
                             + name(digits=True))),
    Rule("project_name", _rx(r"\b(?:the|my|our)\s+project(?:'s)?\s+name\s+is\s+(?:now\s+)?(?:still\s+)?"
                             + name(digits=True)), first_person=False),
    Rule("project_name", _rx(r"(?:" + LEAD + r"|\bproject\s+)" + name("old", True) + r"\s+(?:is|was|has|got|'s)\s+"
                             r"(?:now\s+)?(?:been\s+)?(?:re)?(?:named|called)\s+(?:to\s+)?" + name(digits=True)),
         revision=True, first_person=False, check=lambda old: old.lower() not in NOT_NAMES, check_group="old"),
    Rule("project_name", _rx(r"\b(?:I|we)\s+" + ADV + r"renamed\s+(?:the\s+project\s+|project\s+|it\s+)?(?:"
                             + name("old", True) + r"\s+)?to\s+" + name(digits=True)), revision=True),
    Rule("working_on", _rx(IM + r"(?:working on|leading|building|running|managing|developing|writing|coordinating|"
                            r"organi[sz]ing)\s+" + OBJ),
         check=lambda o: re.search(r"\bproject\s+(?:called|named)\b", o, re.I) is None
         and o.lower().split()[0] not in NOT_WORKED_ON),
)

_HEALTH_AND_FOOD = (
    Rule("allergy", _rx(IM + r"(?:severely\s+|very\s+|deathly\s+|highly\s+|mildly\s+)?allergic\s+to\s+" + LIST),
         listy=True),
    Rule("allergy", _rx(HAVE + r"(?:an?\s+)?(?:(?:severe|mild|serious|bad|deadly|life-threatening|slight)\s+)?"
                        r"(?P<obj>[\w -]+?)\s+allerg(?:y|ies)\b")),
    Rule("allergy", _rx(HAVE + r"(?:an?\s+)?allerg(?:y|ies)\s+to\s+" + LIST), listy=True),
    Rule("allergy", _rx(r"\bmy\s+allerg(?:y|ies)\s+(?:is|are)\s+(?:to\s+)?(?P<obj>[^;!?]+?)"
                        r"(?=,?\s+(?:which|but|so|that)\b|[.!;]|$)"), listy=True),
    Rule("allergy", _rx(r"\bmy\s+(?P<obj>[\w -]+?)\s+allerg(?:y|ies)\b")),
    Rule("intolerance", _rx(IM + r"(?P<obj>\w+)\s+intolerant\b")),
    Rule("intolerance", _rx(IM + r"intolerant\s+to\s+" + LIST), listy=True),
    Rule("medical_condition", _rx(I_ + r"(?:have|suffer from|was diagnosed with|got diagnosed with|live with)\s+"
                                  r"(?P<obj>" + CONDITIONS + r")\b")),
    Rule("medical_condition", _rx(IM + r"(?P<obj>diabetic|epileptic|asthmatic|celiac|coeliac|pregnant|"
                                  r"immunocompromised|deaf|blind|colou?r ?blind)\b"), template="{d} is {o}."),
    Rule("medical_condition", _rx(I_ + r"(?:take|use|carry|need)\s+(?P<obj>insulin|blood thinners|warfarin|"
                                  r"an? epipen|an? inhaler)\b"), template="{d} takes {o}."),
    Rule("diet", _rx(IM_OR_BEEN + r"(?:an?\s+)?(?:strict\s+)?(?P<obj>" + DIETS + r")\b")),
    Rule("diet", _rx(I_VE + r"(?:went|have gone|gone|turned|became|switched to)\s+(?P<obj>" + DIETS + r")\b"),
         revision=True),
    Rule("diet", _rx(r"\bI(?:'m|\s+am|m)?\s+(?:on|following|doing)\s+an?\s+(?P<obj>[\w -]+?)\s+diet\b"),
         template="{d} follows {ao} diet."),
    Rule("avoids_food", _rx(I_ + r"(?:don't|do not|never|can't|cannot|can not)\s+eat\s+" + LIST), listy=True),
    # "I avoid dairy", "No red meat for me": left out, said of a food.
    Rule("avoids_food", _rx(I_ + r"(?:avoid|stay\s+away\s+from|steer\s+clear\s+of|keep\s+off)\s+" + OBJ),
         check=lambda o: topic_of(o) == "food"),
    Rule("avoids_food", _rx(r"^(?:no|zero)\s+(?P<obj>[\w -]+?)\s+for\s+me\b"), first_person=False,
         check=lambda o: topic_of(o) == "food"),
    # "I've started eating red meat again", "I'm fine with dairy now": a food back on the menu.
    Rule("eats", _rx(I_VE + r"(?:have\s+)?(?:started|begun|began|gone\s+back\s+to)\s+eating\s+" + OBJ), revision=True,
         check=lambda o: topic_of(o) == "food"),
    Rule("eats", _rx(IM + r"(?:totally\s+|completely\s+)?(?:fine|ok|okay|good)\s+with\s+" + OBJ), revision=True,
         check=lambda o: topic_of(o) == "food"),
    Rule("prefers_food", _rx(r"\bI\s+(?:mostly|mainly|usually)\s+eat\s+" + OBJ)),
    Rule("eats", _rx(I_ + r"eat\s+(?P<obj>(?:(?!\b(?:that|which|who|because|when|after|I|is|are|was)\b)[^;!?])+)"),
         listy=True, check=a_food),  # "tofu that my partner cooks": the food, not what is said of it
)

_PREFERENCES = (
    Rule("prefers_{topic}", _rx(r"\bmy\s+(?:absolute\s+|all[- ]time\s+|current\s+|new\s+|usual\s+)?" + FAVOURED
                                + r"\s+(?P<topic>[\w -]+?)(?:\s+" + HEDGE + r")?\s+(?:is|are|has to be|would be)\s+"
                                r"(?:now\s+)?" + OBJ), template=FAVOURITE),
    # "Favourite band these days is Radiohead.": the "my" left out at the start of a message.
    Rule("prefers_{topic}", _rx(r"^(?:my\s+)?(?:current\s+|new\s+|all[- ]time\s+)?" + FAVOURED
                                + r"\s+(?P<topic>[\w-]+(?:\s+[\w-]+)?)(?:\s+" + HEDGE
                                + r")?(?:\s+(?:is|are)\s+(?:now\s+)?|:\s*)" + OBJ),
         template=FAVOURITE, first_person=False),
    Rule("prefers_{topic}", _rx(LEAD + r"(?P<obj>[\w' -]+?)\s+(?:is|are)\s+(?:now\s+)?(?:still\s+)?my\s+(?:new\s+)?"
                                r"(?:absolute\s+)?" + FAVOURED + r"\s+(?P<topic>[\w-]+)"), template=FAVOURITE),
    Rule("prefers_drink", _rx(I_ + r"(?:drink|sip|have)\s+" + OBJ), check=lambda o: topic_of(o) == "drink"),
    Rule("prefers_?", _rx(r"\bI(?:'ve|\s+have)?\s+" + ADV + r"(?:switched|changed|moved|gone over)\s+"
                          r"(?:from\s+[\w -]+?\s+)?to\s+" + OBJ), revision=True,
         check=lambda o: topic_of(o) is not None),
    Rule("prefers_?", _rx(I_ + r"(?:prefer|favou?r)\s+" + OBJ)),
    # "Lately it's all chai for me": what one has these days, said of a topic ("chai" is a drink).
    Rule("prefers_?", _rx(r"^(?:(?:lately|these\s+days|nowadays|now|recently)\s*,?\s+)?(?:it's|its|it\s+is)\s+"
                          r"(?:all|just|only)\s+(?P<obj>[\w' -]+?)(?=(?:\s+for\s+me)?(?:\s+" + HEDGE
                          + r"|\s+now)?\s*[.!]*$)"), revision=True, first_person=False,
         check=lambda o: topic_of(o) is not None),
    Rule("prefers_drink", _rx(I_ + r"(?:gave up|quit|cut out)\s+" + OBJ), negated=True, revision=True,
         check=lambda o: topic_of(o) == "drink"),
    Rule("prefers_?", _rx(IM + r"(?:more\s+of\s+)?an?\s+(?:big\s+|huge\s+|total\s+|real\s+|massive\s+)?"
                          r"(?P<obj>[\w-]+(?:\s+[\w-]+)?)\s+"
                          r"(?:person|drinker|lover)\b"),
         check=lambda o: topic_of(o) is not None),
    Rule("likes", _rx(I_ + r"(?P<verb>love|like|enjoy|adore|dig)\s+" + LIST), listy=True, check=a_taste),
    Rule("likes", _rx(IM_OR_BEEN + r"(?:(?:a\s+)?(?:big|huge|great|massive)?\s*fan\s+of|into|passionate about|"
                      r"obsessed with|crazy about|all\s+about)\s+" + LIST), listy=True),
    Rule("dislikes", _rx(I_ + r"(?P<verb>hate|dislike|detest|loathe|despise|can't stand|cannot stand|"
                         r"can not stand|don't like|do not like|don't enjoy|can't bear)\s+" + LIST), listy=True),
    Rule("dislikes", _rx(IM + r"not\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\s+" + LIST), listy=True),
)

_TIME_HOBBIES_SKILLS = (
    Rule("unavailable", _rx(IM + r"(?:not|never)\s+(?:free|available|reachable|around)\s+" + AVAIL), keep_time=True),
    Rule("unavailable", _rx(IM + r"(?:busy|unavailable)\s+" + AVAIL), keep_time=True),
    Rule("availability", _rx(IM + r"(?:free|available)\s+" + AVAIL), keep_time=True),
    Rule("hobby", _rx(r"\bmy\s+(?:main\s+|favou?rite\s+|big\s+)?hobb(?:y|ies)\s+(?:is|are|include|includes)\s+"
                      + LIST), listy=True),
    Rule("hobby", _rx(I_ + r"play\s+(?P<obj>[\w -]+)"), listy=True, check=first_word_not_in(NOT_PLAYED),
         template="{d} plays {o}."),
    Rule("hobby", _rx(I_ + r"go\s+(?P<obj>\w+ing)\b"), template="{d} goes {o}."),
    Rule("hobby", _rx(I_ + r"(?:practi[cs]e|do)\s+(?P<obj>yoga|pilates|karate|judo|jiu[- ]jitsu|taekwondo|"
                      r"crossfit|meditation|martial arts|boxing|kickboxing|tai chi|ballet|climbing|archery|"
                      r"fencing)\b"), template="{d} practises {o}."),
    Rule("speaks_language", _rx(I_ + r"(?:can\s+)?speak\s+(?:some\s+|a\s+little\s+|fluent\s+|basic\s+)?" + LIST),
         listy=True, check=one_of(LANGUAGES)),
    Rule("speaks_language", _rx(IM + r"(?:fluent|conversational|proficient)\s+in\s+" + LIST), listy=True,
         check=one_of(LANGUAGES)),
    Rule("speaks_language", _rx(IM + r"an?\s+native\s+(?P<obj>\w+)\s+speaker"), check=one_of(LANGUAGES)),
    Rule("skill", _rx(I_ + r"know\s+" + LIST), listy=True,
         check=lambda o: o.lower().startswith("how to ") or o.lower() in SKILL_WORDS),
    Rule("skill", _rx(I_ + r"can\s+(?P<obj>(?:code|program)\s+in\s+[^,;!?]+|cook|bake|swim|drive|ski|surf|sew|"
                      r"knit|dance|sing|paint|draw|juggle|skate|code|program|play\s+[^,;!?]+)"),
         template="{d} can {o}."),
    Rule("skill", _rx(IM + r"(?:very\s+|really\s+|pretty\s+|quite\s+)?(?:good|great|skilled|experienced|an expert|"
                      r"expert|proficient)\s+(?:at|in|with)\s+" + LIST), listy=True, template="{d} is good at {o}."),
    Rule("learning", _rx(IM + r"learning\s+(?P<obj>to\s+[^,;!?]+|[^,;!?]+)")),
    Rule("fears", _rx(IM_OR_BEEN + r"(?:afraid|scared|terrified|frightened)\s+of\s+" + LIST), listy=True),
    Rule("zodiac_sign", _rx(IM + r"(?:an?\s+)?(?:typical\s+|total\s+|proper\s+)?" + ZODIAC + r"\b")),
    Rule("zodiac_sign", _rx(r"\bmy\s+(?:star\s+|zodiac\s+|sun\s+)?sign\s+is\s+" + ZODIAC + r"\b")),
    Rule("goal", _rx(r"\bmy\s+(?:main\s+|big\s+)?goal\s+(?:is|for this year is)\s+" + OBJ)),
    Rule("goal", _rx(IM + r"(?P<obj>(?:training|saving(?:\s+up)?)\s+for\s+[^,;!?]+)"), template="{d} is {o}."),
    Rule("scheduled", _rx(I_ + r"have\s+(?P<obj>(?:an?|my)\s+[\w' -]+?\s+(?:on|next|this|tomorrow|tonight|at|in)\b"
                     r"[^,;!?]*)"), keep_time=True, check=dated),
    Rule("scheduled", _rx(I_ + r"have\s+(?P<obj>(?:meeting|appointment|interview|exam|flight|call|class|date)\s+"
                          r"(?:with|at|in|on|for)\b[^,;!?]*)"), keep_time=True, check=dated),
    Rule("scheduled", _rx(r"^(?:the\s+|our\s+)?(?P<obj>(?:dentist|doctor|gp|meeting|appointment|interview|flight|exam|"
                          r"dinner|lunch)\b"
                          r"[^,;!?]*?\b(?:on|at)\b[^,;!?]*)"), keep_time=True, check=dated, first_person=False),
    Rule("scheduled", _rx(IM + r"(?P<obj>(?:going|flying|travel(?:l)?ing|heading|driving|moving)\s+to\s+[^,;!?]+)"),
         keep_time=True, check=dated, template="{d} is {o}."),
    Rule("scheduled", _rx(r"\bmy\s+(?P<obj>[\w' -]+?\s+is\s+(?:on|at|next|this|tomorrow|in)\b[^,;!?]*)"),
         keep_time=True, check=dated, template="{p} {o}."),
)

_NAMED_AFTER = r"(?:\s+(?:named|called)|,(?:\s+(?:his\s+|her\s+|its\s+)?name\s+is)?)\s+"  # "a son, Mateo"
_FAMILY_AND_PETS = (
    # "Our dog Max passed away": the one named is no longer the user's.
    Rule("{rel}", _rx(r"\b(?:my|our)\s+(?:(?:old|dear|sweet|beloved|poor)\s+)?" + ADJ + REL + r",?\s+" + name()
                      + r",?\s+(?:\w+\s+){0,2}?(?:passed\s+away|passed|died|was\s+put\s+down|"
                      r"had\s+to\s+be\s+put\s+down|crossed\s+the\s+rainbow\s+bridge)\b"), negated=True, revision=True,
         template="{p} {rel} is named {o}."),
    Rule("{rel}", _rx(r"\bthe\s+name\s+of\s+(?:my|our)\s+" + ADJ + REL + r"\s+is\s+" + name() + r"\b"),
         template="{p} {rel} is named {o}."),
    Rule("{rel}", _rx(r"\b(?:my|our)\s+" + ADJ + REL
                      + r"(?:(?:'s)?\s+name\s+is|(?:'s|\s+is)\s+(?:called|named)|,)?\s+" + name() + r"\b"),
         template="{p} {rel} is named {o}.", check=first_word_not_in(NOT_NAMES)),
    Rule("{rel}", _rx(HAVE + r"(?:an?|one)\s+" + ADJ + REL + _NAMED_AFTER + name()),
         template="{p} {rel} is named {o}.", check=first_word_not_in(NOT_NAMES)),
    Rule("{rel}", _rx(WE + r"(?:got|adopted|rescued|bought|brought\s+home|welcomed)\s+(?:an?|one)\s+" + ADJ + REL
                      + r"\s+(?:named|called)\s+" + name()), template="{p} {rel} is named {o}."),
    Rule("{rel}", _rx(HAVE + r"(?P<obj>(?:an?|one)\s+" + ADJ + REL + r")\b(?!\s+(?:named|called)\b|" + _NAMED_AFTER
                      + r"(?-i:[A-Z]))"), template="{d} has {o}."),
    Rule("{rel}_count", _rx(r"(?:" + HAVE + r"|\bwith\s+)(?P<obj>" + NUMBER + r"\s+" + ADJ
                            + r"(?P<rel>kids|children|sons|daughters|"
                            r"brothers|sisters|siblings|grandchildren|grandkids|dogs|cats|pets))\b"),
         template="{d} has {o}."),
)

RULES: tuple[Rule, ...] = (_IDENTITY + _HOME_AND_WORK + _PROJECTS + _HEALTH_AND_FOOD + _PREFERENCES
                           + _TIME_HOBBIES_SKILLS + _FAMILY_AND_PETS)
# Who the user's people are ("my daughter Maya"): the user's facts, read even when the clause is about them.
NAMING_RULES: tuple[Rule, ...] = _FAMILY_AND_PETS
