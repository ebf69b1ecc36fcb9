"""Facts carried over to a new value (``core/carryover``): read before the write transaction opens, planned
and adjudicated with the message's own facts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from engram_core.core.carryover import (
    CARRIED_SLOTS, PASTIMES, carried, new_diet, new_name, new_occupation, new_pastime,
)
from engram_core.core.kin import names_in, own_changed
from engram_core.core.model import Belief, Cardinality, FactDraft
from engram_core.core.slots import belief_slot
from engram_core.usecases.retractions import Outdated, said_with
from engram_core.usecases.runtime import Runtime


def _fills(predicate: str, subject: str, slot: str) -> bool:
    """The predicate holds the slot's value: "lives_in" a home, "band_name" or "name" a name, "hobby" a pastime."""
    if slot == "pastime":
        return predicate in PASTIMES
    if slot == "school" and predicate in ("studies_at", "school"):
        return True
    if slot == "name" and predicate.endswith("_name"):
        return True
    held = belief_slot(predicate, subject)
    return held is not None and held.split(":")[0] == slot


def _new_value(outdated: Outdated, slot: str, text: str, own: Mapping[str, frozenset[str]]) -> str | None:
    """The one new value of the ledger's ``slot`` this message names for the outdated message's slot."""
    old = outdated.memory.text
    if slot in ("pastime", "occupation"):
        return (new_pastime if slot == "pastime" else new_occupation)(text) if outdated.person else None
    if slot == "diet":
        return None if outdated.person else new_diet(own.get("diet", frozenset()), old)
    said = names_in(text) if outdated.person else own.get(outdated.slot, frozenset())
    return new_name(text, old, said, outdated.slot, frozenset(outdated.person.lower().split()))


def _held(rt: Runtime, outdated: Outdated, slot: str) -> list[Belief]:
    """The current facts read with the outdated message that hold the changed slot."""
    return [b for memory in said_with(rt, outdated)[1:] for b in rt.store.beliefs_of_memory(memory.id)
            if b.is_current() and _fills(b.predicate, b.subject, slot)]


def carried_facts(rt: Runtime, outdated: Sequence[Outdated], text: str,
                  drafts: Sequence[FactDraft]) -> tuple[list[FactDraft], list[FactDraft]]:
    """The message's own facts, and the facts carried over from the outdated messages: each current fact of
    one that holds the changed slot, carried to the one new value this message names for it. When the
    message's own fact already holds a new value of one of many ("son hobby: robotics", "pet_dog: Rocky"), it
    replaces the older value instead: only the change says which of many it replaces."""
    own = own_changed(text) if any(not o.person for o in outdated) else {}
    kept, found = list(drafts), dict[tuple[str, str], FactDraft]()
    for item, slot in ((o, slot) for o in outdated for slot in CARRIED_SLOTS.get(o.slot, ())):
        for belief in _held(rt, item, slot):
            key = (belief.subject.lower(), belief.predicate)
            mine = [i for i, d in enumerate(kept)
                    if d.subject.lower() == key[0] and _fills(d.predicate, d.subject, slot)]
            if mine:
                own_fact = kept[mine[0]]
                many = slot == "pastime" or belief.cardinality is not Cardinality.ONE
                if many and not own_fact.replaces and not own_fact.negated \
                        and own_fact.object.lower() != belief.object.lower():
                    kept[mine[0]] = replace(own_fact, replaces=belief.object, carried=True)
                continue
            value = _new_value(item, slot, text, own)
            if value is not None and (draft := carried(belief, value, text)) is not None:
                found.setdefault(key, draft)
    return kept, list(found.values())
