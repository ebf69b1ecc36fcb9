"""Words that carry meaning (pure): the stop words a lexical match ignores, and a light stem."""

from __future__ import annotations

import re

# English function words: matched alone they say nothing about a memory, yet BM25 scaled by the
# query's best match gave a one-word overlap on "a" full lexical credit ("Book a team dinner" ranked
# "What a lovely day, haha." first). They are left out of the lexical query; cosine still sees them.
STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she should
so some such than that the their theirs them themselves then there these they this those through to
too under until up very was we were what when where which while who whom why will with would you
your yours yourself yourselves s t d ll m re ve don didn doesn isn wasn
also got get gets just really actually still even oh yes yeah ok okay
""".split())
_WORD = re.compile(r"\w+", re.UNICODE)


def content_words(words: list[str], limit: int = 64) -> list[str]:
    """The distinct lower-cased words that carry meaning, in order, at most ``limit``."""
    distinct = dict.fromkeys(w.lower() for w in words)
    return [w for w in distinct if w not in STOP_WORDS][:limit]


def stem(word: str) -> str:
    """A light stem, enough to meet a fact's restatement: "lives", "lived", "living" and "live" all give
    "liv"; "bands" gives "band"."""
    for suffix in ("ies", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: len(word) - len(suffix)] + ("y" if suffix == "ies" else "")
            if suffix in ("ing", "ed") and _DOUBLED.search(word):
                word = word[:-1]  # "running" and "run", "shopped" and "shop" ("falling" keeps "fall")
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


_DOUBLED = re.compile(r"([bgmnprt])\1$")  # doubled before "ing" and "ed"; not "add", "fall", "stuff", "buzz"


def meaning(text: str) -> frozenset[str]:
    """A text's content words, stemmed: what it says, as a set."""
    return frozenset(stem(w) for w in content_words(_WORD.findall(text), limit=10_000))


_CHANGE_WORDS = frozenset(stem(w) for w in "renamed rebranded changed switched moved relocated replaced now".split())
# Of the source's content words, the share a fact must restate to stand in for it: at 0.6, "The user's cat is
# named Mochi." stood in for "My cat Mochi is a Siamese." and the breed was lost to recall.
STAND_IN_SHARE = 0.81


def carries(statement: str, source: str, history: frozenset[str] = frozenset(),
            share: float = STAND_IN_SHARE) -> bool:
    """Whether ``statement`` says what ``source`` said: it restates at least ``share`` of the source's
    content words. "The user's name is Dana." carries "My name is Dana." but not "I'm Dana, a nurse
    at St Mary's": the job would be lost with the sentence. Words in ``history`` (values the ledger
    has retired, kept in its history) need no restating: "project ECHO got renamed to ABYSS" is
    carried by "The user's project is named ABYSS." once ECHO is a retired value."""
    said = meaning(source)
    if said & history:  # the sentence changed a value: the words of the change are in the history too
        said = said - history - _CHANGE_WORDS
    return not said or len(said & meaning(statement)) >= share * len(said)
