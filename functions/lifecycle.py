"""Health and Function Compute's lifecycle hooks: cheap, and nothing lost on the way out.

The hooks are not a public switch. Off Function Compute they need the admin
credential. On Function Compute (``ENGRAM_PLATFORM=fc``) the platform calls
them with no credential of ours, and its HTTP triggers may pass the same paths
through from clients, so there they are open and made safe to call at any
time: ``/pre-stop`` waits for the requests in flight, closes only what is idle
and loses nothing; everything reopens on the next request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.security import HTTPAuthorizationCredentials

from engram_core import __version__
from functions.deps import ServiceDep, admin_key_scheme
from functions.errors import AuthError
from functions.openapi import PUBLIC_ERRORS, errors
from engram_core.core.schemas import HealthOut, LifecycleOut
from functions.settings import Platform

router = APIRouter(tags=["lifecycle"])
HOOK_ERRORS = errors(401, 413)


def platform_or_admin(service: ServiceDep,
                      credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(admin_key_scheme)]) -> None:
    """On Function Compute the platform calls the hooks; anywhere else only the admin credential may."""
    if service.settings.platform is Platform.FC:
        return
    if not service.keys.is_admin(credentials.credentials if credentials else None):
        raise AuthError("missing or invalid admin credential")


HookCaller = Depends(platform_or_admin)


@router.get("/healthz", response_model=HealthOut, responses=PUBLIC_ERRORS)
def healthz(service: ServiceDep) -> dict:
    """Liveness; loads nothing."""
    return {"status": "ok", "function": service.settings.function.value, "version": __version__}


@router.post("/initialize", response_model=LifecycleOut, responses=HOOK_ERRORS, dependencies=[HookCaller])
def initialize(service: ServiceDep) -> dict:
    """FC's initializer: load the local embedder, the token vocabulary and the read path before any request."""
    from functions.warmup import warm_up

    return {"status": "ok", "detail": f"embedder {warm_up(service.tenant_embedder())} ready"}


@router.get("/pre-stop", response_model=LifecycleOut, responses=HOOK_ERRORS, dependencies=[HookCaller])
def pre_stop(service: ServiceDep) -> dict:
    """FC's pre-stop hook: finish queued jobs, then close each warm store once its requests are done."""
    service.flush()
    return {"status": "ok", "detail": "jobs finished, stores closed"}
