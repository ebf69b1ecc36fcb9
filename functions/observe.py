"""``POST /observe``: store one message of a conversation without a reply (the CLI's ``engram observe``).

Important messages become episodes and their facts are extracted and adjudicated, as
in a chat turn; a message ``id`` that was already observed is skipped (200, nothing
written), so replaying a transcript is safe.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Response
from pydantic import Field

from engram_core.usecases.engine import Engine
from functions.deps import LimitedTenantDep, ReplayDep, ServiceDep, shape
from functions.openapi import LIMITED_WRITE_ERRORS
from engram_core.core.schemas import MAX_TEXT_CHARS, When, WriteOut, _Request

router = APIRouter(tags=["memories"])


class ObserveRequest(_Request):
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    role: Literal["user", "assistant"] = "user"
    session_id: str | None = Field(None, min_length=1, max_length=200)
    id: str | None = Field(None, min_length=1, max_length=200, description="The message's own id: observed once.")
    occurred_at: str | None = When
    speaker: str | None = Field(None, min_length=1, max_length=200, description="Who said it (default: the role).")


@router.post("/observe", status_code=201, response_model=WriteOut, responses=LIMITED_WRITE_ERRORS)
def observe(body: ObserveRequest, response: Response, tenant: LimitedTenantDep, replay: ReplayDep,
            service: ServiceDep) -> object:
    """Store a message: gated by importance, facts extracted and adjudicated; 200 when its id was seen before."""

    def write(engine: Engine) -> tuple[int, dict]:
        done = engine.observe(body.text, role=body.role, session_id=body.session_id, message_id=body.id,
                              occurred_at=body.occurred_at, speaker=body.speaker)
        return (201 if done.events else 200), WriteOut.view(done)

    return shape(service.write(tenant, write, replay), response)
