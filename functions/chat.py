"""The chat function: one turn = decay sweep, recall under the budget, reply, adjudicated write, one commit."""

from __future__ import annotations

from fastapi import APIRouter, Response

from engram_core.usecases.engine import Engine
from functions.deps import LimitedTenantDep, ReplayDep, ServiceDep, shape
from functions.query_ahead import embedding_ahead
from functions.openapi import LIMITED_WRITE_ERRORS
from engram_core.core.schemas import ChatRequest, ChatResponse
from functions.views import chat_view

router = APIRouter(tags=["chat"])


@router.post("/chat", response_model=ChatResponse, responses=LIMITED_WRITE_ERRORS)
def chat(body: ChatRequest, response: Response, tenant: LimitedTenantDep,
         replay: ReplayDep, service: ServiceDep) -> object:
    """One chat turn. What was recalled (with scores and tokens), what was stored or not, and why."""
    session = body.session_id or "default"

    def turn(engine: Engine) -> tuple[int, dict]:
        done = engine.chat(body.message, session_id=session, budget_tokens=body.budget_tokens,
                           occurred_at=body.occurred_at)
        return 200, chat_view(done, session, engine.count_tokens(done.reply), engine.llm_id)

    with embedding_ahead(service.ahead_embedder(), body.message):  # the turn recalls with the message
        return shape(service.write(tenant, turn, replay), response)
