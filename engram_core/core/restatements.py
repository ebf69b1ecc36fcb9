"""When a newer memory retires an older one of the same person: on the write path, and at recall.

On the write path (``retired_by``, applied by ``usecases/retractions``): a message that states a
change, in a sentence that names an older episode ("Stopped the intermittent fasting"; "Thursday,
not Tuesday"), supersedes it. On by default.

The write path retires an old value whenever the bookkeeper can tell it changed. When it cannot
("Sydney's home now, moved up on the weekend" after "I'm living in Melbourne"), both episodes stay
and the old one would keep surfacing as current. Here, among recall's candidates, a newer memory
that restates the same slot (the same person, and close in meaning: the embedding, not a template)
and carries a change cue ("now", "anymore", "switched", "no longer", "gave up", "started") keeps the
older one out of the block (``restated``, ``retracted``: both off by default, for what they cost
real conversations). Memories flagged as possibly stale (``dependents``) are ranked lower.

Pure: recall applies them once to its candidate pool, with the open reviews it reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Protocol, Self, TypeVar

import numpy as np

from engram_core.core.chattext import normalise_chat
from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind
from engram_core.core.words import meaning


class Scored(Protocol):
    """A recall candidate: its memory's id and its score (a named tuple, so ``_replace`` makes a changed copy)."""

    @property
    def id(self) -> str: ...

    @property
    def score(self) -> float: ...

    def _replace(self, *, score: float) -> Self: ...


S = TypeVar("S", bound=Scored)

CHANGE_CUE = re.compile(
    r"\b(?:now|anymore|any\s+more|any\s+longer|no\s+longer|switched|gave\s+up|given\s+up|started|moved|"
    r"relocated|renamed|rebranded|quit|left|joined|changed|instead|these\s+days|nowadays|stopped|"
    r"not\s+(?:\w+ing\s+)?(?:more|into)|new(?!\s+(?-i:[A-Z]))|from\s+now\s+on|actually|correction|typo|I\s+mean|"
    r"I\s+meant|mistake)\b", re.I)
# "Also", "too", "as well": a value added beside the old one, not instead of it.
ADDITIVE_CUE = re.compile(r"\b(?:also|too|as\s+well|another|second|both|additionally|plus|besides)\b", re.I)
# A speaker's name: up to three capitalised words ("Caroline: ..."), not a clause ("The bank wrote me: ...").
# A label opening a message is no speaker: "Correction: it lands at 8:15 pm", "Update: ...", "PS: ...".
_LABELS = (r"(?:Correction|Update|Note|Edit|FYI|Fyi|PS|P\.S\.|Ps|Btw|BTW|Reminder|Question|Also|Important|Warning|"
           r"Oops|Sorry|Actually|News|Anyway|Ok|Okay|Heads\s+up|Plot\s+twist|Quick\s+\w+|Small\s+\w+|Big\s+\w+)")
_SPEAKER = re.compile(r"^(?!" + _LABELS + r":)(?P<who>(?-i:[A-Z][\w.'-]*)(?:\s(?-i:[A-Z][\w.'-]*)){0,2}):\s")
_PEOPLE = re.compile(
    r"\b(?:my|our|his|her|the)\s+(?:\w+\s+)?(?P<who>wife|husband|partner|boyfriend|girlfriend|bf|gf|son|daughter|kids?|"
    r"children|mom|mum|mother|dad|father|papa|mama|brother|sister|sis|bro|hubby|parents|grand\w+|gran|granny|nan|nana|"
    r"aunt|uncle|cousin|niece|nephew|"
    r"friend|boss|colleague|roommate|flatmate|neighbou?r|teacher|dog|cat|in-laws?|mate|bestie|buddy|pal|bff|"
    r"co-?worker|workmate|classmate|housemate|fianc\w*|step(?:mom|mum|dad|son|daughter|brother|sister)|twin|"
    r"landlord|landlady|ex)\b", re.I)
