"""The memories function: list, inspect, remember, recall, forget, beliefs, events, export/import, stats.

Reads run with ``write=False`` and never write a generation; POST /recall does
not reinforce (only a chat turn, which gives the block to a model, does).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from engram_core.usecases.engine import Engine
from engram_core.core.errors import ValidationError
from functions.deps import LimitedTenantDep, RecallTenantDep, ReplayDep, ServiceDep, TenantDep, shape
from functions.query_ahead import embedding_ahead
from functions.openapi import LIMITED_READ_ERRORS, LIMITED_WRITE_ERRORS, READ_ERRORS, WRITE_ERRORS
from engram_core.core.schemas import (
    BeliefOut, BeliefsOut, EventOut, EventsOut, ForgetOut, ImportOut, MemoryDetail, MemoryPage, RecallOut,
    RecallRequest, RememberRequest, StatsOut, WriteOut,
)
from functions.views import memory_detail_view, page_view

router = APIRouter(tags=["memories"])
Kind = Literal["preference", "fact", "skill", "episode", "gist"]
Status = Literal["active", "superseded", "decayed", "archived", "deleted"]
NDJSON = "application/x-ndjson"
WhenQuery = Annotated[str | None, Query(max_length=64, description="ISO-8601 date or date-time.")]


@router.get("/memories", response_model=MemoryPage, responses=READ_ERRORS)
def list_memories(tenant: TenantDep, service: ServiceDep, kind: Annotated[list[Kind], Query()] = (),
                  status: Annotated[list[Status], Query()] = (), as_of: WhenQuery = None,
                  text: Annotated[str | None, Query(min_length=1, max_length=500, description="Substring.")] = None,
                  limit: Annotated[int, Query(ge=1, le=500)] = 50,
                  offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0) -> dict:
    """Memories in creation order, filtered; ``as_of`` keeps those that existed by then."""
    found = service.read(tenant, lambda e: e.memories(status=status, kind=kind, text=text, limit=limit,
                                                      offset=offset, as_of=as_of))
    return page_view(found, limit, offset)


@router.get("/memories/{memory_id}", response_model=MemoryDetail, responses=READ_ERRORS)
def get_memory(memory_id: str, tenant: TenantDep, service: ServiceDep) -> dict:
    """One memory with its provenance (source messages) and belief history."""
    return service.read(tenant, lambda e: memory_detail_view(e, memory_id))


@router.post("/memories", status_code=201, response_model=WriteOut, responses=LIMITED_WRITE_ERRORS)
def remember(body: RememberRequest, response: Response, tenant: LimitedTenantDep, replay: ReplayDep,
             service: ServiceDep) -> object:
    """Remember explicitly; a caller-set importance bypasses the importance gate."""

    def write(engine: Engine) -> tuple[int, dict]:
        done = engine.remember(body.text, kind=body.kind, importance=body.importance, session_id=body.session_id)
        return 201, WriteOut.view(done)

    return shape(service.write(tenant, write, replay), response)


@router.post("/recall", response_model=RecallOut, responses=LIMITED_READ_ERRORS)
def recall(body: RecallRequest, tenant: RecallTenantDep, service: ServiceDep) -> dict:
    """Recall only: the packed block and the items with their scores. Writes nothing."""
    with embedding_ahead(service.ahead_embedder(), body.query):  # while the tenant's copy is made current
        return service.read(tenant, lambda e: RecallOut.view(
            e.recall(body.query, body.budget_tokens, as_of=body.as_of, reinforce=False)))


@router.delete("/memories/{memory_id}", response_model=ForgetOut, responses=WRITE_ERRORS)
def forget(memory_id: str, response: Response, tenant: TenantDep, replay: ReplayDep, service: ServiceDep,
           purge: Annotated[bool, Query(description="Hard delete for privacy.")] = False) -> object:
    """Soft forget (kept for audit); ``purge=true`` deletes text, vector and derived text."""

    def write(engine: Engine) -> tuple[int, dict]:
        return 200, {"events": [EventOut.view(e) for e in engine.forget(memory_id, purge=purge)]}

    return shape(service.write(tenant, write, replay), response)


@router.get("/beliefs", response_model=BeliefsOut, responses=READ_ERRORS)
def beliefs(tenant: TenantDep, service: ServiceDep, as_of: WhenQuery = None,
            subject: Annotated[str | None, Query(min_length=1, max_length=200,
                                                 description="Whole history of a subject.")] = None) -> dict:
    """What is true now, what was true ``as_of`` a date, or the whole history of one subject."""
    if subject is not None and as_of is not None:
        raise ValidationError("give as_of or subject, not both", field="subject")
    found = service.read(tenant, lambda e: e.history(subject) if subject else e.beliefs(as_of))
    return {"as_of": as_of, "items": [BeliefOut.view(b) for b in found]}


@router.get("/events", response_model=EventsOut, responses=READ_ERRORS)
def events(tenant: TenantDep, service: ServiceDep, since: WhenQuery = None,
           limit: Annotated[int, Query(ge=1, le=10_000)] = 1000) -> dict:
    """The audit log of engine decisions, oldest first."""
    return {"items": [EventOut.view(e) for e in service.read(tenant, lambda e: e.events(since, limit))]}


@router.get("/export", response_class=Response, responses={
    200: {"content": {NDJSON: {"schema": {"type": "string"}}}, "description": "The tenant as JSON lines."},
    **READ_ERRORS})
def export(tenant: TenantDep, service: ServiceDep) -> Response:
    """The whole tenant as JSON lines, lossless (header line first)."""
    lines = service.read(tenant, lambda e: list(e.export_lines()))
    return Response("".join(line + "\n" for line in lines), media_type=NDJSON)


@router.post("/import", response_model=ImportOut, responses=WRITE_ERRORS, openapi_extra={
    "requestBody": {"required": True, "content": {NDJSON: {"schema": {"type": "string"}}}}})
async def import_lines(request: Request, response: Response, tenant: TenantDep, replay: ReplayDep,
                       service: ServiceDep) -> object:
    """Import an export (JSON lines); all or nothing."""
    try:
        lines = (await request.body()).decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ValidationError("the import body must be UTF-8 JSON lines", field="body") from exc

    def write(engine: Engine) -> tuple[int, dict]:
        return 200, {"imported": engine.import_lines(lines)}

    return shape(await run_in_threadpool(service.write, tenant, write, replay), response)


@router.get("/stats", response_model=StatsOut, responses=READ_ERRORS)
def stats(tenant: TenantDep, service: ServiceDep) -> dict:
    """Counts, schema, providers and clock of the caller's tenant."""
    return {"tenant": tenant, "stats": service.read(tenant, lambda e: e.stats())}

