"""Episodes a message retires: when a message states a change, the older words of it stop surfacing.

The ledger retires an old value's belief, and the episodes of the message that stated it
(``writepath._supersede_episodes``). When the old value made no belief ("I've been an
engineer at Northwind for five years", then "today was my first day at Contoso"), or the
message ends something no belief held ("Stopped the intermittent fasting"), the older
episode kept surfacing as current. Here a message that states a change (a new single-valued
belief read in a sentence with a change cue, the speaker saying something of theirs stopped,
a value it names as replaced: "Thursday, not Tuesday", or a sentence saying a value was updated,
with a name or number of its own: "Sorry, Mr. Shah") retires the older episodes of the
same person that it names and is close to in meaning (``restatements.retired_by``). It runs
inside the write's short transaction, after the planned facts are applied: store reads only,
no model call. The episodes are superseded, not deleted: their history and ``recall --as-of``
keep them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import NamedTuple

import numpy as np

from engram_core.core.model import Belief, Cardinality, Memory, MemoryKind, Message, Verdict
from engram_core.core.restatements import (
    _said, changing_sentences, corrected_episode, new_values, people_of, replaced_values, restating_sentences,
    retired_by, speaker_of, updating_sentences,
)
from engram_core.core.kin import kin_changed, kin_named, kin_presumed, names_in, own_changed, own_named
from engram_core.core.retention import RECALLABLE
from engram_core.core.selfcorrection import (
    NEVER_CORRECTED, corrected, may_set_right, sets_something_right, swapped_values,
)
from engram_core.core.slots import SLOT_CHANGED, belief_slot, slots_named
from engram_core.core.stopping import clause_stops, ended_values, stopping_clauses, stopping_sentences
from engram_core.core.words import meaning
from engram_core.usecases.runtime import Runtime
from engram_core.usecases.writeplan import FactPlan

# How close an older episode must be to a change said with no new value read (``restating_sentences``). With
# every change cue ("now", "new") and this floor, LoCoMo evidence recall on the tuning conversations fell from
# 0.873 to 0.779; with the narrow cues, it did not move.
RESTATED_SIMILARITY = 0.55
SEARCHED = 50  # older memories the message's words find, best first: the episodes it could name


def _reads_a_change(plans: Sequence[FactPlan]) -> list[FactPlan]:
    """The plans that make a new current single-valued belief (a filled or replaced slot)."""
    return [p for p in plans if p.belief is not None and p.belief.cardinality is Cardinality.ONE
            and not p.draft.negated and Verdict.DISCARD not in p.verdict_of.values()]


class Trigger(NamedTuple):
    said: str  # the sentences that state the change: what must name the older episode
    besides: frozenset[str]  # the new values' words, which name nothing old
    values: tuple[frozenset[str], ...] = ()  # the values it says it replaces: what the older one must say
    fresh: frozenset[str] = frozenset()  # the values it states: the older one must lack one of them
    ended: tuple[frozenset[str], ...] = ()  # the things it says ended ("retired from Shell"): what names the older one
    least: float = 0.0  # the closeness the older episode needs, when more than the configured one


def _trigger(text: str, plans: Sequence[FactPlan]) -> Trigger | None:
    """What states a change in the message: a new single-valued belief in words that say so ("now",
    "moved", "renamed"; a belief alone is not a change in a chat) or read by a rule whose wording is itself
    a change ("bought a little cottage outside Norwich"), the speaker saying something
    stopped, the message naming the value it replaces ("Thursday, not Tuesday"), or a sentence saying a
    value was updated with a value of its own ("it's Windrush Way now"). None when nothing does."""
    changing = changing_sentences(text)
    changed = [p for p in _reads_a_change(plans) if changing or p.draft.revision]
    if changed:
        return Trigger(changing or _said(text),
                       frozenset().union(*(meaning(p.belief.object) for p in changed if p.belief)))
    stopping = stopping_sentences(text)
    if stopping:
        ended = ended_values(stopping)
        return Trigger(stopping_clauses(stopping), frozenset(), ended=ended) if ended \
            else Trigger(stopping, frozenset())
    values = replaced_values(text)
    if values:
        return Trigger(text, frozenset(), values)
    updating = updating_sentences(text)
    fresh = new_values(updating)
    if fresh:
        return Trigger(updating, frozenset(), fresh=fresh)
    restating = restating_sentences(text)
    return Trigger(restating, frozenset(), least=RESTATED_SIMILARITY) if restating else None


def _recallable_episode(memory: Memory, before: datetime, vector: np.ndarray) -> bool:
    held = memory.embedding.vector if memory.embedding is not None else None
    return (memory.kind is MemoryKind.EPISODE and memory.status in RECALLABLE and memory.created_at < before
            and held is not None and held.shape == vector.shape)


def _older_episodes(rt: Runtime, text: str, vector: np.ndarray, before: datetime) -> list[tuple[Memory, float]]:
    ids = [mid for mid, _ in rt.store.lexical_search(text, SEARCHED)]
    return [(memory, float(np.dot(memory.embedding.vector, vector)))  # type: ignore[union-attr]
            for memory in rt.store.memories_by_ids(ids) if _recallable_episode(memory, before, vector)]


def retired_episodes(rt: Runtime, text: str, vector: np.ndarray, occurred_at: datetime,
                     plans: Sequence[FactPlan], stopped: Sequence[Belief] = ()) -> list[Memory]:
    """The older, still recallable episodes this message retires, given the facts planned from it and
    the beliefs it ends (``stopped_facts``: the episodes that said them name what ended)."""
    if rt.config.retire_similarity > 1.0:
        return []
    trigger = _trigger(text, plans)
    if trigger is None:
        return []
    if stopped:
        trigger = trigger._replace(ended=(*trigger.ended, *(meaning(b.object) for b in stopped)))
    older = _older_episodes(rt, text, vector, occurred_at)
    least = max(rt.config.retire_similarity, trigger.least)
    chosen = set(retired_by(text, trigger.said, older, least, trigger.besides,
                            trigger.values, trigger.fresh, trigger.ended))
    named = trigger.values or replaced_values(text)  # "the 9th of March, not the 4th", whatever else it says
    chosen |= {found} if (found := corrected_episode(text, named, older)) else set()
    return [memory for memory, _ in older if memory.id in chosen]


# How close an older episode of the slot must be to a message whose own words the bookkeeper read as changing
# it: "I'm based in Hobart." and "Packed up and headed to Darwin." are 0.22 apart.
SLOT_SIMILARITY = 0.15
# The words an older episode of each slot says (``slots.SLOT_WORDS`` must find one): what it is searched by,
# since it may share none with the message that changes it.
_SLOT_SEARCH = {
    "home": "live lives living lived home flat apartment house place moved moving based relocated emigrated",
    "employer": "work works working job company employer employed firm hired freelance teach study drive write",
    "occupation": "work works working job student",
    "name": "name named called call calls surname maiden go goes",
    "diet": "vegetarian veggie vegan pescatarian diet keto paleo meat fish dairy gluten carnivore flexitarian "
            "halal kosher fasting fodmap whole30 lactose omnivore low carb sodium fat atkins dash zone mediterranean "
            "raw jain macros eat eats everything anything restrictions",
    "school": "school academy primary elementary college nursery kindergarten preschool",
}


def slot_outdated(rt: Runtime, text: str, vector: np.ndarray, occurred_at: datetime,
                  plans: Sequence[FactPlan]) -> list[tuple[Memory, Belief, str]]:
    """Older episodes of a slot the message changes in words the bookkeeper read as a change ("Just signed a
    lease in Ljubljana!" after "I live in Tartu, Estonia."), though the two share no word: for each such
    slot, the closest older episode of the same speaker that speaks of that slot alone (``slots_named``)
    and does not say the new value, at least ``SLOT_SIMILARITY`` close, with the new belief and the slot.
    They are flagged, not retired: with no word shared the link is the bookkeeper's reading alone, so
    recall keeps them out of answers about now and still has them for "where did I live before?"."""
    if rt.config.retire_similarity > 1.0:
        return []
    changed = {slot: p.belief for p in _reads_a_change(plans)
               if p.belief is not None and p.draft.revision and not p.draft.tentative
               and (slot := belief_slot(p.belief.predicate, p.belief.subject)) is not None}
    if not changed:
        return []
    speaker, chosen = speaker_of(text), {}
    words = " ".join(_SLOT_SEARCH.get(slot.split(":")[0], slot.split(":")[0]) for slot in changed)
    older = {m.id: (m, cosine) for query in (words, text)  # the slot's words, or the message's own
             for m, cosine in _older_episodes(rt, query, vector, occurred_at)}
    found = sorted(older.values(), key=lambda pair: -pair[1])
    for memory, cosine in found:  # the closest first
        if cosine < SLOT_SIMILARITY or memory.critical or speaker_of(memory.text) != speaker:
            continue
        named = slots_named(memory.text)
        slot = next(iter(named), None) if len(named) == 1 else None
        if slot in changed and slot not in chosen \
                and not meaning(changed[slot].object) <= meaning(_said(memory.text)):
            chosen[slot] = memory
    return [(memory, changed[slot], slot) for slot, memory in chosen.items()]


# The words an older message may call a person by: what it is searched by ("Mom became a school principal." finds
# "My mother is a nurse.").
_SAID_AS = {"mum": "mum mom mother mummy mommy mama", "dad": "dad father daddy papa", "grandma": "grandma gran granny "
            "nan nana grandmother", "sister": "sister sis", "brother": "brother bro", "husband": "husband hubby"}
# How close an older message about a person must be to one that says that person's slot changed: "My dad is an
# accountant." and "Dad retired and teaches yoga." are 0.42 apart, "My husband drives an old Ford" and a
# Tesla 0.31.
KIN_SIMILARITY = 0.25
# The speaker's own slot, named with another name in a short older message: the names and the slot's words
# are the link, and "Our new neighbours in Utrecht brought us a cake." is 0.11 from "I live in Boston.".
OWN_SIMILARITY = 0.05


class Outdated(NamedTuple):
    memory: Memory  # the older episode
    person: str  # whose slot changed: "" for the speaker's own
    slot: str  # "home", "work", "school", "pastime", "car", "diet", "name"

    @property
    def reason(self) -> str:
        return SLOT_CHANGED + (f"{self.slot} ({self.person})" if self.person else self.slot)


def kin_outdated(rt: Runtime, text: str, vector: np.ndarray, occurred_at: datetime) -> list[Outdated]:
    """Older short episodes of the same speaker about a person whose slot this message says changed
    (``core/kin``: "My brother works in Dubai.", then "My brother got transferred to Doha."), the closest
    for each person and slot, at least ``KIN_SIMILARITY`` close (the speaker's own slot: ``OWN_SIMILARITY``),
    with the slot and the person. Flagged, not retired: the link is read from plain words, so recall keeps them
    for questions about the past; their facts may be carried over to the new value (``usecases/carryover``)."""
    changed, own, presumed = kin_changed(text), own_changed(text), kin_presumed(text)
    if not (changed or own or presumed) or rt.config.retire_similarity > 1.0:
        return []
    speaker, chosen = speaker_of(text), dict[tuple[str, str], Memory]()
    people = {person for person, _ in (*changed, *presumed)}
    words = " ".join([*(_SAID_AS.get(person, person) for person in sorted(people)),
                      *(_SLOT_SEARCH["employer" if slot == "work" else slot] for slot in own)])
    found = sorted(_older_episodes(rt, words, vector, occurred_at), key=lambda pair: -pair[1])
    for memory, cosine in found:  # the closest first
        if cosine < OWN_SIMILARITY or memory.critical or speaker_of(memory.text) != speaker:
            continue
        named = kin_named(memory.text) if cosine >= KIN_SIMILARITY else frozenset()
        pairs = (named & changed) | _presumed_outdated(memory.text, named, presumed)
        for pair in sorted(pairs | _own_outdated(memory.text, own)):
            chosen.setdefault(pair, memory)
    return [Outdated(memory, person, slot) for (person, slot), memory in sorted(chosen.items())]


def as_outdated(memory: Memory, slot: str) -> Outdated:
    """A slot of the ledger's ("employer:sister") as the person and plain slot an outdated episode is of."""
    base, _, person = slot.partition(":")
    return Outdated(memory, person, "work" if base in {"employer", "occupation"} else base)


# The beliefs of the speaker's own slot, by the ledger's slots (``slots.belief_slot``).
_OWN_BELIEF_SLOTS = {"home": {"home"}, "work": {"employer", "occupation"}, "name": {"name"}, "diet": {"diet"}}


def said_with(rt: Runtime, outdated: Outdated) -> list[Memory]:
    """An outdated episode and the recallable facts read from the same message that hold its slot: of a
    person, all but who they are ("The user's son is named Leo" holds whatever he took up), unless the
    name is what changed; of the speaker's own, the facts of that slot ("lives in Lyon", not "has a dog")."""
    def holds_slot(belief: Belief) -> bool:
        if outdated.person:
            return outdated.slot == "name" or not IDENTITY.match(belief.predicate)
        slot = "diet" if belief.predicate == "eats" else belief_slot(belief.predicate, belief.subject)
        return slot is not None and slot.split(":")[0] in _OWN_BELIEF_SLOTS.get(outdated.slot, ())
    memory = outdated.memory
    return [memory, *(m for mid in memory.provenance for m in rt.store.memories_from_message(mid)
                      if m.id != memory.id and m.status in RECALLABLE
                      and all(holds_slot(b) for b in rt.store.beliefs_of_memory(m.id)))]


def _presumed_outdated(old: str, named: frozenset[tuple[str, str]],
                       presumed: Mapping[tuple[str, str], frozenset[str]]) -> frozenset[tuple[str, str]]:
    """The slots of a person an older text names with a name the newer one, taking a new value for granted
    ("Tomasz's flat in Dublin"), does not say ("My brother Tomasz lives in Krakow.")."""
    said = names_in(old)
    return frozenset(pair for pair in named if pair in presumed
                     and said - presumed[pair] - {pair[0]} and presumed[pair] - said)


def _own_outdated(old: str, own: Mapping[str, frozenset[str]]) -> frozenset[tuple[str, str]]:
    """The speaker's own slots an older text names with a name the newer one does not say, while the newer
    one says a name the older does not ("I work at Toyota.", then "I'm with Honda as of Monday.")."""
    return frozenset(("", slot) for slot, names in own_named(old).items()
                     if slot in own and names - own[slot] and own[slot] - names)


# What a stop never ends by naming it: who someone is ("Tom quit rugby" ends no "son: Tom"), nor a health fact.
IDENTITY = re.compile(r"^(?:family_|pet_|allergy|intolerance|medical_condition|name$|\w+_name$)")


def _stop_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of the clauses that say something stopped, and the words the message says elsewhere."""
    clauses = [c for c in re.split(r",\s*", stopping_sentences(text)) if clause_stops(c)]
    stopping = meaning(" ".join(clauses))
    return stopping, meaning(text) - stopping


def _named_as_stopped(belief: Belief, stopping: frozenset[str], elsewhere: frozenset[str]) -> bool:
    return (belief.is_current() and not belief.predicate.startswith("not:") and not IDENTITY.match(belief.predicate)
            and bool(meaning(belief.object) & stopping) and not meaning(_DOING.sub("", belief.object)) & elsewhere)


# The doing before a liked thing: "to read fantasy books" is still read of in "Now I read only crime novels, the
# fantasy is not for me anymore"; the thing (fantasy books) is what must not be said elsewhere.
_DOING = re.compile(r"^(?:to\s+\w+|\w+ing)\s+(?=\w)", re.I)


def stopped_beliefs(rt: Runtime, text: str, retired: Sequence[Memory]) -> list[Belief]:
    """The current beliefs read from the episodes a message retired that its stopping sentences name
    ("I love horror films and jazz.", then "Can't watch horror anymore": horror films, not jazz).
    A critical episode (an allergy) is never retired, so its facts never end here; nor does a value
    the message also says still holds ("Not raw anymore, still vegan though" ends no "raw vegan")."""
    stopping, elsewhere = _stop_words(text)
    if not stopping:
        return []
    found: dict[str, Belief] = {}
    for memory in retired:
        for message_id in memory.provenance:
            for belief in rt.store.beliefs_from_message(message_id):
                if _named_as_stopped(belief, stopping, elsewhere):
                    found[belief.id] = belief
    return list(found.values())


def stopped_facts(rt: Runtime, text: str, vector: np.ndarray, before: datetime) -> list[Belief]:
    """Current beliefs held as facts alone (the message that said them kept no episode of its own: "I love
    sushi.") that a stop names, of the same person: "Sushi grosses me out now" ends "likes sushi". Only
    facts close in meaning (``retire_similarity``), never a critical one, nor a name or a relation."""
    stopping, elsewhere = _stop_words(text)
    if not stopping or rt.config.retire_similarity > 1.0:
        return []
    whose = _subjects(stopping_sentences(text), speaker_of(text))
    found: dict[str, Belief] = {}
    for memory in rt.store.memories_by_ids([mid for mid, _ in rt.store.lexical_search(text, SEARCHED)]):
        held = memory.embedding.vector if memory.embedding is not None else None
        if (memory.kind not in _HELD_AS_FACTS or memory.critical or memory.status not in RECALLABLE
                or memory.created_at >= before or held is None or held.shape != vector.shape
                or float(np.dot(held, vector)) < rt.config.retire_similarity):
            continue
        for belief in rt.store.beliefs_of_memory(memory.id):
            if belief.subject.lower() in whose and _named_as_stopped(belief, stopping, elsewhere):
                found[belief.id] = belief
    return list(found.values())


_HELD_AS_FACTS = (MemoryKind.FACT, MemoryKind.PREFERENCE)
_SUBJECT_OF = {"mum": "mother", "dad": "father"}


def _subjects(said: str, speaker: str) -> frozenset[str]:
    """Whose beliefs a stop may end: the speaker's own, or those of the people its clauses name."""
    named = people_of(said) - {"someone"}
    if not named:
        return frozenset({speaker})
    return frozenset(_SUBJECT_OF.get(who, who) for who in named)


RECENT_LOOKED_AT = 4  # a correction sharing no word with what it sets right ("I'm 34", then "Wait, I'm 35 actually")


def _recent_messages(rt: Runtime, last: Message | None, count: int) -> list[Message]:
    """The speaker's ``count`` latest messages before this one, newest first, from the previous one (``last``)."""
    found: list[Message] = []
    while last is not None and len(found) < count:
        found.append(last)
        last = rt.store.previous_message(last.role, last.speaker, last.occurred_at)
    return found


def self_corrected(rt: Runtime, text: str, vector: np.ndarray, message: Message
                   ) -> tuple[Memory, tuple[Belief, ...]] | None:
    """The older episode a message sets right without naming the old value ("oops I meant three kids"), and
    the facts of it that end (``core/selfcorrection``); None when the message sets nothing right. The
    speaker's previous message is looked at too, though it shares no word with this one ("My surname is
    spelled Thomson.", then "Sorry, it's Thompson with a p.")."""
    if rt.config.retire_similarity > 1.0 or not may_set_right(text):
        return None
    speaker = speaker_of(text)
    found = _older_episodes(rt, text, vector, message.occurred_at)
    previous = rt.store.previous_message(message.role, message.speaker, message.occurred_at)
    seen = {memory.id for memory, _ in found}
    found += [(memory, float(np.dot(memory.embedding.vector, vector)))  # type: ignore[union-attr]
              for earlier in _recent_messages(rt, previous, RECENT_LOOKED_AT)
              for memory in rt.store.memories_from_message(earlier.id)
              if memory.id not in seen and _recallable_episode(memory, message.occurred_at, vector)]
    older = [(memory, cosine, [b for m in memory.provenance for b in rt.store.beliefs_from_message(m)
                               if b.is_current()])
             for memory, cosine in found if speaker_of(memory.text) == speaker]
    said_before = rt.store.memories_from_message(previous.id) if previous is not None else []
    return corrected(text, older, frozenset(m.id for m in said_before))


def swapped_beliefs(rt: Runtime, text: str, retired: Sequence[Memory]) -> list[Belief]:
    """The current beliefs read from episodes a correction retired that hold a value it says anew ("My
    daughter's name is Ellie.", then "I spelled it wrong, it's Elly.": the daughter called Ellie), but a
    health fact, which only words that name it end."""
    if not sets_something_right(text):
        return []
    found: dict[str, Belief] = {}
    for memory in retired:
        gone = swapped_values(memory.text, text)
        for belief in (b for m in memory.provenance for b in rt.store.beliefs_from_message(m)) if gone else ():
            if belief.is_current() and not NEVER_CORRECTED.match(belief.predicate) \
                    and any(v in belief.object.lower() for v in gone):
                found[belief.id] = belief
    return list(found.values())