# A relation opening a sentence stands for the speaker's own, with no "my": "Mum retired at last".
_RELATIONS = (r"mum|mom|dad|mother|father|grand\w+|gran|granny|nan|nana|husband|hubby|wife|sister|sis|brother|bro|"
              r"son|daughter|boyfriend|girlfriend")
_BARE_RELATION = re.compile(r"(?:^|[.!?;]\s+)(?P<who>" + _RELATIONS + r")(?:'s)?\s+(?-i:[a-z])", re.I)
_ALIASES = {"sis": "sister", "bro": "brother", "hubby": "husband", "gran": "grandma", "granny": "grandma",
            "nan": "grandma", "nana": "grandma", "mom": "mum", "mother": "mum", "father": "dad", "papa": "dad",
            "mama": "mum", "bf": "boyfriend", "gf": "girlfriend"}
_OTHER_PRONOUN = re.compile(r"\b(?:he|she|he's|she's|they're)\b", re.I)


def speaker_of(text: str) -> str:
    m = _SPEAKER.match(text)
    return m.group("who").lower() if m else "user"


def _speaker(memory: Memory) -> str:
    if memory.kind is not MemoryKind.EPISODE:
        return (memory.subject or "user").lower()
    return speaker_of(memory.text)


_SOMEONE = "someone"


def people_of(text: str) -> frozenset[str]:
    """Whom a text is about besides its speaker: "my sister", "my boss"; a bare "she" is someone, whoever.
    (Names are left out: "Globex" is capitalised too.)"""
    text = normalise_chat(text)
    found = {m.group("who").lower() for m in _PEOPLE.finditer(text)}
    found |= {m.group("who").lower() for m in _BARE_RELATION.finditer(text)}
    found = {_ALIASES.get(who, who) for who in found}
    return frozenset(found or ({_SOMEONE} if _OTHER_PRONOUN.search(text) else set()))


def same_people(a: frozenset[str], b: frozenset[str]) -> bool:
    """Both about the speaker alone, or both about someone they share (a bare "she" shares anyone)."""
    if not a or not b:
        return a == b
    return bool(a & b) or _SOMEONE in a or _SOMEONE in b


def states_a_change(memory: Memory) -> bool:
    return text_states_a_change(memory.text)


def text_states_a_change(text: str) -> bool:
    return (CHANGE_CUE.search(text) is not None and ADDITIVE_CUE.search(text) is None
            and not text.rstrip().endswith("?"))


def _retirable(memory: Memory, belief: Belief | None) -> bool:
    """Raw episodes, and single-valued facts the ledger may have missed; never a critical memory."""
    if memory.critical:
        return False
    if memory.kind is MemoryKind.EPISODE:
        return True
    return memory.kind is MemoryKind.FACT and belief is not None and belief.cardinality is Cardinality.ONE


def restated(memories: list[tuple[Memory, Belief | None]], vectors: np.ndarray, least_similarity: float,
             changes: Sequence[bool] | None = None) -> set[str]:
    """Ids of memories a newer, change-cued memory of the same person and slot restates (pure).

    ``changes`` may give ``states_a_change`` of each memory, worked out before (recall keeps it per memory).
    Whom a text is about is worked out only for pairs close enough in meaning: over 400 candidates it
    was most of a recall (docs/benchmarks.md, section 4).
    """
    if least_similarity > 1.0:  # unit vectors are never closer than 1: the veto is off (the default)
        return set()
    flags = changes if changes is not None else [states_a_change(m) for m, _ in memories]
    newer = [i for i, changed in enumerate(flags) if changed]
    if not newer:
        return set()
    close = vectors @ vectors[newer].T >= least_similarity
    keys: dict[int, tuple[str, frozenset[str]]] = {}

    def key(i: int) -> tuple[str, frozenset[str]]:
        if i not in keys:
            keys[i] = (_speaker(memories[i][0]), people_of(memories[i][0].text))
        return keys[i]
    drop = set()
    for i, column in zip(*(axis.tolist() for axis in np.nonzero(close)), strict=True):
        old, belief = memories[i]
        j = newer[column]
        if old.id in drop or j == i or not _retirable(old, belief) or memories[j][0].created_at <= old.created_at:
            continue
        if key(i)[0] == key(j)[0] and same_people(key(i)[1], key(j)[1]):
            drop.add(old.id)
    return drop


