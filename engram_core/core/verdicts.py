"""Defensive parsing of model output (pure).

Model output is untrusted. Anything unusable turns into the safe default:
default importance, no facts, ``undecided`` (which never supersedes), no gist,
no dream action. Wrong ids are dropped, never applied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engram_core.core.model import Assessment, Cardinality, DreamAction, FactDraft, MemoryKind, Verdict

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_MAX_TEXT = 2000


def extract_json_object(raw: str | None) -> dict[str, object] | None:
    """The first JSON object in ``raw``: tolerates code fences and prose around it."""
    if not raw or not isinstance(raw, str):
        return None
    fenced = _FENCE.search(raw)
    text = fenced.group(1) if fenced else raw
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"\{", text)):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


class _Fact(BaseModel):
    model_config = ConfigDict(extra="ignore")

    subject: str = Field(min_length=1, max_length=200)
    predicate: str = Field(min_length=1, max_length=200)
    object: str = Field(min_length=1, max_length=_MAX_TEXT)
    statement: str = Field(min_length=1, max_length=_MAX_TEXT)
    kind: MemoryKind = MemoryKind.FACT
    importance: float = Field(0.6, ge=0, le=1)
    cardinality: Cardinality = Cardinality.ONE
    negated: bool = False
    critical: bool = False
    revision: bool = False
    tentative: bool = False
    replaces: str | None = Field(None, max_length=_MAX_TEXT)
    slot: str | None = Field(None, max_length=_MAX_TEXT)

    @field_validator("kind")
    @classmethod
    def _durable(cls, kind: MemoryKind) -> MemoryKind:
        if kind in (MemoryKind.EPISODE, MemoryKind.GIST):
            return MemoryKind.FACT
        return kind


class _Assessment(BaseModel):
    model_config = ConfigDict(extra="ignore")

    importance: float = Field(ge=0, le=1)
    facts: list[dict[str, object]] = Field(default_factory=list, max_length=50)


def _fact_or_none(raw: dict[str, object]) -> FactDraft | None:
    try:
        fact = _Fact.model_validate(raw)
    except ValidationError:
        return None
    return FactDraft(**fact.model_dump())


def parse_assessment(raw: str | None, default_importance: float) -> Assessment:
    """Importance and facts; an unusable answer gives the default and no facts."""
    data = extract_json_object(raw)
    try:
        parsed = _Assessment.model_validate(data) if data is not None else None
    except ValidationError:
        parsed = None
    if parsed is None:
        return Assessment(importance=default_importance, facts=(), fallback=True)
    facts = tuple(f for f in (_fact_or_none(r) for r in parsed.facts if isinstance(r, dict)) if f)
    return Assessment(importance=parsed.importance, facts=facts)


class _VerdictRow(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    verdict: Verdict


def parse_verdicts(raw: str | None, candidate_ids: Collection[str]) -> dict[str, Verdict]:
    """A verdict per candidate id; missing, garbage or unknown ids are ``undecided``."""
    verdicts = {cid: Verdict.UNDECIDED for cid in candidate_ids}
    data = extract_json_object(raw)
    rows = data.get("verdicts") if data else None
    if not isinstance(rows, list):
        return verdicts
    for row in rows:
        try:
            parsed = _VerdictRow.model_validate(row)
        except ValidationError:
            continue
        if parsed.id in verdicts and verdicts[parsed.id] is Verdict.UNDECIDED:
            verdicts[parsed.id] = parsed.verdict
    return verdicts


def parse_gist(raw: str | None) -> str | None:
    data = extract_json_object(raw)
    gist = data.get("gist") if data else None
    if not isinstance(gist, str) or not gist.strip():
        return None
    return gist.strip()[:_MAX_TEXT]


class _DreamRow(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: str = Field(pattern="^(merge|forget|reimportance)$")
    ids: list[str] = Field(min_length=1, max_length=50)
    importance: float | None = Field(None, ge=0, le=1)
    text: str | None = Field(None, max_length=_MAX_TEXT)
    reason: str = Field("", max_length=_MAX_TEXT)


def _validate_dream_row(row: object, live_ids: Collection[str]) -> DreamAction | str:
    """A usable action, or the reason it was rejected."""
    try:
        parsed = _DreamRow.model_validate(row)
    except ValidationError:
        return "malformed action"
    unknown = [i for i in parsed.ids if i not in live_ids]
    if unknown:
        return f"unknown memory ids: {', '.join(unknown[:5])}"
    if parsed.action == "merge" and (len(set(parsed.ids)) < 2 or not parsed.text):
        return "merge needs two or more ids and a merged text"
    if parsed.action == "reimportance" and parsed.importance is None:
        return "reimportance needs an importance"
    return DreamAction(parsed.action, tuple(dict.fromkeys(parsed.ids)), parsed.importance, parsed.text, parsed.reason)


def parse_dream(raw: str | None, live_ids: Collection[str]) -> tuple[tuple[DreamAction, ...], tuple[str, ...]]:
    """Validated actions against live memory ids, and the rejections with reasons."""
    data = extract_json_object(raw)
    rows = data.get("actions") if data else None
    if not isinstance(rows, list):
        return (), ("unusable proposal",) if raw else ()
    actions: list[DreamAction] = []
    rejected: list[str] = []
    for row in rows:
        result = _validate_dream_row(row, live_ids)
        (actions.append(result) if isinstance(result, DreamAction) else rejected.append(result))
    return tuple(actions), tuple(rejected)
