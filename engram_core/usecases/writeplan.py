"""Deciding a write before making it: verdicts for each extracted fact, with no transaction open.

Extraction and adjudication may call a model (a network call with Qwen); holding the
tenant's write lock through them would stall every other writer. So a write is planned
first against the beliefs as they are read now, plus the plan's own effects (a later
fact of the same message sees an earlier one), and applied afterwards in one short
transaction that first re-checks the beliefs the plan was based on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum

import numpy as np

from engram_core.core import ledger
from engram_core.core.model import Belief, Cardinality, FactDraft, Message, Verdict
from engram_core.core.people import CORRECTION, resolve_correction, resolve_shaped, resolve_subject
from engram_core.usecases.runtime import Runtime
from engram_core.core.verdicts import parse_verdicts


class AdjudicationPath(str, Enum):
    EXACT = "exact"  # same subject and predicate: decided by rule
    SEMANTIC = "semantic"  # a near-identical single-valued statement
    LLM = "llm"  # the model judged the candidates
    NEW = "new"  # nothing to judge against
    KNOWN = "known"  # this very fact from this very message is already in the ledger


class PlanOutdated(Exception):
    """The beliefs a plan was based on changed before it could be applied: plan again."""


@dataclass(frozen=True)
class FactPlan:
    draft: FactDraft
    vector: np.ndarray
    source: Message
    path: AdjudicationPath
    verdicts: tuple[tuple[str, Verdict], ...]
    candidates: tuple[Belief, ...]
    belief: Belief | None  # the belief to write; None when the fact adds nothing

    @property
    def verdict_of(self) -> dict[str, Verdict]:
        return dict(self.verdicts)

    def candidate(self, belief_id: str) -> Belief:
        return next(b for b in self.candidates if b.id == belief_id)


@dataclass(frozen=True)
class Basis:
    """What a plan read: the store's data version and, per subject, the ids of its current beliefs."""

    data_version: int
    current_ids: tuple[tuple[str, frozenset[str]], ...]