# The narrow cue: the speaker says something stopped being so ("no longer", "anymore", "quit", "stopped").
RETRACTION_CUE = re.compile(
    r"\b(?:anymore|any\s+more|any\s+longer|no\s+longer|no\s+more|gave\s+up|given\s+up|giving\s+up|quit|quitted|stopped|"
    r"not\s+\w+(?:ing)?\s+(?:any\s*)?more)\b", re.I)
# Not "used to": in real chats it opens a recollection ("I used to go camping with my dad"), not a change;
# with it, LoCoMo evidence recall on the tuning conversations fell from 0.782 to 0.778.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
RETRACTION_ANCHORS = 2  # content words the retraction must share with what it retracts (or one name)


def retracts(memory: Memory) -> bool:
    """Whether a text says something stopped being so: a change cue of the narrow kind, not a question."""
    return states_a_change(memory) and RETRACTION_CUE.search(memory.text) is not None


def _said(text: str) -> str:
    """The text without its speaker prefix ("Caroline: ..."), which every turn of that speaker shares."""
    found = _SPEAKER.match(text)
    return text[found.end():] if found else text


def _anchored(old: str, new: str, besides: frozenset[str] = frozenset(), least: int = RETRACTION_ANCHORS) -> bool:
    """The retraction names what it retracts: two content words of the older text, or one name in it
    (words of ``besides``, the new value, do not count: naming the new value is not naming the old one)."""
    old_said, new_said = _said(old), _said(new)
    if len((meaning(old_said) & meaning(new_said)) - besides) >= least:
        return True
    names = {n for n in set(_NAME.findall(old_said)) & set(_NAME.findall(new_said)) if n.lower() not in besides}
    return bool(names)


def retracted(memories: list[tuple[Memory, Belief | None]], vectors: np.ndarray, least_similarity: float,
              retractions: Sequence[bool]) -> set[str]:
    """Ids of older memories a newer one of the same person retracts, pure: "Stopped the intermittent
    fasting" retires "I'm doing intermittent fasting."; "I don't work at the Hilton anymore" retires the
    day at the Hilton's front desk.

    Narrower than ``restated``, yet still off by default (it cost held-out LoCoMo evidence recall, docs/benchmarks.md
    section 2a): the newer text says something stopped
    ("no longer", "anymore", "quit", "stopped", "not working more"), names what the older one said (two
    of its content words, or a name), and the two are close in meaning."""
    newer = [i for i, retracting in enumerate(retractions) if retracting]
    if not newer:
        return set()
    close = vectors @ vectors[newer].T >= least_similarity
    drop: set[str] = set()
    for i, column in zip(*(axis.tolist() for axis in np.nonzero(close)), strict=True):
        old, belief = memories[i]
        new = memories[newer[column]][0]
        if old.id in drop or new.id == old.id or not _retirable(old, belief) or new.created_at <= old.created_at:
            continue
        if _speaker(old) == _speaker(new) and same_people(people_of(old.text), people_of(new.text)) \
                and _anchored(old.text, new.text):
            drop.add(old.id)
    return drop


_NOT_AFTER_TITLE = r"(?<!\b(?:Mr|Ms|Dr|St))(?<!\bMrs)"  # "Mr." ends no sentence
_CLAUSES = re.compile(_NOT_AFTER_TITLE + r"[.!?;]+\s*")
_ENDS = re.compile(_NOT_AFTER_TITLE + r"([.!?;]+)\s*")  # the same, keeping each stop
RETIRED_PER_MESSAGE = 2  # a change retracts what was said of it, not a whole topic: the closest few


