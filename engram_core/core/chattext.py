"""Chat text made readable for the rules (pure): contractions typed without apostrophes, chat
shorthand, one-letter typos in the words the rules key on, and other people's quoted words.

Only the vocabulary the rules depend on is corrected (verbs, relations, time and change
words), never the values a user names: "seatle" stays "seatle".
"""

from __future__ import annotations

import re
from functools import lru_cache

_SHORTHAND = {
    "im": "I'm", "ive": "I've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't",
    "cant": "can't", "wont": "won't", "isnt": "isn't", "wasnt": "wasn't", "arent": "aren't", "havent": "haven't",
    "hes": "he's", "shes": "she's", "theyre": "they're", "were'nt": "weren't", "thats": "that's", "whats": "what's",
    "u": "you", "ur": "your", "rn": "right now", "atm": "at the moment", "pls": "please", "plz": "please",
    "tbh": "to be honest", "btw": "by the way", "wud": "would", "shud": "should", "cud": "could", "gonna": "going to",
    "wanna": "want to", "lil": "little", "bro": "brother", "sis": "sister", "gf": "girlfriend", "bf": "boyfriend",
    "fav": "favourite", "fave": "favourite", "n": "and", "w": "with", "yrs": "years", "rly": "really",
    "hs": "high school", "sry": "sorry", "nvm": "never mind", "coz": "because", "cuz": "because",
    "bc": "because", "tho": "though", "thx": "thanks", "ppl": "people", "luv": "love", "r": "are", "b4": "before",
    "finaly": "finally", "sm": "so much", "ngl": "honestly", "ig": "I guess", "abt": "about",
    "shd": "should", "smth": "something",
}
# The words the rules key on: a one-letter slip in one of them ("livng", "husbnd", "anymroe") is read as it.
KEY_WORDS = frozenset("""
live living lived lives moved relocated relocate based settled home resident address apartment flat
work working worked works employer employed company job joined started switched left quit hired promoted
anymore longer stopped gave again already recently lately nowadays these days now since still currently
renamed rename called named name surname changed change rebranded
husband wife partner boyfriend girlfriend daughter son brother sister mother father cousin friend boss
vegetarian vegan pescatarian diet eating drinking favourite favorite allergic intolerant
really weekend yesterday tomorrow tonight months weeks years because actually moving moves joins starts
changes loves likes hates enjoys like love hate enjoy move start join leave
""".split())
# Real words one edit from a key word, never typos of it: "We hiked" is not "We hired", "movies" not "moves".
# (The plain lowercase words of the MiniLM and Qwen vocabularies that ``corrected`` changed, and "hiked".)
REAL_WORDS = frozenset("""
alain baked bared biased bother calmed chance chances charge charged charges easing envoy farther feather
float grave hades haired haste haute hayes hiked hikes johns lakes lease lined linger lining lobes logger loses
lowes modes moses moths mouths movies naked prompted rally reilly skill smart spill stall stared stares starred
starved stated stats stepped stitched stomped stuart suriname theme there those weeds wording words worms
""".split())
_SUFFIXES = ("d", "ed", "s", "es", "ing", "er", "ly", "r")
# A whole word, letters of any script: "Kraków" is one word, not "Krak", "ó" and a shorthand "w" for "with".
_WORD = re.compile(r"(?<![\w'])[^\W\d_][\w']*")


