"""Checks on a rule's cleaned object (pure): could it be a name, an occupation, an age, a date?"""

from __future__ import annotations

import re
from collections.abc import Callable

from engram_core.adapters.offline.lexicon import (
    LANGUAGES, NATIONALITIES, NON_OCCUPATIONS, NOT_NAMES, OCCUPATION_SUFFIX, OCCUPATIONS, TECH_SKILLS, words,
)

Check = Callable[[str], bool]
# "I work at night", "I work for a living" name a schedule, not an employer.
# "I'm running late", "I'm running errands": a state or an errand, not a piece of work.
NOT_WORKED_ON = frozenset("late behind early low out away around errands on a an".split())
NOT_EMPLOYERS = frozenset({"night", "nights", "home", "weekends", "the weekend", "a living", "the moment"})
NOT_PLAYED = words("with around along it them safe dumb nice fair hard by for a an games once twice two three four "
                   "five every each on at in")  # "I play two times each week" says how often, not what
SKILL_WORDS = TECH_SKILLS | LANGUAGES | {"first aid"}


_NOT_A_ROLE_START = frozenset("bit kind sort lot total real huge big little complete bit".split())
_STATE_SUFFIX = re.compile(r"(?:ed|ing|ful|ous|ive|less|able|ible|ish|based|y)$")
_NAMES_ENDING_IN_Y = frozenset("amy lucy andy emily bobby sally molly billy jimmy tony harry henry mary judy "
                               "kelly betty cathy danny freddy jenny kathy lily mandy nancy penny sophy teddy "
                               "wendy rudy ricky roy jay guy ray troy joy".split())


def could_be_a_name(obj: str) -> bool:
    """Not a word for a state or an activity: "I'm Tired", "I'm Starving", "I'm Lisbon-based"."""
    first = obj.split()[0].lower()
    if first in NOT_NAMES or (first in NATIONALITIES and len(obj.split()) == 1):  # "he is Bulgarian"
        return False
    return first in _NAMES_ENDING_IN_Y or _STATE_SUFFIX.search(first) is None


def is_occupation(role: str) -> bool:
    role = re.split(r"\s+(?:on|in)\s+(?:the|a)\s+", role, maxsplit=1)[0]  # "a nurse on the cardiac ward"
    words = role.lower().split()
    if not words or len(words) > 4 or words[-1] in NON_OCCUPATIONS or words[0] in NON_OCCUPATIONS:
        return False
    if words[0] in _NOT_A_ROLE_START:
        return False
    return words[-1] in OCCUPATIONS or OCCUPATION_SUFFIX.search(words[-1]) is not None


# "I love my class", "I love my wife and kids": affection for one's own people and lot, not a taste to keep.
_OWN_LOT = re.compile(r"^(?:my|our)\s+(?:[\w-]+\s+)?(?:class|job|work|team|students|pupils|kids|children|family|"
                      r"friends|wife|husband|partner|boyfriend|girlfriend|son|daughter|mum|mom|dad|parents|boss|"
                      r"colleagues|coworkers|co-workers|life|dog|cat|pets?|baby|brother|sister|city|town|"
                      r"neighbou?rhood|home|house|flat|apartment)\b", re.I)


def a_taste(obj: str) -> bool:
    return _OWN_LOT.match(obj) is None


def capitalised(obj: str) -> bool:
    return re.sub(r"^the\s+", "", obj, flags=re.I)[:1].isupper()


def names_a_place(obj: str) -> bool:
    """A capital somewhere in it: "ponta Delgada", "a small flat in Lisbon", not "document review"."""
    return re.search(r"[A-Z]", obj) is not None


def one_of(words: frozenset[str]) -> Check:
    return lambda obj: obj.lower() in words


def first_word_not_in(words: frozenset[str]) -> Check:
    return lambda obj: obj.split()[0].lower() not in words


# What one became that may be a post ("the principal"), not a parent or a fan ("became a father").
a_role = first_word_not_in(NON_OCCUPATIONS)


def plausible_age(obj: str) -> bool:
    return obj.isdigit() and 1 <= int(obj) <= 120


def dated(obj: str) -> bool:
    return DATE_WORDS.search(obj) is not None and not obj.lower().startswith("birthday")


DATE_WORDS = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|"
    r"dec)[a-z]*\.?\s+\d|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|"
    r"dec)[a-z]*\b|\b(?:tomorrow|tonight|yesterday|next\s+(?:week|month|year|weekend)|last\s+(?:week|month|"
    r"year|weekend|night)|this\s+(?:week|weekend|month|evening|afternoon|morning)|in\s+\d+\s+(?:days|weeks|"
    r"months))\b|\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\b\d{4}-\d\d-\d\d\b|\b\d{1,2}/\d{1,2}\b", re.I)


_WORKPLACE = re.compile(r"\b(?:pharmacy|chemist|hotel|restaurant|cafe|café|bakery|supermarket|inc|ltd|llc|corp|plc|"
                        r"labs|agency|construction|consulting|solutions|partners|associates|systems|technologies|"
                        r"logistics|insurance|airlines|motors)\b", re.I)


_SCHOOLS = re.compile(r"\b(?:school|academy|primary|college|university|uni|nursery|kindergarten)\b", re.I)


# "moved up to Year 4", "moved to Grade 2", "moved to Room 3": a rank or a room, not a town.
_RANKS = re.compile(r"^(?:the\s+)?(?:year|grade|form|level|stage|class|set|division|league|group|room|floor|"
                    r"platform|gate|tier|band)\s+\w+", re.I)


# "joined the Leisure Centre", "joined PureGym's classes": a membership, not an employer.
_MEMBERSHIP = re.compile(r"\b(?:gym|leisure|club|society|choir|team|league|union|class(?:es)?|course|band|orchestra|"
                         r"library|waitlist|community|forum|discord|server|group|chat|pilates|yoga)\b", re.I)


def joined_employer(obj: str) -> bool:
    """What one joined may be an employer: a name, not a gym, a club or a class."""
    return capitalised(obj) and _MEMBERSHIP.search(obj) is None


def workplace(obj: str) -> bool:
    """"lloyds pharmacy", "Acme Ltd", "Oakwood Academy": a place one works or learns, not a town one lives in;
    nor "Year 4", a rank one moved up to."""
    return _WORKPLACE.search(obj) is not None or _SCHOOLS.search(obj) is not None or _RANKS.match(obj) is not None


def a_food(item: str) -> bool:
    """An item of "I eat ..." that names a food, not a diet or a clause ("after that I decide dessert ...")."""
    return (not item.lower().endswith("diet") and len(item.split()) <= 5
            and re.search(r"\b(?:I|is|are|was|that)\b", item) is None
            and _WHEN_EATEN.match(item) is None)


# "I eat only between 12 and 8" says when, not what.
_WHEN_EATEN = re.compile(r"(?:(?:only\s+)?(?:between|from|until|till|before|after|at|around|by)\b|"
                         r"\d+(?::\d+)?\s*(?:am|pm)?\s*$)", re.I)