def changing_sentences(text: str) -> str:
    """The sentences that state a change (``text_states_a_change``); empty when there are none."""
    return " ".join(c for c in _CLAUSES.split(_said(text)) if c.strip() and text_states_a_change(c))


# A change said with no new value read ("..., I watch comedies instead", "I've switched to supporting Spurs"):
# only these cues, since "now", "new" and "these days" fill real chats ("I appreciate the little things,
# especially these days"); ``usecases/retractions`` asks for a closer episode.
_RESTATING = re.compile(r"\b(?:instead(?!\s+of\b)|switched)\b", re.I)


def restating_sentences(text: str) -> str:
    """The sentences that state a change with one of the narrow ``_RESTATING`` cues; empty when none do."""
    return " ".join(c for c in _statements(_said(text)) if text_states_a_change(c) and _RESTATING.search(c))


# How a message names the value it replaces: "Thursday, not Tuesday", "left Accenture for Capgemini",
# "traded in the Civic for a Tesla",
# "moved from the NHS to Bupa", "instead of X", "Northgate Primary became ...", "renamed the cat ...".
# After "not", only a value-like word (capitalised, or with a digit): "not bad", "not sure" name nothing.
_OLD = r"(?:the\s+|a\s+|an\s+|my\s+|our\s+)?(?P<old>[\w'&-]+(?:\s+(?!(?:for|to|and|but|now|anymore)\b)[\w'&-]+){0,2}?)"
_REPLACING = (
    re.compile(r"\bnot\s+(?:the\s+|a\s+|an\s+|my\s+)?(?P<old>(?-i:[A-Z][\w'&-]*|[\w:/-]*\d[\w:/-]*)"
               r"(?:\s+(?-i:[A-Z][\w'&-]*))*)", re.I),
    re.compile(r"\b(?:left|quit)\s+" + _OLD + r"\s+for\b", re.I),
    re.compile(r"\b(?:traded|swapped|exchanged|replaced)\s+(?:in\s+)?" + _OLD + r"\s+(?:for|with)\b", re.I),
    re.compile(r"\b(?:moved|switched|changed|went|transferred|upgraded)\s+from\s+" + _OLD + r"\s+to\b", re.I),
    re.compile(r"\binstead\s+of\s+" + _OLD + r"(?=\s*(?:$|[,.;!]))", re.I),
    re.compile(r"(?:^|[,;]\s*)" + _OLD + r"\s+(?:became|turned\s+into|is\s+now\s+called|got\s+renamed)\b", re.I),
    re.compile(r"\b(?:renamed|rebranded)\s+" + _OLD + r"\s+(?:to|as)\b", re.I),
)


_VALUE = re.compile(r"(?<![.!?]\s)(?<!^)\b(?-i:[A-Z][\w'&-]+)|\b[\w:/-]*\d[\w:/-]*")
# What says a value was updated or set right, on its own: a correction ("Sorry, ...", "I mean", "typo"), a
# rename, a move, or a value said to hold "now" at the end of its clause ("I'm at Arup now").
UPDATE_CUE = re.compile(
    r"^\W*sorry\W*$|\b(?:oops|typo|I\s+mean|I\s+meant|correction|nvm|never\s*mind|misread|wrong|mixed\s+(?:\w+\s+)?up|"
    r"renamed|rebranded|renaming|new\s+name|changed\s+(?:the|my|our|its|his|her)\s+(?:\w+\s+)?(?:name|to)|"
    r"moved\s+(?:back\s+)?(?:to|in(?:to)?)|officially|switched\s+to|(?:first|last)\s+day\s+(?:at|in|with)|"
    r"now\s+(?:I|I'm|I\s+am|we|we're|it|it's|its|he|she|they)|(?:left|quit)\s+(?-i:[A-Z])|"
    r"(?:moved|pushed|pulled|brought|rescheduled|shifted|changed)\s+(?:the|our|my|his|her|their)\s+(?:\w+\s+)?\w+\s+"
    r"(?:to|till|until|forward|back))\b"
    r"|\b\w+\s+now\s*(?:$|[,.;!])"
    r"|^\W*make\s+(?:it|that)\s+(?=\d|the\s+\d|(?-i:[A-Z]))", re.I)  # "Make it 9pm", opening its clause
