"""Each record's fields agree everywhere they are spelled: the domain value, the table, the export record
and the output model. The output model and the export record share one declaration (``views.*Fields``), so
a field added there is in both; adding a field to one shape and not the others fails here, not in a user's
export."""

from __future__ import annotations

from dataclasses import fields

import pytest
from pydantic import BaseModel

from engram_core.core import model, views
from engram_core.usecases import exchange
from engram_core.adapters.sqlite_store import SqliteStore

STORAGE_ONLY = {"memories": {"embed_model", "embed_dim"}, "events": {"seq"}}
VIEW_ONLY = {"beliefs": {"current"}}  # derived from the two time intervals
# Declared by each shape itself: a memory's embedding is a base64 vector in the export, its model and size shown.
OWN_SHAPE = {"memories": {"embedding"}}
RECORDS = [  # (table, domain value, shared fields, export record, output model)
    ("messages", model.Message, views.MessageFields, exchange.MessageRecord, views.MessageOut),
    ("memories", model.Memory, views.MemoryFields, exchange.MemoryRecord, views.MemoryOut),
    ("beliefs", model.Belief, views.BeliefFields, exchange.BeliefRecord, views.BeliefOut),
    ("events", model.Event, views.EventFields, exchange.EventRecord, views.EventOut),
]
IDS = [r[0] for r in RECORDS]


def columns(table: str) -> set[str]:
    store = SqliteStore(":memory:")
    return {row["name"] for row in store.conn.execute(f"PRAGMA table_info({table})")}


@pytest.mark.parametrize(("table", "value", "shared", "record", "out"), RECORDS, ids=IDS)
def test_a_record_has_the_same_fields_in_every_shape(table: str, value: type, shared: type[BaseModel],
                                                     record: type[BaseModel], out: type[BaseModel]) -> None:
    domain = {f.name for f in fields(value)}
    own = OWN_SHAPE.get(table, set())
    assert set(shared.model_fields) | own == domain
    assert set(out.model_fields) - VIEW_ONLY.get(table, set()) == domain
    assert set(record.model_fields) - {"type"} == domain | STORAGE_ONLY.get(table, set()) - {"seq"}
    assert columns(table) == domain | STORAGE_ONLY.get(table, set())


@pytest.mark.parametrize(("table", "value", "shared", "record", "out"), RECORDS, ids=IDS)
def test_the_export_record_and_the_output_model_share_one_declaration(table: str, value: type,
                                                                      shared: type[BaseModel],
                                                                      record: type[BaseModel],
                                                                      out: type[BaseModel]) -> None:
    """Neither shape declares a shared field again: each inherits it, type and all, from ``shared``."""
    for shape in (record, out):
        assert issubclass(shape, shared)
        redeclared = {name for cls in shape.__mro__[:shape.__mro__.index(shared)]
                      for name in vars(cls).get("__annotations__", {})}
        assert redeclared.isdisjoint(shared.model_fields), shape
        for name, declared in shared.model_fields.items():
            assert shape.model_fields[name].annotation == declared.annotation, (shape, name)
            assert shape.model_fields[name].metadata == declared.metadata, (shape, name)


def test_the_score_model_is_the_score_breakdown() -> None:
    assert list(views.ScoreOut.model_fields) == [f.name for f in fields(model.ScoreBreakdown)]
