"""Memories that depend on a superseded value: flagged for review, never changed on the engine's own say.

When "lives in Lisbon" becomes "lives in Madrid", "my dentist in Lisbon" and "the tram to work
takes 20 minutes" may no longer hold. They name the old value, or were said about it while it
held (the commute, the office, the neighbourhood). Such current memories are flagged as possibly
stale: recall ranks them lower, and the next dream proposal lists each one for the person to
confirm (keep it, as it is) or forget. Nothing else about them changes without that approval.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engram_core.core.ledger import value_words
from engram_core.core.model import Belief, Event, EventKind, Memory, MemoryKind, MemoryStatus
from engram_core.usecases.runtime import Runtime

# What is said about where one lives or works without naming the place.
_ABOUT = {
    "lives_in": frozenset("commute commuting tram bus metro subway train neighbour neighbor neighbourhood "
                          "neighborhood local street flat apartment rent landlord landlady dentist doctor gp gym "
                          "nearby walk block downstairs upstairs".split()),
    "works_at": frozenset("office boss manager colleague colleagues coworker coworkers team commute commuting shift "
                          "shifts salary desk canteen payroll standup badge".split()),
}
_SEARCH_LIMIT = 100


@dataclass(frozen=True)
class Dependent:
    memory: Memory
    reason: str


def _names(text: str, value: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(value.strip()) + r"(?!\w)", text, re.I) is not None


def _speaks_for(memory: Memory, subject: str) -> bool:
    """A fact of the same subject, or an episode in that person's own words."""
    if memory.kind is MemoryKind.EPISODE:
        return subject == "user" or memory.text.lower().startswith(subject.lower() + ":")
    return (memory.subject or "user") == subject


def _said_while_held(memory: Memory, old: Belief, successor_from: datetime) -> bool:
    return old.valid_from <= memory.created_at < successor_from


def dependent_on(old: Belief, new: Belief, memories: Sequence[Memory]) -> list[Dependent]:
    """Current memories that name the old value, or were said about it while it held (pure)."""
    about = _ABOUT.get(old.predicate, frozenset())
    found = []
    for memory in memories:
        if memory.status is not MemoryStatus.ACTIVE or memory.belief_id in (old.id, new.id):
            continue
        if not _speaks_for(memory, old.subject) or (new.object and _names(memory.text, new.object)):
            continue
        if _names(memory.text, old.object):
            found.append(Dependent(memory, f"names {old.object}, which was replaced by {new.object}"))
        elif about & value_words(memory.text) and _said_while_held(memory, old, new.valid_from):
            found.append(Dependent(memory, f"said while {old.statement.rstrip('.')} (now {new.object})"))
    return found


def _candidates(rt: Runtime, old: Belief) -> list[Memory]:
    query = " ".join([old.object, *sorted(_ABOUT.get(old.predicate, ()))])
    ids = [mid for mid, _ in rt.store.lexical_search(query, _SEARCH_LIMIT, active_only=True)]
    return rt.store.memories_by_ids(ids) if ids else []


def flag_dependents(rt: Runtime, old: Belief, new: Belief, skip: Sequence[str], now: datetime) -> list[Event]:
    """Inside the write transaction: flag what depends on ``old`` (``skip``: memories this write retires)."""
    events = []
    for dependent in dependent_on(old, new, [m for m in _candidates(rt, old) if m.id not in skip]):
        rt.store.flag_possibly_stale(dependent.memory.id, old.id, dependent.reason, now)
        events.append(rt.event(EventKind.POSSIBLY_STALE, memory_id=dependent.memory.id, belief_id=old.id,
                               reason=dependent.reason))
    return events