class BeliefView:
    """Current beliefs as the plan will leave them: read once per subject, then the plan's own effects."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.data_version = rt.store.data_version()
        self._read: dict[str, frozenset[str]] = {}
        self._current: dict[str, dict[str, Belief]] = {}
        self.vectors: dict[str, np.ndarray] = {}  # of beliefs the plan adds

    def current(self, subject: str) -> list[Belief]:
        if subject not in self._current:
            found = self.rt.store.current_beliefs(subject=subject)
            self._read[subject] = frozenset(b.id for b in found)
            self._current[subject] = {b.id: b for b in found}
        return list(self._current[subject].values())

    def close(self, belief: Belief) -> None:
        self.current(belief.subject)
        self._current[belief.subject].pop(belief.id, None)

    def add(self, belief: Belief, vector: np.ndarray) -> None:
        self.current(belief.subject)
        self._current[belief.subject][belief.id] = belief
        self.vectors[belief.id] = vector

    def basis(self) -> Basis:
        return Basis(self.data_version, tuple(sorted(self._read.items())))


def basis_holds(rt: Runtime, basis: Basis) -> bool:
    """Inside the apply transaction: nobody else committed, or the beliefs read are still the current ones."""
    if rt.store.data_version() == basis.data_version:
        return True
    return all(frozenset(b.id for b in rt.store.current_beliefs(subject=s)) == ids for s, ids in basis.current_ids)


# -- adjudication -------------------------------------------------------------------

def _vectors_of(rt: Runtime, view: BeliefView, beliefs: list[Belief]) -> dict[str, np.ndarray]:
    vectors = {b.id: view.vectors[b.id] for b in beliefs if b.id in view.vectors}
    stored = [(b.id, memory_id) for b in beliefs if b.id not in vectors and (memory_id := b.memory_id)]
    memories = {m.id: m for m in rt.store.memories_by_ids([memory_id for _, memory_id in stored])}
    for belief_id, memory_id in stored:
        memory = memories.get(memory_id)
        if memory is not None and memory.embedding is not None:
            vectors[belief_id] = memory.embedding.vector
    return vectors


def _semantic_candidates(rt: Runtime, view: BeliefView, draft: FactDraft, vector: np.ndarray,
                         current: list[Belief]) -> list[tuple[Belief, float]]:
    """Current beliefs of the same subject whose statement is close to the new fact."""
    same_subject = [b for b in current if b.subject == draft.subject]
    vectors = _vectors_of(rt, view, same_subject)
    scored = []
    for belief in same_subject:
        held = vectors.get(belief.id)
        if held is None or held.shape != vector.shape:
            continue
        cosine = float(np.dot(held, vector))
        if cosine >= rt.config.adjudication_candidate_threshold:
            scored.append((belief, cosine))
    scored.sort(key=lambda pair: -pair[1])
    return scored[: rt.config.max_adjudication_candidates]


def _semantic_verdict(rt: Runtime, draft: FactDraft, belief: Belief, cosine: float) -> Verdict | None:
    """Near-identical single-valued statements supersede without asking a model; a tentative fact
    ("I'm Sam") never replaces a held value on wording alone."""
    single = draft.cardinality is Cardinality.ONE and belief.cardinality is Cardinality.ONE
    if single and not draft.negated and not draft.tentative and cosine >= rt.config.semantic_supersede_threshold:
        return Verdict.SUPERSEDE
    return None


def adjudicate(rt: Runtime, view: BeliefView, draft: FactDraft,
               vector: np.ndarray) -> tuple[dict[str, Verdict], list[Belief], AdjudicationPath]:
    """Verdicts against current beliefs: exact path, then semantic, then the LLM (no transaction open)."""
    current = view.current(draft.subject)
    exact = ledger.exact_candidates(draft, current)
    if exact:
        by_exact = {b.id: ledger.exact_verdict(draft, b) for b in exact}
        return ledger.tentative_verdicts(draft, by_exact), exact, AdjudicationPath.EXACT
    candidates = _semantic_candidates(rt, view, draft, vector, current)
    verdicts: dict[str, Verdict] = {}
    for belief, cosine in candidates:
        verdict = _semantic_verdict(rt, draft, belief, cosine)
        if verdict is not None:
            verdicts[belief.id] = verdict
    rest = [b for b, _ in candidates if b.id not in verdicts]
    if rest:
        verdicts.update(parse_verdicts(rt.llm.adjudicate(draft, rest), [b.id for b in rest]))
    path = AdjudicationPath.LLM if rest else AdjudicationPath.SEMANTIC if candidates else AdjudicationPath.NEW
    return ledger.tentative_verdicts(draft, verdicts), [b for b, _ in candidates], path


# -- planning -----------------------------------------------------------------------

def already_known(rt: Runtime, draft: FactDraft, source: Message) -> bool:
    """The ledger holds this fact from this message (current or history): consolidating twice adds nothing."""
    return any(ledger.same_fact(draft, b) for b in rt.store.beliefs_from_message(source.id))


def new_belief(rt: Runtime, draft: FactDraft, source: Message, now: datetime) -> Belief:
    return Belief(
        id=rt.new_id("blf"), subject=draft.subject, predicate=ledger.belief_predicate(draft), object=draft.object,
        statement=draft.statement, valid_from=source.occurred_at, recorded_at=now,
        source_message_id=source.id, cardinality=draft.cardinality,
    )


def _follow_through(view: BeliefView, plan: FactPlan) -> None:
    """What the applied fact will do to the current beliefs, for the facts planned after it."""
    if plan.belief is None:
        return
    late = False
    for belief_id, verdict in plan.verdicts:
        if verdict is Verdict.SUPERSEDE:
            old = plan.candidate(belief_id)
            if ledger.arrives_late(old, plan.belief.valid_from):
                late = True
            else:
                view.close(old)
    if not late:
        view.add(plan.belief, plan.vector)


def _shaped_candidates(rt: Runtime, view: BeliefView, draft: FactDraft) -> list[Belief]:
    """The subject's current beliefs; for a bare correction ("Sorry, Mr. Shah") everyone's, since it
    names nobody: the newest value of its shape may be the boss's name."""
    if draft.slot:
        return view.current(draft.subject)
    subjects = {draft.subject} | {b.subject for b in rt.store.current_beliefs()}
    return [b for subject in sorted(subjects) for b in view.current(subject)]


