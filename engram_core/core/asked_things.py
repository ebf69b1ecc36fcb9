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
from functools import lru_cache

from engram_core.core.chattext import normalise_chat
from engram_core.core.model import Belief, Memory, MemoryKind
from engram_core.core.slots import _NOT_YET, _REPORTED, _SENTENCES, _teller, asks_about_the_past
from engram_core.core.stopping import _STOP_WORD, clause_stops
from engram_core.core.words import STOP_WORDS

_FIRST_PERSON = re.compile(r"\b(?:I|I'm|me|my|the\s+user(?:'s)?)\b", re.I)
# The words of a question that ask, not name: "Do I still like to drink coffee these days?" names coffee.
_ASKING = frozenset("still like likes love enjoy drink drinks eat eats play plays watch watches listen listens use "
                    "uses go goes going do does kind sort type should could would pick order have tonight today "
                    "these days anymore ever much often usually regularly currently right things stuff thing user "
                    "what which where who how why when live lives living work works working called name "
                    "job".split()) | STOP_WORDS
_WORD = re.compile(r"[a-z][a-z'-]{2,}")
# What says a thing stopped besides ``stopping.clause_stops``: "cancelled my gym membership", "unsubscribed".
_ENDED = re.compile(r"\b(?:cancell?ed|unsubscribed|deleted|uninstalled|sold|quit|gave\s+up|given\s+up|stopped)\b", re.I)
# A visit, not a stop: "I stopped at the café for an espresso", "stopped by the gym to grab my bag".
_CALLED_IN = re.compile(r"\bstopped\s+(?:by|at|in|off|for|over|to)\b", re.I)
_CLAUSE = re.compile(r",\s*(?:but|and|so)\b|;|\s[-–—]\s")


def asked_things(query: str) -> frozenset[str]:
    """The things a first-person question about now names ("coffee" for "Do I still drink coffee?"); none for a
    question about the past or one with no "I"."""
    said = normalise_chat(query)
    if _FIRST_PERSON.search(said) is None or asks_about_the_past(said):
        return frozenset()
    return frozenset(word for word in _WORD.findall(said.lower()) if word not in _ASKING)


def _named(thing: str) -> re.Pattern[str]:
    """What names the thing: the word, its plural, or a word sharing its first four letters when the thing is
    five letters or more ("runner" and "running", "smoke" and "smoking")."""
    said = re.escape(thing[:4]) + r"\w*" if len(thing) >= 5 else re.escape(thing) + r"(?:s|es)?\b"
    return re.compile(r"\b" + said, re.I)


def _names(text: str, thing: str) -> bool:
    return _named(thing).search(text) is not None


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


def stopped(memories: Sequence[tuple[Memory, Belief | None]], texts: Sequence[str], things: frozenset[str]) -> set[str]:
    """Ids of memories that name an asked thing, older than a memory of the same teller saying it stopped;
    ``texts`` are the memories' texts, read first so only the few that name a thing are made."""
    drop: set[str] = set()
    cued = [text for text in texts if _may_stop(text)]
    for thing in things:
        naming = _named(thing)
        if not any(naming.search(text) for text in cued):  # no newer word on it: the common case, one quick look
            continue
        members = [memories[i][0] for i, text in enumerate(texts) if naming.search(text) is not None]
        if len(members) < 2:
            continue
        stopping = [m for m in members if m.kind is MemoryKind.EPISODE and stops(m.text, thing)]
        for new in stopping:
            drop |= {old.id for old in members
                     if old.created_at < new.created_at and not old.critical and old not in stopping
                     and old.kind in (MemoryKind.EPISODE, MemoryKind.FACT, MemoryKind.PREFERENCE)
                     and not set(old.provenance) & set(new.provenance) and _teller(old, ()) == _teller(new, ())}
    return drop
