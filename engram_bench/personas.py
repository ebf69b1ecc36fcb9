"""Synthetic personas for ``engram bench supersession`` (pure: a seeded ``random.Random``).

A persona states a few facts and preferences, later changes some of them in other
words (not always with the same subject wording), and talks about other things in
between: other people's facts, small talk, questions. Probes ask for the current
value of every slot the persona has. Values are picked so that no value is part of
another, and distractors never use a value the persona ever held.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Slot:
    name: str
    values: tuple[str, ...]
    states: tuple[str, ...]  # first statements
    updates: tuple[str, ...]  # later statements of a new value, paraphrased
    probes: tuple[str, ...]
    distractors: tuple[str, ...]  # someone else's fact with a value from the same pool


SLOTS = (
    Slot("home", ("Lisbon", "Ponta Delgada", "Madrid", "Porto", "Seville", "Valencia", "Bologna", "Lyon", "Ghent",
                  "Krakow", "Tallinn", "Bergen"),
         ("I live in {v}.", "I've been living in {v} for a few years."),
         ("We moved to {v} last month.", "I relocated to {v} in the spring.", "These days I'm based in {v}."),
         ("Where do I live now?", "Which city am I based in these days?"),
         ("My sister lives in {v}.", "Do you think {v} is nice in winter?")),
    Slot("employer", ("Acme Corp", "Globex", "Initech", "Hooli", "Umbrella Labs", "Vandelay Imports",
                      "Soylent Works", "Cyberdyne", "Wonka Foods", "Tyrell Systems"),
         ("I work at {v}.", "I'm working for {v} at the moment."),
         ("I started a new job at {v}.", "I joined {v} last week.", "Big news: I'm now working for {v}."),
         ("Where do I work?", "Which company am I with now?"),
         ("My colleague just joined {v}.", "I read that {v} is hiring.")),
    Slot("drink", ("green tea", "black coffee", "sparkling water", "chai", "espresso", "rooibos", "kombucha",
                   "hot chocolate"),
         ("My favourite drink is {v}.",),
         ("These days I prefer {v}.", "My favourite drink is {v} now.", "Actually my go-to drink is {v} lately."),
         ("What do I like to drink?", "What's my favourite drink?"),
         ("My roommate drinks {v} all day.",)),
    Slot("food", ("ramen", "tacos", "paella", "sushi", "lasagne", "falafel", "gnocchi", "biryani"),
         ("My favourite food is {v}.",),
         ("My favourite dish these days is {v}.", "Actually, my favourite food is {v} now."),
         ("What's my favourite food?", "What dish do I like best?"),
         ("My brother's favourite food is {v}.",)),
    Slot("project", ("ECHO", "ABYSS", "ORCHID", "TUNDRA", "FALCON", "MERIDIAN", "PEBBLE", "ZEPHYR", "QUARTZ"),
         ("My project is called {v}.",),
         ("We renamed the project to {v}.", "The project's name is now {v}."),
         ("What is my project called?", "What's the name of the project I'm on?"),
         ("The other team's project is called {v}.",)),
    Slot("job", ("nurse", "architect", "accountant", "teacher", "pharmacist", "electrician", "librarian",
                 "carpenter"),
         ("I'm a {v}.", "I work as a {v}."),
         ("I became a {v} this year.", "I'm a {v} now."),
         ("What is my job?", "What do I do for a living?"),
         ("My neighbour is a {v}.",)),
    Slot("diet", ("vegetarian", "vegan", "pescatarian", "keto"),
         ("I'm {v}.",),
         ("I'm {v} now.", "I went {v} a few weeks ago."),
         ("What diet do I follow?",),
         ("My cousin went {v} recently.",)),
    Slot("band", ("Radiohead", "Muse", "Portishead", "Blondie", "Metallica", "Coldplay", "Daft Punk", "Pixies"),
         ("My favourite band is {v}.",),
         ("Honestly my favourite band these days is {v}.", "My favourite band is {v} now."),
         ("Who is my favourite band?", "Which band do I like most?"),
         ("My friend can't stop playing {v}.",)),
)
SMALL_TALK = (
    "The weather was lovely today.", "Traffic was terrible this morning.", "Can you remind me to call the bank?",
    "I watched a documentary about octopuses last night.", "What's a good name for a houseplant?",
    "The train was late again.", "I need to buy a birthday present for a friend.", "Any tips for sleeping better?",
)


_AN = re.compile(r"(\b)a ([aeiouAEIOU])")  # "a architect" -> "an architect"


@dataclass(frozen=True)
class Line:
    text: str
    at: datetime
    session: str


@dataclass(frozen=True)
class Probe:
    slot: str
    query: str
    current: str
    superseded: tuple[str, ...]
    at: datetime


@dataclass(frozen=True)
class Persona:
    id: str
    lines: tuple[Line, ...]
    probes: tuple[Probe, ...]

    def still_true(self) -> tuple[str, ...]:
        """Values never superseded: retiring one of them is a false supersession."""
        return tuple(p.current for p in self.probes if not p.superseded)


def _values(rng: random.Random, slot: Slot, changes: int) -> tuple[list[str], list[str]]:
    """The persona's own value history for a slot, and the rest of the pool for distractors."""
    pool = list(slot.values)
    rng.shuffle(pool)
    return pool[:changes + 1], pool[changes + 1:]