def one_edit(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or swap of neighbours turns ``a`` into ``b``."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1:]


_BY_LENGTH: dict[int, list[str]] = {}
for _key in KEY_WORDS:
    _BY_LENGTH.setdefault(len(_key), []).append(_key)


def _inflection(a: str, b: str) -> bool:
    """The two differ only at the end: "month"/"months", "liked"/"likes" are words, not typos."""
    common = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    return common >= min(len(a), len(b)) - 1


def _inflected_key(low: str) -> bool:
    """"liked" is "like" + "d": a word, however close it is to "lived"."""
    for suffix in _SUFFIXES:
        stem = low[: -len(suffix)] if low.endswith(suffix) else None
        if stem and (stem in KEY_WORDS or stem + "e" in KEY_WORDS or stem[:-1] in KEY_WORDS):
            return True
    return False


@lru_cache(maxsize=65536)  # words repeat: the slot readings of 10,000 memories made 200,000 calls, mostly repeats
def corrected(word: str) -> str:
    """The key word a typo stands for (one edit away, same first letter, not just another ending), else
    the word itself; a dropped final "g" ("workin") is read too."""
    low = word.lower()
    if len(low) < 5 or low in KEY_WORDS or low in REAL_WORDS or _inflected_key(low):
        return word
    if low.endswith("in") and low + "g" in KEY_WORDS:
        return low + "g"
    near = [k for n in (len(low) - 1, len(low), len(low) + 1) for k in _BY_LENGTH.get(n, ())
            if k[0] == low[0] and one_edit(low, k) and not _inflection(low, k)]
    return near[0] if len(near) == 1 else word


def _fix_word(m: re.Match[str]) -> str:
    word = m.group(0)
    short = _SHORTHAND.get(word.lower())
    return short if short is not None else corrected(word)


# Second-language "not more" for "no longer": "I am not more vegetarian", "I don't work more there".
_NOT_MORE = re.compile(r"\b(am|is|are|'m|'re)\s+(?:not|no)\s+more\b", re.I)
_NO_MORE_IN = re.compile(r"\bno\s+more\s+(?=in\b|at\b|with\b|a\b|an\b)", re.I)


# Words that only announce what follows: "I want to inform you I have relocated to Mombasa" tells of a move, it
# wishes nothing; "been meaning to tell you, I left" reports nothing anyone else said.
_TELLING = re.compile(r"(?:(?<=^)|(?<=[.!?]\s)|(?<=,\s))(?:(?:I\s+)?(?:just\s+|really\s+)?(?:want|wanted|need|needed|"
                      r"have|had|meant)\s+to\s+(?:inform\s+you|tell\s+you|let\s+you\s+know|say|share|mention)|"
                      r"(?:I'?ve\s+)?been\s+meaning\s+to\s+(?:tell\s+you|say|mention))(?:\s+that)?\s*[,:]?\s*", re.I)
# A request ends in "?" but asks nothing: "could you use that from now on?", "can you call me Beth from now on?".
_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:call|use|remember|note|start\s+calling|"
                      r"address|update|keep|put)\b[^?]*?\?", re.I)

# A name asked for as a wish is a request: "I'd like to be called Alexis", "I'd rather you call me Sam".
_NAME_WISH = re.compile(r"\b(?:I'd|I\s+would)\s+(?:like|prefer|love|rather)\s+(?:(?:you\s+)?to\s+|you\s+)?"
                        r"(?:be\s+called|call\s+me|be\s+known\s+as|be\s+addressed\s+as|go\s+by)\b", re.I)
# "guess who lives in denver now", "guess who's a Perth local?": the speaker's news as a riddle.
_GUESS_WHO = re.compile(r"\bguess\s+who(?:'s|\s+is|\s+(lives|works|has|just|finally|got|moved|quit|left|started|joined|"
                        r"became|went))\b(?P<rest>[^.!?]*)(?P<end>\?+)?", re.I)
_GUESS_VERBS = {"lives": "live", "works": "work", "has": "have"}


def _guessed(m: re.Match[str]) -> str:
    verb = m.group(1)
    said = "I'm" if verb is None else "I " + _GUESS_VERBS.get(verb.lower(), verb)
    return said + m.group("rest") + ("." if m.group("end") else "")  # the riddle's "?" asks nothing


def normalise_chat(text: str) -> str:
    text = _WORD.sub(_fix_word, text)
    text = _NOT_MORE.sub(lambda m: f"{m.group(1)} no longer", text)
    text = _TELLING.sub("", _REQUEST.sub(lambda m: m.group(0)[:-1] + ".", _NAME_WISH.sub("please call me", text)))
    text = _GUESS_WHO.sub(_guessed, text)
    return _NO_MORE_IN.sub("no longer ", _DONT_GET_ME_WRONG.sub("", text))


# A discourse marker, no denial: "still love spicy food dont get me wrong".
_DONT_GET_ME_WRONG = re.compile(r",?\s*\b(?:don'?t|do\s+not)\s+get\s+me\s+wrong\b,?", re.I)


# -- quoted words -----------------------------------------------------------------------

_OPEN = re.compile(r"(?:(?<=^)|(?<=[\s:(]))['\"](?=\w)")
_SPOKEN = re.compile(r"(?:\b(?:said|says|say|saying|told|tells|tell|asked|asks|introduced\s+\w+|texted|wrote|"
                     r"shouted|replied|goes|went)\s*,?|:)\s*$", re.I)
_CLOSE = re.compile(r"(?<=[\w.!?,])['\"](?=[\s.,!?;:)]|$)")


def without_quotes(text: str) -> str:
    """Words quoted after a speaking verb or a colon are someone else's (or a phrase mentioned: "how do
    I say 'my name is Peter'"): they never state the user's facts, so they are dropped. A quoted name
    stays, and an apostrophe inside a word is not a quote."""
    out, pos = [], 0
    for opening in _OPEN.finditer(text):
        if opening.start() < pos:
            continue
        closing = _CLOSE.search(text, opening.end())
        if closing is None:
            break
        if _SPOKEN.search(text[max(pos, opening.start() - 40):opening.start()]) is None:
            continue  # a quoted name ("our server is 'gamer zone'") stays
        out.append(text[pos:opening.start()])
        pos = closing.end()
    out.append(text[pos:])
    return "".join(out)
