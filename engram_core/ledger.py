"""Belief ledger rules (pure): exact adjudication, bi-temporal supersession, veto."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from engram_core.model import Belief, Cardinality, FactDraft, Verdict

_SPACES = re.compile(r"\s+")
NEGATED_PREFIX = "not:"


def normalise_value(value: str) -> str:
    return _SPACES.sub(" ", value.strip().strip(".!?,;:").lower())


def belief_predicate(draft: FactDraft) -> str:
    """Negations live under their own predicate so they never block the positive one."""
    return NEGATED_PREFIX + draft.predicate if draft.negated else draft.predicate


def exact_verdict(draft: FactDraft, current: Belief) -> Verdict:
    """Same subject and predicate: decided by rule, no model needed."""
    same_object = normalise_value(draft.object) == normalise_value(current.object)
    if draft.negated:
        return Verdict.SUPERSEDE if same_object else Verdict.COEXIST
    if same_object:
        return Verdict.DISCARD
    if draft.cardinality is Cardinality.ONE and current.cardinality is Cardinality.ONE:
        return Verdict.SUPERSEDE
    return Verdict.COEXIST


def tentative_verdicts(draft: FactDraft, verdicts: dict[str, Verdict]) -> dict[str, Verdict]:
    """A tentative fact (the wording only suggests it: "I'm Sam") never replaces a held value:
    when it would, the episode is kept and no belief is made."""
    if draft.tentative and Verdict.SUPERSEDE in verdicts.values():
        return {bid: Verdict.DISCARD for bid in verdicts}
    return verdicts


def same_fact(draft: FactDraft, belief: Belief) -> bool:
    """The draft states exactly what the belief holds (subject, predicate with its negation, value)."""
    return (belief.subject == draft.subject and belief.predicate == belief_predicate(draft)
            and normalise_value(belief.object) == normalise_value(draft.object))


def exact_candidates(draft: FactDraft, current: Sequence[Belief]) -> list[Belief]:
    """Current beliefs the exact path judges: same subject and (positive) predicate."""
    return [b for b in current if b.subject == draft.subject and b.predicate == draft.predicate]


def close_belief(old: Belief, successor_id: str, world_end: datetime, now: datetime) -> Belief:
    """Supersede: end the old belief's world interval and retire it; nothing is overwritten."""
    end = max(world_end, old.valid_from)
    return replace(old, valid_to=end, expired_at=now, superseded_by=successor_id)


def retire_belief(old: Belief, now: datetime) -> Belief:
    """Forget: the engine stops holding the belief (system time) without a successor."""
    return replace(old, expired_at=now)


def arrives_late(old: Belief, new_valid_from: datetime) -> bool:
    """An imported older fact must not supersede a newer one: it becomes history instead."""
    return new_valid_from < old.valid_from


def as_history(new: Belief, newer: Belief) -> Belief:
    """A late-arriving value, closed where the newer value starts."""
    return replace(new, valid_to=newer.valid_from, superseded_by=newer.id)


def keep_newest(entries: Sequence[tuple[str, str | None, datetime]]) -> set[str]:
    """Retrieval veto: of items sharing a single-valued (subject, predicate) key keep the newest.

    ``entries`` are (item id, veto key or None, valid_from). Returns the ids to drop.
    """
    newest: dict[str, tuple[datetime, str]] = {}
    for item_id, key, when in entries:
        if key is not None and (key not in newest or when > newest[key][0]):
            newest[key] = (when, item_id)
    keep = {item_id for _, item_id in newest.values()}
    return {item_id for item_id, key, _ in entries if key is not None and item_id not in keep}
