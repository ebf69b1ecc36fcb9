"""When a tenant is due for its sleep cycle: the marks each tenant's own store keeps.

Each store records when its last sleep cycle ran and the trigger time of the
last timer event whose job it carried out. The timer decides whom to dispatch
from the due index (engram_core/tenants/due_index.py), without opening any store; the
job then checks these marks, so a retried job does no double work and a job
for a tenant that slept meanwhile (by hand, say) does nothing at all.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from engram_core.core.timeutil import from_storage, to_storage

if TYPE_CHECKING:
    from engram_core.usecases.engine import Engine

LAST_SLEEP = "schedule.sleep.last_at"
DONE = "schedule.sleep.done_trigger"


def is_due(last: datetime | None, trigger: datetime, period: timedelta) -> bool:
    """Due when nothing ran yet, or the last run is a whole period before the trigger (pure)."""
    return last is None or trigger - last >= period


def last_sleep(engine: Engine) -> datetime | None:
    raw = engine.meta.get_meta(LAST_SLEEP)
    return from_storage(raw) if raw else None


def already_done(engine: Engine, trigger: datetime) -> bool:
    return engine.meta.get_meta(DONE) == to_storage(trigger)


def record_sleep(engine: Engine, at: datetime, trigger: datetime | None = None) -> None:
    with engine.meta.transaction():
        engine.meta.set_meta(LAST_SLEEP, to_storage(at))
        if trigger is not None:
            engine.meta.set_meta(DONE, to_storage(trigger))