_COMMAS = re.compile(r",\s*")


def updating_sentences(text: str) -> str:
    """The sentences that say a value was updated or set right (``UPDATE_CUE``); empty when none do."""
    return " ".join(c for c in _statements(_said(text))
                    if any(UPDATE_CUE.search(p) and ADDITIVE_CUE.search(p) is None for p in _COMMAS.split(c)))


def _statements(text: str) -> list[str]:
    """The sentences of a text that are not questions, without their stops."""
    parts = _ENDS.split(text)  # sentence, its stop, sentence, its stop, ...
    return [part.strip() for part, end in zip(parts[::2], [*parts[1::2], ""], strict=True)
            if part.strip() and "?" not in end]


def new_values(said: str) -> frozenset[str]:
    """The value-like words of ``said``: names and numbers ("Kumasi", "4417")."""
    return frozenset().union(*(meaning(m.group(0)) for m in _VALUE.finditer(said)))


def replaced_values(text: str) -> tuple[frozenset[str], ...]:
    """The words of each value the text says it replaces (``_REPLACING``); none in a question."""
    said = _said(text)
    if said.rstrip().endswith("?"):
        return ()
    found = (meaning(m.group("old")) for pattern in _REPLACING for m in pattern.finditer(said))
    return tuple(words for words in found if words)


# Setting one's own words right: "Sorry I meant the 13th, not the 3rd" corrects the newest message that said
# the 3rd, however little else the two share (cosine 0.27 for that pair).
CORRECTION_CUE = re.compile(r"\b(?:sorry|oops|whoops|typo|I\s+mean|I\s+meant|correction|my\s+bad|mixed\s+(?:\w+\s+)?up|"
                            r"wrong|misread|scratch\s+that)\b", re.I)


def corrected_episode(text: str, values: Sequence[frozenset[str]], older: Sequence[tuple[Memory, float]]) -> str | None:
    """The id of the newest older episode of the same speaker that says a value a correction names as
    replaced, or None: only a message that sets something right ("sorry", "I meant", "typo") and names
    the old value ("not the 3rd") reaches past the closeness ``retired_by`` asks for."""
    if not values or CORRECTION_CUE.search(_said(text)) is None:
        return None
    speaker = speaker_of(text)
    saying = [old for old, _ in older if old.kind is MemoryKind.EPISODE and not old.critical
              and _speaker(old) == speaker and _says_one(old.text, values)]
    return max(saying, key=lambda m: m.created_at).id if saying else None


def retired_by(text: str, said: str, older: Sequence[tuple[Memory, float]], least_similarity: float,
               besides: frozenset[str] = frozenset(), values: Sequence[frozenset[str]] = (),
               fresh: frozenset[str] = frozenset(), ended: Sequence[frozenset[str]] = ()) -> list[str]:
    """Ids of the older raw episodes that a newer message stating a change retires, pure: of the same
    person and the people they are about, close in meaning (``older`` pairs each with its cosine to the
    message ``text``) and named by ``said``, the sentences of it that state the change (``_anchored``;
    neither the new value's words nor a speaker's name count, since people in a chat call each other by
    name: a long turn shares words with many older ones by chance); the closest ``RETIRED_PER_MESSAGE``.
    With ``values`` (``replaced_values``), the older episode must say one of them instead, and may be about
    other people too: a value named as replaced is evidence enough ("the White Hart, not the Red Lion").

    With ``fresh`` (``new_values`` of ``updating_sentences``), the older episode must lack one of those
    values, and one shared content word names it (the slot: "street", "cat"); one also suffices for an
    older episode at least ``CLOSE_SIMILARITY`` close ("I'm doing Whole30.", then "Whole30's over").

    The write path asks only when the bookkeeper read a change in the message (a new single-valued
    belief in words that state a change), the speaker says something stopped (``stopping_sentences``),
    the message names the value it replaces, or it says a value was updated (``updating_sentences``);
    the recall-time rules above ask of any change cue, and cost real conversations their evidence.

    With ``ended`` (``stopping.ended_values``: "retired from Shell", "my last day at Google"), an older
    episode of the same people that says the thing ended is named, ``ENDED_SLACK`` further in meaning."""
    speaker, people = speaker_of(text), people_of(text)
    names = besides | {_speaker(old) for old, _ in older} | {speaker}
    found = [(cosine, old.id) for old, cosine in older
             if old.kind is MemoryKind.EPISODE and not old.critical and _speaker(old) == speaker
             and (_ends_it(old.text, said, ended, cosine, least_similarity)
                  or (cosine >= least_similarity
                      and (same_people(people_of(old.text), people) or _named_person(old.text, text) or bool(values))
                      and (_says_one(old.text, values) if values
                           else _names_it(old.text, said, text, cosine, names, bool(fresh)))
                      and (not fresh or bool(fresh - meaning(_said(old.text))))))]
    return [mid for _, mid in sorted(found, reverse=True)[:RETIRED_PER_MESSAGE]]


