"""The consolidate function: session consolidation, the sleep cycle, dreaming (propose, then apply approved)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from engram_core.usecases.engine import Engine
from functions import schedule
from functions.deps import LimitedTenantDep, ReplayDep, ServiceDep, shape
from functions.openapi import LIMITED_WRITE_ERRORS
from engram_core.core.schemas import (
    ConsolidateRequest, DreamApplyOut, DreamApplyRequest, EventOut, ProposalOut, WriteOut,
)

router = APIRouter(tags=["consolidate"])


@router.post("/consolidate", response_model=WriteOut, responses=LIMITED_WRITE_ERRORS)
def consolidate(body: ConsolidateRequest, response: Response, tenant: LimitedTenantDep,
                replay: ReplayDep, service: ServiceDep) -> object:
    """Turn a session's transcript into durable, adjudicated memories."""

    def write(engine: Engine) -> tuple[int, dict]:
        return 200, WriteOut.view(engine.consolidate(body.session_id))

    return shape(service.write(tenant, write, replay), response)


@router.post("/sleep", response_model=WriteOut, responses=LIMITED_WRITE_ERRORS)
def sleep(response: Response, tenant: LimitedTenantDep,
          replay: ReplayDep, service: ServiceDep) -> object:
    """A sleep cycle for the caller's tenant: decay sweep, faded groups become gists."""

    def write(engine: Engine) -> tuple[int, dict]:
        done = engine.sleep()
        schedule.record_sleep(engine, service.clock.now())
        return 200, WriteOut.view(done)

    result = shape(service.write(tenant, write, replay), response)
    service.stores.collect_garbage(tenant)
    return result


@router.post("/dream", response_model=ProposalOut, responses=LIMITED_WRITE_ERRORS)
def dream(response: Response, tenant: LimitedTenantDep,
          replay: ReplayDep, service: ServiceDep) -> object:
    """Propose merges, forgets and re-importance. Nothing is applied."""

    def write(engine: Engine) -> tuple[int, dict]:
        return 200, ProposalOut.view(engine.dream())

    return shape(service.write(tenant, write, replay), response)


@router.post("/dream/apply", response_model=DreamApplyOut, responses=LIMITED_WRITE_ERRORS)
def dream_apply(body: DreamApplyRequest, response: Response, tenant: LimitedTenantDep,
                replay: ReplayDep, service: ServiceDep) -> object:
    """Apply only the approved action ids, each re-validated against the memories live now."""

    def write(engine: Engine) -> tuple[int, dict]:
        return 200, {"events": [EventOut.view(e) for e in engine.dream_apply(body.proposal_id, body.approved)]}

    return shape(service.write(tenant, write, replay), response)
