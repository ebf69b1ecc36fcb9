"""Each record's fields agree everywhere they are spelled: the domain value, the table, the export record
and the output model. Adding a field to one and not the others fails here, not in a user's export."""

from __future__ import annotations

from dataclasses import fields

import pytest

from engram_core.core import model, views
from engram_core.usecases import exchange
from engram_core.adapters.sqlite_store import SqliteStore

STORAGE_ONLY = {"memories": {"embed_model", "embed_dim"}, "events": {"seq"}}
VIEW_ONLY = {"beliefs": {"current"}}  # derived from the two time intervals
RECORDS = [  # (table, domain value, export record, output model)
    ("messages", model.Message, exchange.MessageRecord, views.MessageOut),
    ("memories", model.Memory, exchange.MemoryRecord, views.MemoryOut),
    ("beliefs", model.Belief, exchange.BeliefRecord, views.BeliefOut),
    ("events", model.Event, exchange.EventRecord, views.EventOut),
]


def columns(table: str) -> set[str]:
    store = SqliteStore(":memory:")
    return {row["name"] for row in store.conn.execute(f"PRAGMA table_info({table})")}


@pytest.mark.parametrize(("table", "value", "record", "out"), RECORDS, ids=[r[0] for r in RECORDS])
def test_a_record_has_the_same_fields_in_every_shape(table: str, value: type, record: type, out: type) -> None:
    domain = {f.name for f in fields(value)}
    assert set(out.model_fields) - VIEW_ONLY.get(table, set()) == domain
    assert set(record.model_fields) - {"type"} == domain | STORAGE_ONLY.get(table, set()) - {"seq"}
    assert columns(table) == domain | STORAGE_ONLY.get(table, set())


def test_the_score_model_is_the_score_breakdown() -> None:
    assert list(views.ScoreOut.model_fields) == [f.name for f in fields(model.ScoreBreakdown)]
