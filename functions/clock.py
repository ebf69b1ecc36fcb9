"""The tenant's clock: read it, or move it forward so weeks of decay happen in minutes.

The offset is stored in the tenant's own store (like ``engram clock advance``),
so every instance and every later request sees the same engine time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, ConfigDict, Field

from engram_core.core.timeutil import parse_duration
from functions.deps import replay_key_of, service_of, shape, tenant_of
from functions.openapi import READ_ERRORS, WRITE_ERRORS
from functions.service import ReplayKey, Service

if TYPE_CHECKING:
    from engram_core.usecases.engine import Engine

router = APIRouter(tags=["clock"])


class ClockAdvanceRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    duration: str = Field(min_length=1, max_length=32, description="How far to move: 90m, 36h, 1d, 1w, 3w.")


class ClockOut(BaseModel):
    now: str = Field(description="The tenant's engine time: the real clock plus the offset.")
    offset_hours: float
    decay_floor: float = Field(description="Retention below which a memory is decayed (out of recall).")
    critical_importance: float = Field(description="Importance at or above which a memory never decays.")


def clock_view(engine: Engine) -> dict:
    return {"now": engine.now().isoformat(), "offset_hours": round(engine.clock_offset().total_seconds() / 3600, 6),
            "decay_floor": engine.config.decay_floor, "critical_importance": engine.config.critical_importance}


@router.get("/clock", response_model=ClockOut, responses=READ_ERRORS)
def read_clock(tenant: str = Depends(tenant_of), service: Service = Depends(service_of)) -> dict:
    """The tenant's engine time and offset, and the thresholds forgetting is measured against."""
    return service.read(tenant, clock_view)


@router.post("/clock/advance", response_model=ClockOut, responses=WRITE_ERRORS)
def advance_clock(body: ClockAdvanceRequest, response: Response, tenant: str = Depends(tenant_of),
                  replay: ReplayKey | None = Depends(replay_key_of),
                  service: Service = Depends(service_of)) -> object:
    """Move the tenant's clock forward (it never moves back); the next turn's sweep sees the decay."""
    delta = parse_duration(body.duration)

    def write(engine: Engine) -> tuple[int, dict]:
        engine.advance_clock(delta)
        return 200, clock_view(engine)

    return shape(service.write(tenant, write, replay), response)
