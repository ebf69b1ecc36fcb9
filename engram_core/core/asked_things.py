"""The newest word on a thing a question names: for a question of the asker about a habit or a taste now ("Do I
still drink coffee?", "am i still going to the gym?", "Do I use Instagram?"), an older memory that names the
thing stays out of the block once a newer memory of the same teller says, of that thing, that it stopped
("cancelled my gym membership", "I deleted my Instagram account", "I've given up running altogether") (pure).

The write path ends a liking when it can tell which one stopped, and retires the older episodes close to the
stop; a long message that says the stop among other news is often too far from the older one for that. The
question names the thing, so here a shared word is the link. Only first-person questions about now count;
"Does Melanie still paint?" asks about a history the chat tells.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol
from datetime import datetime
from functools import lru_cache

from engram_core.core.chattext import normalise_chat
from engram_core.core.model import Memory, MemoryKind
from engram_core.core.restatements import _speaker, speaker_of
from engram_core.core.slots import _NOT_YET, _REPORTED, _SENTENCES, asks_about_the_past
from engram_core.core.stopping import _STOP_WORD, clause_stops
from engram_core.core.words import STOP_WORDS

_FIRST_PERSON = re.compile(r"\b(?:I|I'm|me|my|the\s+user(?:'s)?)\b", re.I)
# The words of a question that ask, not name: "Do I still like to drink coffee these days?" names coffee.
_ASKING = frozenset("still like likes love enjoy drink drinks eat eats play plays watch watches listen listens use "
                    "uses go goes going do does kind sort type should could would pick order have tonight today "
                    "these days anymore ever much often usually regularly currently right things stuff thing user "
                    "what what's whats which where who how why when live lives living work works working called name "
                    "job".split()) | STOP_WORDS
_WORD = re.compile(r"[a-z][a-z'-]{2,}")
# What says a thing stopped besides ``stopping.clause_stops``: "cancelled my gym membership", "unsubscribed".
_ENDED = re.compile(r"\b(?:cancell?ed|unsubscribed|deleted|uninstalled|sold|quit|gave\s+up|given\s+up|stopped|"
                    r"done\s+with|never\s+again|(?:can'?t|cannot)\s+do\b.*\b(?:anymore|any\s+more))\b", re.I)
# A visit, not a stop: "I stopped at the café for an espresso", "stopped by the gym to grab my bag".
_CALLED_IN = re.compile(r"\bstopped\s+(?:by|at|in|off|for|over|to)\b", re.I)
# A question naming more things than this asks about no one habit ("I" and six other words in the scale suite).
MOST_THINGS = 3
# A word more candidates name than this is no one habit ("week", "friends"): left alone, and the scan stays short.
MOST_NAMING = 24
_RETIRABLE = (MemoryKind.EPISODE, MemoryKind.FACT, MemoryKind.PREFERENCE)
# A kind that, stopped, stops each thing of it: "I've cut caffeine" for "Do I still drink coffee?".
_DRINKS = "wine beer cocktails whisky whiskey gin vodka"
_KINDS = {"caffeine": "coffee espresso espressos latte cappuccino", "alcohol": _DRINKS, "booze": _DRINKS,
          "meat": "beef pork chicken steak bacon burgers lamb", "dairy": "milk cheese yogurt yoghurt butter cream",
          "sugar": "sweets chocolate candy soda cake"}
_KIND_OF = {thing: tuple(kind for kind, of in _KINDS.items() if thing in of.split())
            for things in _KINDS.values() for thing in things.split()}
_CLAUSE = re.compile(r",\s*(?:but|and|so)\b|;|\s[-–—]\s")


def asked_things(query: str) -> frozenset[str]:
    """The things a first-person question about now names ("coffee" for "Do I still drink coffee?"); none for a
    question about the past or one with no "I"."""
    said = normalise_chat(query)
    if _FIRST_PERSON.search(said) is None or asks_about_the_past(said):
        return frozenset()
    things = frozenset(word for word in _WORD.findall(said.lower()) if word not in _ASKING)
    return things if len(things) <= MOST_THINGS else frozenset()


@lru_cache(maxsize=1 << 15)
def _words_of(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A text's words and their first four letters, kept per text (recall asks of the same candidates again)."""
    words = frozenset(_WORD.findall(text.lower()))
    return words, frozenset(w[:4] for w in words if len(w) >= 4)


def _names(text: str, thing: str) -> bool:
    """Whether a text names the thing: the word, its plural, or a word sharing its first four letters when the
    thing is five letters or more ("runner" and "running", "smoke" and "smoking")."""
    words, heads = _words_of(text)
    return thing[:4] in heads if len(thing) >= 5 else not words.isdisjoint((thing, thing + "s", thing + "es"))


@lru_cache(maxsize=1 << 15)
def stops(text: str, thing: str) -> bool:
    """Whether a text says, in earnest, that the thing stopped: a clause that names it and says it ended."""
    for sentence in _SENTENCES.split(text):
        if sentence.rstrip().endswith("?"):
            continue
        for clause in _CLAUSE.split(_CALLED_IN.sub(" ", sentence)):
            if _names(clause, thing) and _NOT_YET.search(clause) is None and _REPORTED.search(clause) is None \
                    and (clause_stops(clause) or _ENDED.search(clause) is not None):
                return True
    return False


@lru_cache(maxsize=1 << 15)
def _may_stop(text: str) -> bool:
    """Whether a text has any word that may say a thing stopped: a quick look, kept per text (a recall asks it
    of the same candidates again and again; the full reading of 400 for each named thing was 6.7 ms)."""
    return _ENDED.search(text) is not None or _STOP_WORD.search(text) is not None


class Told(Protocol):
    """What the veto reads of a candidate: recall's index entries, which make the memory only when asked."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> MemoryKind: ...
    @property
    def text(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def memory(self) -> Memory: ...


def _teller(told: Told) -> str:
    return speaker_of(told.text) if told.kind is MemoryKind.EPISODE else _speaker(told.memory)


def stopped(candidates: Sequence[Told], things: frozenset[str]) -> set[str]:
    """Ids of candidates that name an asked thing, older than an episode of the same teller saying it stopped."""
    cued = [c for c in candidates if c.kind is MemoryKind.EPISODE and _may_stop(c.text)]
    drop: set[str] = set()
    told: list[tuple[Told, str, datetime]] = []
    for thing in things if cued else ():
        stopping = [c for c in cued if any(_names(c.text, said) and stops(c.text, said)
                                           for said in (thing, *_KIND_OF.get(thing, ())))]
        if not stopping:
            continue
        latest: dict[str, datetime] = {}  # each teller's newest word that the thing stopped
        for c in stopping:
            teller = _teller(c)
            latest[teller] = max(latest.get(teller, c.created_at), c.created_at)
        newest = max(latest.values())
        told = told or [(c, c.text, c.created_at) for c in candidates if c.kind in _RETIRABLE]
        members = [c for c, text, at in told if at < newest and _names(text, thing)]
        if len(members) <= MOST_NAMING:
            drop |= {c.id for c in members
                     if c.created_at < latest.get(_teller(c), c.created_at) and not c.memory.critical}
    return drop
