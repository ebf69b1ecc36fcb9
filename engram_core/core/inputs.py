"""Checks on caller input (pure). Every failure names the field; nothing is written."""

from __future__ import annotations

from datetime import datetime

from engram_core.core.config import EngineConfig
from engram_core.core.errors import ValidationError
from engram_core.core.model import MemoryKind
from engram_core.core.timeutil import parse_when

ROLES = ("user", "assistant")
MAX_ID_LENGTH = 200


def check_text(text: object, config: EngineConfig, field: str = "text") -> str:
    if not isinstance(text, str):
        raise ValidationError(f"{field} must be a string", field=field)
    if not text.strip():
        raise ValidationError(f"{field} must not be empty", field=field)
    size = len(text.encode("utf-8"))
    if size > config.max_text_bytes:
        raise ValidationError(f"{field} is {size} bytes; the limit is {config.max_text_bytes}", field=field)
    return text.strip()


def check_message(text: object, config: EngineConfig, field: str = "text") -> str:
    """A message to observe may be longer than one memory's text: it is then stored as linked parts."""
    if isinstance(text, str) and len(text.encode("utf-8")) > config.max_text_bytes:
        return check_text(text, config.model_copy(update={"max_text_bytes": config.max_message_bytes}), field)
    return check_text(text, config, field)


def is_long(text: str, config: EngineConfig) -> bool:
    return len(text.encode("utf-8")) > config.max_text_bytes


CLIPPED = " [clipped]"


def clip_text(text: str, limit_bytes: int) -> str:
    """Text the engine produced itself (a model's reply), cut to fit the stored-text limit."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit_bytes:
        return text
    head = encoded[:limit_bytes - len(CLIPPED)].decode("utf-8", errors="ignore")
    return head + CLIPPED


def check_budget(budget: object, config: EngineConfig) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise ValidationError("budget_tokens must be a whole number", field="budget_tokens")
    if budget <= 0 or budget > config.max_budget_tokens:
        raise ValidationError(f"budget_tokens must be between 1 and {config.max_budget_tokens}, got {budget}",
                              field="budget_tokens")
    return budget


def check_kind(kind: object) -> MemoryKind:
    try:
        return MemoryKind(kind)
    except ValueError as exc:
        allowed = ", ".join(k.value for k in MemoryKind if k is not MemoryKind.GIST)
        raise ValidationError(f"unknown kind {kind!r}; use one of: {allowed}", field="kind") from exc


def check_remember_kind(kind: object) -> MemoryKind:
    checked = check_kind(kind)
    if checked is MemoryKind.GIST:
        raise ValidationError("kind gist is made by the sleep cycle, not remembered directly", field="kind")
    return checked


def check_importance(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValidationError(f"importance must be a number from 0 to 1, got {value!r}", field="importance")
    return float(value)


def check_role(role: object) -> str:
    if role not in ROLES:
        raise ValidationError(f"role must be one of {', '.join(ROLES)}, got {role!r}", field="role")
    return str(role)


def check_identifier(value: object, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID_LENGTH:
        raise ValidationError(f"{field} must be a non-empty string of at most {MAX_ID_LENGTH} characters",
                              field=field)
    return value.strip()


def check_when(value: str | datetime | None, field: str) -> datetime | None:
    return None if value is None else parse_when(value, field)
