"""Export / import of a whole tenant as JSON lines, lossless, with a format version.

Line 1 is a header; every other line is one record: a message, memory, belief,
event or dream proposal, with every stored column (vectors as base64 float32).
A message, memory, belief or event record has the fields of its output model
(``core/views.py`` declares them once for both) and its stored-only columns.
An import is validated completely before anything is written, then written in
one transaction: a malformed file changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, ValidationInfo, field_validator, model_validator,
)
from pydantic.fields import FieldInfo
from typing_extensions import TypeForm

from engram_core.core.errors import ImportFormatError
from engram_core.core.model import CallOutcome, CallPurpose, Cardinality, EventKind, MemoryKind, MemoryStatus
from engram_core.core.views import BeliefFields, EventFields, MemoryFields, MessageFields
from engram_core.usecases.runtime import CLOCK_OFFSET_KEY, EMBEDDER_KEY, Runtime
from engram_core.core.timeutil import MAX_DURATION, from_storage, stored_offset, to_storage

FORMAT_NAME = "engram-export"
FORMAT_VERSION = 1
_TABLES = {"message": "messages", "memory": "memories", "belief": "beliefs", "event": "events",
           "dream_proposal": "dream_proposals", "usage": "model_usage", "stale_review": "stale_reviews"}
_KEYS = {"stale_reviews": "memory_id"}  # the column that names a row, where it is not ``id``


class _Stamp(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _check_times(cls, value: object, info: ValidationInfo) -> object:
        if _is_time_field(info.field_name) and value is not None:
            return _stored_time(value)
        return value


def _is_time_field(name: str | None) -> bool:
    return name is not None and (name.endswith("_at") or name in ("at", "valid_from", "valid_to"))


def _stored_time(value: object) -> str:
    """A stored timestamp in today's form (what older versions wrote included)."""
    if isinstance(value, str):
        try:
            return to_storage(from_storage(value))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a stored timestamp: {value!r}") from exc
    raise ValueError(f"not a stored timestamp: {value!r}")


Id = Annotated[str, Field(min_length=1)]


class _Record(_Stamp):
    """A message, memory, belief or event line: its fields are the ones its output model has, declared once
    in ``core/views.py``; the record adds its ``type``, its stored-only columns and its ``CHECKS``."""

    # What an import checks beyond the shared types, by field (an import file is caller input); a check's
    # own error is reported as the field's.
    CHECKS: ClassVar[dict[str, TypeAdapter[Any]]] = {}

    @model_validator(mode="before")
    @classmethod
    def _absent_is_null(cls, data: object) -> object:
        """A nullable column an older export did not have yet reads as null."""
        if not isinstance(data, dict):
            return data
        return {**{name: None for name, f in cls.model_fields.items() if _nullable(f)}, **data}

    @field_validator("*")
    @classmethod
    def _checked(cls, value: object, info: ValidationInfo) -> object:
        check = cls.CHECKS.get(str(info.field_name))
        if check is not None:
            check.validate_python(value)
        return value


def _nullable(field: FieldInfo) -> bool:
    return type(None) in get_args(field.annotation)


def _checks(**types: TypeForm[Any]) -> dict[str, TypeAdapter[Any]]:
    """Every record's id is non-empty; ``types`` are the record's own checks."""
    return {"id": TypeAdapter(Id), **{name: TypeAdapter(kind) for name, kind in types.items()}}


class MessageRecord(_Record, MessageFields):
    type: Literal["message"]

    CHECKS = _checks()


class MemoryRecord(_Record, MemoryFields):
    type: Literal["memory"]
    embedding: str | None  # the vector, base64 float32
    embed_model: str | None
    embed_dim: int | None

    CHECKS = _checks(kind=MemoryKind, status=MemoryStatus, importance=Annotated[float, Field(ge=0, le=1)],
                     stability_hours=Annotated[float, Field(gt=0)], access_count=Annotated[int, Field(ge=0)])


class BeliefRecord(_Record, BeliefFields):
    type: Literal["belief"]

    CHECKS = _checks(cardinality=Cardinality)


class EventRecord(_Record, EventFields):
    type: Literal["event"]

    CHECKS = _checks(kind=EventKind)


class ProposalRecord(_Stamp):
    type: Literal["dream_proposal"]
    id: Id
    created_at: str
    actions: list[Any]  # the stored JSON, as exported
    rejected: list[Any]
    applied_at: str | None = None


class UsageRecord(_Stamp):
    type: Literal["usage"]
    id: Id
    at: str
    turn_id: str | None = None
    purpose: CallPurpose
    model: str
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    reasoning_tokens: int = Field(ge=0)
    latency_ms: float = Field(ge=0)
    attempts: int = Field(ge=1)
    outcome: CallOutcome
    cost_usd: float = Field(ge=0)