ENDED_SLACK = 0.15  # a thing named as ended ("last day at Google") reaches this much further than other words


def _ends_it(old: str, said: str, ended: Sequence[frozenset[str]], cosine: float, least_similarity: float) -> bool:
    """The older text says a thing ``said`` names as ended, of the same people as the clauses that end it."""
    return (bool(ended) and cosine >= least_similarity - ENDED_SLACK and _says_one(old, ended)
            and (same_people(people_of(old), people_of(said)) or _named_person(old, said)))


CLOSE_SIMILARITY = 0.55  # a short chat turn this close to the change shares only the slot's word with it


_CAPITALISED = re.compile(r"\b(?-i:[A-Z][a-z]+)\b")


def _names_it(old: str, said: str, text: str, cosine: float, names: frozenset[str], fresh: bool) -> bool:
    """One shared content word names the older episode when the change states a new value (the slot's
    word: "street"), or when the two are very close in meaning ("I'm doing Whole30." and "Whole30's
    over") and the word is no one's name ("Jon, I stopped the salsa classes"); two otherwise, since a
    long turn shares a word with many older ones by chance."""
    if _anchored(old, said, names, 1 if fresh else RETRACTION_ANCHORS):
        return True
    if cosine < CLOSE_SIMILARITY:
        return False
    called = frozenset().union(*(meaning(w) for w in _CAPITALISED.findall(f"{_said(old)} {_said(text)}")))
    return len((meaning(_said(old)) & meaning(_said(said))) - names - called) >= 1


_NAMED = re.compile(_PEOPLE.pattern + r",?\s+(?P<name>(?-i:[A-Z][\w'-]+))", re.I)


def _named_person(old: str, new: str) -> bool:
    """The newer text calls by name someone the older one introduced ("my cousin Ravi", then "Ravi
    graduated"): the same person, though the newer one says no "my cousin"; not when the newer text is about
    someone else it names by relation ("his friend Diego switched to basketball, Mateo says no")."""
    named = {m.group("name") for m in _NAMED.finditer(_said(old))}
    others = people_of(new) - people_of(old) - {_SOMEONE}  # "his friend Diego switched ..., Mateo says ..."
    return bool(named) and not others and any(re.search(rf"\b{re.escape(n)}\b", _said(new)) for n in named)


def _says_one(text: str, values: Sequence[frozenset[str]]) -> bool:
    said = meaning(_said(text))
    return any(words <= said for words in values)


def demoted(candidates: list[S], flagged: Mapping[str, str], factor: float) -> list[S]:
    """Candidates (named tuples with ``id`` and ``score``), the flagged ones' scores times ``factor``."""
    return [c._replace(score=round(c.score * factor, 6)) if c.id in flagged else c for c in candidates]