def _session_times(rng: random.Random, start: datetime, count: int) -> list[datetime]:
    times, at = [], start
    for _ in range(count):
        times.append(at)
        at += timedelta(days=rng.randint(1, 7), hours=rng.randint(0, 10))
    return times


def _plan(rng: random.Random, slots: list[Slot], sessions: int) -> dict[str, list[int]]:
    """For each slot, the sessions where its value changes (about half the slots change)."""
    plan: dict[str, list[int]] = {}
    for slot in slots:
        changes = rng.choice((0, 0, 1, 1, 2)) if sessions > 2 else 0
        plan[slot.name] = sorted(rng.sample(range(1, sessions), min(changes, sessions - 1)))
    return plan


def _session_lines(rng: random.Random, index: int, slots: list[Slot], plan: dict[str, list[int]],
                   history: dict[str, list[str]], spare: dict[str, list[str]]) -> list[str]:
    texts = []
    for slot in slots:
        if index == 0:
            texts.append(rng.choice(slot.states).format(v=history[slot.name][0]))
        elif index in plan[slot.name]:
            step = plan[slot.name].index(index) + 1
            texts.append(rng.choice(slot.updates).format(v=history[slot.name][step]))
    for _ in range(rng.randint(1, 3)):
        slot = rng.choice(slots)
        if spare[slot.name]:
            texts.append(rng.choice(slot.distractors).format(v=rng.choice(spare[slot.name])))
    texts.append(rng.choice(SMALL_TALK))
    rng.shuffle(texts)
    return [_AN.sub(r"\1an \2", t) for t in texts]


def make_persona(rng: random.Random, number: int, start: datetime, slots_each: int = 5) -> Persona:
    sessions = rng.randint(4, 6)
    slots = rng.sample(SLOTS, slots_each)
    plan = _plan(rng, slots, sessions)
    history, spare = {}, {}
    for slot in slots:
        history[slot.name], spare[slot.name] = _values(rng, slot, len(plan[slot.name]))
    lines = []
    for index, at in enumerate(_session_times(rng, start, sessions)):
        for offset, text in enumerate(_session_lines(rng, index, slots, plan, history, spare)):
            lines.append(Line(text, at + timedelta(minutes=2 * offset), f"p{number}-s{index + 1}"))
    ask_at = lines[-1].at + timedelta(days=1)
    probes = tuple(Probe(s.name, rng.choice(s.probes), history[s.name][-1], tuple(history[s.name][:-1]), ask_at)
                   for s in slots)
    return Persona(f"persona-{number:02d}", tuple(lines), probes)


def make_personas(seed: int, count: int, start: datetime) -> list[Persona]:
    rng = random.Random(seed)
    return [make_persona(rng, n + 1, start + timedelta(days=n)) for n in range(count)]
