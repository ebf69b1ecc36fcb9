"""Belief ledger rules: exact verdicts, bi-temporal closing, late arrivals, the retrieval veto."""

from __future__ import annotations

from datetime import timedelta

from engram_core.core import ledger
from engram_core.core.model import Belief, Cardinality, FactDraft, Verdict

from conftest import START


def belief(obj: str, predicate: str = "lives_in", cardinality: Cardinality = Cardinality.ONE, bid: str = "b1",
           start=START) -> Belief:
    return Belief(id=bid, subject="user", predicate=predicate, object=obj, statement=f"lives in {obj}",
                  valid_from=start, recorded_at=start, cardinality=cardinality)


def draft(obj: str, predicate: str = "lives_in", cardinality: Cardinality = Cardinality.ONE,
          negated: bool = False) -> FactDraft:
    return FactDraft("user", predicate, obj, f"The user {predicate} {obj}.", cardinality=cardinality, negated=negated)


def test_single_valued_change_supersedes() -> None:
    assert ledger.exact_verdict(draft("Ponta Delgada"), belief("Lisbon")) is Verdict.SUPERSEDE


def test_same_value_is_discarded() -> None:
    assert ledger.exact_verdict(draft("lisbon."), belief("Lisbon")) is Verdict.DISCARD


def test_multi_valued_values_coexist() -> None:
    many = Cardinality.MANY
    assert ledger.exact_verdict(draft("hiking", "likes", many), belief("jazz", "likes", many)) is Verdict.COEXIST


def test_negation_retires_only_the_matching_value() -> None:
    many = Cardinality.MANY
    assert ledger.exact_verdict(draft("jazz", "likes", many, True), belief("jazz", "likes", many)) is Verdict.SUPERSEDE
    assert ledger.exact_verdict(draft("rock", "likes", many, True), belief("jazz", "likes", many)) is Verdict.COEXIST


def test_close_belief_keeps_history() -> None:
    later = START + timedelta(days=21)
    closed = ledger.close_belief(belief("Lisbon"), "b2", later, later + timedelta(minutes=1))
    assert closed.object == "Lisbon" and closed.superseded_by == "b2"
    assert closed.valid_to == later and closed.expired_at == later + timedelta(minutes=1)
    assert closed.valid_at(START + timedelta(days=1)) and not closed.valid_at(later)


def test_late_arrival_becomes_history() -> None:
    newer = belief("Ponta Delgada", start=START + timedelta(days=30))
    older = belief("Lisbon", bid="b0")
    assert ledger.arrives_late(newer, older.valid_from)
    filed = ledger.as_history(older, newer)
    assert filed.valid_to == newer.valid_from and filed.superseded_by == newer.id


def test_veto_keeps_the_newest_single_value() -> None:
    entries = [("m1", "user|lives_in", START), ("m2", "user|lives_in", START + timedelta(days=1)),
               ("m3", None, START), ("m4", "user|job", START)]
    assert ledger.keep_newest(entries) == {"m1"}


def test_negated_predicate_is_namespaced() -> None:
    assert ledger.belief_predicate(draft("jazz", "likes", negated=True)) == "not:likes"
