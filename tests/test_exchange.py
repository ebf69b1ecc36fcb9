"""Export / import: lossless round trip (property-tested), all-or-nothing on bad files."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engram_core.core.errors import ImportFormatError, ValidationError

from conftest import make_engine
from fakes import ScriptedLLM, assessment, fact

words = st.sampled_from(["Lisbon", "Porto", "jazz", "tea", "coffee", "ECHO", "ABYSS", "cello", "Nimbus", "ferry"])
predicates = st.sampled_from(["lives_in", "likes", "project_name", "drinks"])
steps = st.lists(st.tuples(predicates, words, st.floats(0, 1), st.integers(0, 200)), min_size=1, max_size=12)


def _engine_from(clock, plan):
    answers = {}
    for i, (predicate, obj, importance, _) in enumerate(plan):
        cardinality = "many" if predicate == "likes" else "one"
        answers[f"message {i} says {obj}"] = assessment(round(importance, 3), fact(
            "user", predicate, obj, f"The user {predicate} {obj}.", cardinality=cardinality))
    engine = make_engine(clock, ScriptedLLM(assess=answers))
    for i, (_, obj, _, hours) in enumerate(plan):
        engine.observe(f"message {i} says {obj}", session_id=f"s{i % 3}")
        clock.advance(timedelta(hours=hours))
    engine.recall("where and what", 120)
    return engine


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps)
@example(plan=[("lives_in", "jazz", 1.0, 0), ("project_name", "jazz", 0.0, 0), ("project_name", "Lisbon", 1.0, 0)])
def test_round_trip_is_lossless(clock, plan) -> None:
    source = _engine_from(clock, plan)
    exported = list(source.export_lines())
    target = make_engine(clock, ScriptedLLM())
    target.import_lines(exported)
    assert list(target.export_lines()) == exported
    assert [b.id for b in target.beliefs()] == [b.id for b in source.beliefs()]
    query = "where does the user live"
    assert [i.memory_id for i in target.recall(query, 200, reinforce=False).items] == \
           [i.memory_id for i in source.recall(query, 200, reinforce=False).items]


def test_export_starts_with_a_versioned_header(clock) -> None:
    header = json.loads(next(_engine_from(clock, [("likes", "tea", 0.6, 1)]).export_lines()))
    assert header["format"] == "engram-export" and header["version"] == 1 and header["schema"] >= 1


@pytest.mark.parametrize("corrupt, message", [
    (lambda lines: [], "empty"),
    (lambda lines: ['{"type": "header"}'] + lines[1:], "header"),
    (lambda lines: lines + ["not json"], "not JSON"),
    (lambda lines: lines + ['{"type": "spaceship", "id": "x"}'], "unknown record type"),
    (lambda lines: lines[:1] + [lines[1].replace('"text"', '"txet"')] + lines[2:], "line 2"),
    (lambda lines: lines[:1] + [lines[1].replace('"occurred_at": "', '"occurred_at": "yesterday')] + lines[2:],
     "line 2"),
    (lambda lines: [lines[0].replace('"version": 1', '"version": 99')] + lines[1:], "newer"),
])
def test_malformed_import_changes_nothing(clock, corrupt, message: str) -> None:
    lines = list(_engine_from(clock, [("lives_in", "Lisbon", 0.8, 1), ("likes", "tea", 0.6, 1)]).export_lines())
    target = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.7)))
    target.observe("something already here")
    before = list(target.export_lines())
    with pytest.raises(ImportFormatError, match=message):
        target.import_lines(corrupt(lines))
    assert list(target.export_lines()) == before


BAD_FIELDS = [  # (record type, change, the field the error names)
    ("memory", {"importance": 1.5}, "importance"), ("memory", {"stability_hours": 0}, "stability_hours"),
    ("memory", {"access_count": -1}, "access_count"), ("memory", {"kind": "spaceship"}, "kind"),
    ("memory", {"status": "gone"}, "status"), ("memory", {"embedding": 7}, "embedding"),
    ("belief", {"cardinality": "few"}, "cardinality"), ("event", {"kind": "boom"}, "kind"),
    ("message", {"id": ""}, "id"), ("message", {"occurred_at": None}, "occurred_at"),  # a NOT NULL column
    ("event", {"detail": 5}, "detail"),
    ("event", {"detail": {"nested": [1, 2]}}, "detail"),  # a detail holds scalars: every later listing needs it
]


def _edited(lines: list[str], record_type: str, change: dict) -> list[str]:
    at = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == record_type)
    return [*lines[:at], json.dumps({**json.loads(lines[at]), **change}), *lines[at + 1:]]


@pytest.mark.parametrize(("record_type", "change", "field"), BAD_FIELDS,
                         ids=[f"{t}-{next(iter(c))}-{i}" for i, (t, c, _) in enumerate(BAD_FIELDS)])
def test_a_record_field_out_of_bounds_is_refused_by_name(clock, record_type: str, change: dict,
                                                         field: str) -> None:
    lines = list(_engine_from(clock, [("lives_in", "Lisbon", 0.8, 1), ("likes", "tea", 0.6, 1)]).export_lines())
    target = make_engine(clock, ScriptedLLM())
    with pytest.raises(ImportFormatError, match=f": {field}") as refused:
        target.import_lines(_edited(lines, record_type, change))
    assert refused.value.field.split(".")[0] == field
    assert len(list(target.export_lines())) == 1  # the header: nothing was written


def test_an_older_export_without_its_nullable_columns_imports(clock) -> None:
    """A column added later (nullable) is absent from older exports; it reads as null."""
    lines = list(_engine_from(clock, [("lives_in", "Lisbon", 0.8, 1)]).export_lines())
    optional = {"message": ("speaker", "external_id"), "memory": ("status_changed_at", "embedding", "embed_model",
                                                                  "embed_dim", "belief_id", "superseded_by")}
    older = []
    for line in lines:
        record = json.loads(line)
        older.append(json.dumps({k: v for k, v in record.items() if k not in optional.get(record["type"], ())}))
    target = make_engine(clock, ScriptedLLM())
    target.import_lines(older)
    memories = [json.loads(line) for line in target.export_lines() if json.loads(line)["type"] == "memory"]
    assert memories and all(m["embedding"] is None and m["superseded_by"] is None for m in memories)


def test_import_of_existing_ids_is_refused_whole(clock) -> None:
    engine = _engine_from(clock, [("lives_in", "Lisbon", 0.8, 1)])
    lines = list(engine.export_lines())
    before = list(engine.export_lines())
    with pytest.raises(ImportFormatError, match="already exists"):
        engine.import_lines(lines)
    assert list(engine.export_lines()) == before


@pytest.mark.parametrize(("action", "message"), [
    ({"action": "merge", "text": None}, "a merge action needs a merged text"),
    ({"action": "reimportance", "importance": None}, "a reimportance action needs an importance"),
])
def test_an_imported_proposal_missing_its_value_is_refused_when_applied(clock, action, message) -> None:
    """Imported proposals are stored as exported; applying one that lacks its value is a clear error, not a crash."""
    source = make_engine(clock)
    first = source.remember("I like green tea.", importance=0.6).memories[0].id
    second = source.remember("Green tea is my favourite drink.", importance=0.6).memories[0].id
    source.dream()
    lines = list(source.export_lines())
    source.close()
    edited = []
    for line in lines:
        row = json.loads(line)
        if row["type"] == "dream_proposal":
            row["actions"] = [{"ids": [first, second], "importance": None, "text": None, "reason": "",
                               **action}]
            row["rejected"], row["applied_at"] = [], None
            proposal_id = row["id"]
        edited.append(json.dumps(row))
    target = make_engine(clock)
    target.import_lines(edited)
    before = [(m.id, m.text, m.importance, m.status) for m in target.store.memories()]
    with pytest.raises(ValidationError, match=message):
        target.dream_apply(proposal_id, ["a1"])
    assert [(m.id, m.text, m.importance, m.status) for m in target.store.memories()] == before
    target.close()
