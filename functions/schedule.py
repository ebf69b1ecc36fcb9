"""When a tenant is due for its sleep cycle, and the claims that make the timer's fan-out idempotent.

Each tenant's store keeps two marks in its meta table: when its last sleep
cycle ran, and the trigger time of the last timer event that dispatched one.
A claim is a write on the tenant's own store, so with snapshot storage two
instances handling the same (retried) event cannot both win: the loser
reloads, sees the claim, and backs off.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import TYPE_CHECKING

from engram_core.timeutil import from_storage, to_storage

if TYPE_CHECKING:
    from engram_core.engine import Engine

LAST_SLEEP = "schedule.sleep.last_at"
DISPATCHED = "schedule.sleep.dispatched_trigger"
DONE = "schedule.sleep.done_trigger"


class TenantState(str, Enum):
    DUE = "due"
    ALREADY_DISPATCHED = "already_dispatched"  # by this very trigger: a repeated or retried event
    NOT_DUE = "not_due"


@dataclass(frozen=True)
class Claim:
    won: bool
    previous: str = ""  # the dispatch mark before this claim, restored if the dispatch fails


def is_due(last: datetime | None, trigger: datetime, period: timedelta) -> bool:
    """Due when nothing ran yet, or the last run (or dispatch) is a whole period before the trigger (pure)."""
    return last is None or trigger - last >= period


def _mark(engine: Engine, key: str) -> datetime | None:
    raw = engine.store.get_meta(key)
    return from_storage(raw) if raw else None


def last_sleep_or_dispatch(engine: Engine) -> datetime | None:
    marks = [m for m in (_mark(engine, LAST_SLEEP), _mark(engine, DISPATCHED)) if m is not None]
    return max(marks) if marks else None


def due(engine: Engine, trigger: datetime, period: timedelta) -> bool:
    return is_due(last_sleep_or_dispatch(engine), trigger, period)


def state_of(engine: Engine, trigger: datetime, period: timedelta) -> TenantState:
    if engine.store.get_meta(DISPATCHED) == to_storage(trigger):
        return TenantState.ALREADY_DISPATCHED
    return TenantState.DUE if due(engine, trigger, period) else TenantState.NOT_DUE


def claim(engine: Engine, trigger: datetime, period: timedelta) -> Claim:
    """Claim this tenant for the trigger, unless it is not due (or already claimed for it)."""
    if state_of(engine, trigger, period) is not TenantState.DUE:
        return Claim(False)
    previous = engine.store.get_meta(DISPATCHED) or ""
    with engine.store.transaction():
        engine.store.set_meta(DISPATCHED, to_storage(trigger))
    return Claim(True, previous)


def release(engine: Engine, trigger: datetime, previous: str) -> None:
    """Undo a claim whose job could not be dispatched, so a retried event tries again."""
    if engine.store.get_meta(DISPATCHED) == to_storage(trigger):
        with engine.store.transaction():
            engine.store.set_meta(DISPATCHED, previous)


def already_done(engine: Engine, trigger: datetime) -> bool:
    return engine.store.get_meta(DONE) == to_storage(trigger)


def record_sleep(engine: Engine, at: datetime, trigger: datetime | None = None) -> None:
    with engine.store.transaction():
        engine.store.set_meta(LAST_SLEEP, to_storage(at))
        if trigger is not None:
            engine.store.set_meta(DONE, to_storage(trigger))