def _renamed_slot(view: BeliefView, draft: FactDraft) -> tuple[FactDraft, Belief] | None:
    """"renamed the wifi to fbi_van_3": a rename whose old words are a thing in lower case, not a value
    held, names the slot whose value it replaces."""
    old = draft.replaces or ""
    if draft.predicate != CORRECTION or not old or old != old.lower():
        return None
    return resolve_shaped(replace(draft, replaces=None, slot=old), view.current(draft.subject))


def _corrected(rt: Runtime, view: BeliefView, draft: FactDraft) -> tuple[FactDraft, np.ndarray, Belief] | None:
    if draft.slot is not None:
        found = resolve_shaped(draft, _shaped_candidates(rt, view, draft))
    else:
        found = resolve_correction(draft, view.current(draft.subject)) or _renamed_slot(view, draft)
    if found is None:
        return None
    corrected, held = found
    return corrected, rt.embed([corrected.statement])[0], held


# The fact as it will be written, its vector, the verdicts on the beliefs it was weighed against, and how.
Decision = tuple[FactDraft, np.ndarray, dict[str, Verdict], list[Belief], AdjudicationPath]


def _decide(rt: Runtime, view: BeliefView, draft: FactDraft, vector: np.ndarray) -> Decision:
    """(draft, vector, verdicts, candidates, path): a correction or rename ("replaces" set) replaces the
    current belief that holds the old value, by rule; one that names nothing held is kept as an episode
    (the offline "corrects" draft) or adjudicated as it stands (a model's fact with its own predicate)."""
    corrected = _corrected(rt, view, draft) if draft.replaces or draft.slot is not None else None
    if corrected is None:
        if draft.predicate == CORRECTION:
            return draft, vector, {}, [], AdjudicationPath.NEW
        return (draft, vector, *adjudicate(rt, view, draft, vector))
    draft, vector, held = corrected
    return draft, vector, {held.id: Verdict.SUPERSEDE}, [held], AdjudicationPath.EXACT


def _said_of_the_retired(rt: Runtime, decision: Decision) -> Decision:
    """"I quit football" read as leaving an employer retires the hobby "football" it names: the negation
    then speaks of what it retired ("No longer so: The user plays football."), not of a job that never was."""
    draft, vector, verdicts, candidates, path = decision
    retired = [b for b in candidates if verdicts.get(b.id) is Verdict.SUPERSEDE]
    predicates = {b.predicate for b in retired}
    if not (draft.negated and draft.tentative and len(predicates) == 1) or draft.predicate in predicates:
        return decision
    old = retired[0]
    said = replace(draft, predicate=old.predicate, object=old.object, statement=f"No longer so: {old.statement}")
    return said, rt.embed([said.statement])[0], verdicts, candidates, path


def plan_fact(rt: Runtime, view: BeliefView, draft: FactDraft, vector: np.ndarray, source: Message,
              now: datetime) -> FactPlan:
    draft = resolve_subject(draft, view.current("user"))
    if already_known(rt, draft, source):
        return FactPlan(draft, vector, source, AdjudicationPath.KNOWN, (), (), None)
    draft, vector, verdicts, candidates, path = _said_of_the_retired(rt, _decide(rt, view, draft, vector))
    if draft.predicate == CORRECTION:  # corrects nothing held: the episode is kept, no belief made
        return FactPlan(draft, vector, source, path, (), (), None)
    belief = None if ledger.makes_no_belief(draft, verdicts) else new_belief(rt, draft, source, now)
    plan = FactPlan(draft, vector, source, path, tuple(verdicts.items()), tuple(candidates), belief)
    _follow_through(view, plan)
    return plan


def plan_facts(rt: Runtime, facts: list[tuple[FactDraft, np.ndarray, Message]],
               now: datetime) -> tuple[tuple[FactPlan, ...], Basis]:
    view = BeliefView(rt)
    plans = tuple(plan_fact(rt, view, draft, vector, source, now) for draft, vector, source in facts)
    return plans, view.basis()


def with_memory_id(plan: FactPlan, memory_id: str) -> FactPlan:
    return replace(plan, belief=replace(plan.belief, memory_id=memory_id)) if plan.belief else plan