class StaleReviewRecord(_Stamp):
    """A memory demoted as possibly stale until reviewed (its memory comes earlier in the file)."""

    type: Literal["stale_review"]
    memory_id: str = Field(min_length=1)
    belief_id: str = Field(min_length=1)
    reason: str
    flagged_at: str
    resolved_at: str | None = None

    @property
    def id(self) -> str:
        return self.memory_id


class Header(BaseModel):
    """Every field is checked: a header is caller input like any other line."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    type: Literal["header"]
    format: Literal["engram-export"]
    version: int = Field(ge=1)
    schema_version: int | None = Field(None, alias="schema", ge=1)
    embedder: str | None = Field(None, max_length=200, pattern=r"^\S+:\d{1,6}$")
    clock_offset_seconds: float = Field(0.0, ge=0, le=MAX_DURATION.total_seconds(), allow_inf_nan=False)


Record = MessageRecord | MemoryRecord | BeliefRecord | EventRecord | ProposalRecord | UsageRecord | StaleReviewRecord
_RECORDS: dict[str, type[Record]] = {
    "message": MessageRecord, "memory": MemoryRecord, "belief": BeliefRecord, "event": EventRecord,
    "dream_proposal": ProposalRecord, "usage": UsageRecord, "stale_review": StaleReviewRecord}


def export_lines(rt: Runtime) -> Iterator[str]:
    header = {"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION,
              "schema": rt.store.schema_version(), "embedder": rt.store.get_meta(EMBEDDER_KEY),
              "clock_offset_seconds": stored_offset(rt.store.get_meta(CLOCK_OFFSET_KEY)).total_seconds()}
    yield json.dumps(header, sort_keys=True)
    for kind, table in _TABLES.items():
        for row in rt.store.export_rows(table):
            yield json.dumps({"type": kind, **row}, sort_keys=True, ensure_ascii=False)


def _parse_line(number: int, line: str) -> dict[str, object]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"line {number}: not JSON ({exc.msg})", field=f"line {number}") from exc
    except RecursionError as exc:  # no record nests deeper than a few levels
        raise ImportFormatError(f"line {number}: JSON nested too deeply", field=f"line {number}") from exc
    if not isinstance(data, dict):
        raise ImportFormatError(f"line {number}: expected a JSON object", field=f"line {number}")
    return data


def _validate_record(number: int, data: dict[str, object]) -> Record:
    model = _RECORDS.get(str(data.get("type")))
    if model is None:
        raise ImportFormatError(f"line {number}: unknown record type {data.get('type')!r}", field=f"line {number}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ImportFormatError(f"line {number}: {where}: {first['msg']}", field=where) from exc


def parse_import(lines: Iterable[str], latest_schema: int) -> tuple[Header, list[Record]]:
    """The header and the validated records; ``latest_schema`` is the store's (migrated) schema version."""
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ImportFormatError("empty import file", field="line 1")
    try:
        header = Header.model_validate(_parse_line(*numbered[0]))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "header"
        raise ImportFormatError(f"line 1: not an engram-export header: {where}: {first['msg']}",
                                field=where) from exc
    if header.version > FORMAT_VERSION:
        raise ImportFormatError(f"export format v{header.version} is newer than this Engram (v{FORMAT_VERSION})",
                                field="version")
    if header.schema_version is not None and header.schema_version > latest_schema:
        raise ImportFormatError(f"line 1: schema: the export comes from store schema v{header.schema_version}, "
                                f"newer than this Engram (v{latest_schema}); upgrade Engram", field="schema")
    return header, [_validate_record(n, _parse_line(n, line)) for n, line in numbered[1:]]


def import_records(rt: Runtime, header: Header, records: list[Record]) -> dict[str, int]:
    """Write validated records in one transaction; an id that exists already aborts it all."""
    if header.embedder and rt.store.get_meta(EMBEDDER_KEY) not in (None, header.embedder):
        raise ImportFormatError(f"export vectors come from {header.embedder}, this store uses "
                                f"{rt.store.get_meta(EMBEDDER_KEY)}", field="embedder")
    counts: dict[str, int] = {}
    with rt.store.transaction():
        for record in records:
            table = _TABLES[record.type]
            if rt.store.row_exists(table, record.id, _KEYS.get(table, "id")):
                raise ImportFormatError(f"{record.type} {record.id!r} already exists in this store", field="id")
            rt.store.import_row(table, record.model_dump(mode="json", exclude={"type"}))
            counts[record.type] = counts.get(record.type, 0) + 1
        if header.embedder and rt.store.get_meta(EMBEDDER_KEY) is None:
            rt.store.set_meta(EMBEDDER_KEY, header.embedder)
        current = stored_offset(rt.store.get_meta(CLOCK_OFFSET_KEY)).total_seconds()
        rt.store.set_meta(CLOCK_OFFSET_KEY, repr(max(current, header.clock_offset_seconds)))  # never back
    rt.drop_index()
    return counts
