"""Health and Function Compute's lifecycle hooks: cheap, and nothing lost on the way out."""

from __future__ import annotations

from fastapi import APIRouter

from engram_core import __version__
from functions.deps import ServiceDep
from functions.openapi import PUBLIC_ERRORS
from functions.schemas import HealthOut, LifecycleOut

router = APIRouter(tags=["lifecycle"])


@router.get("/healthz", response_model=HealthOut, responses=PUBLIC_ERRORS)
def healthz(service: ServiceDep) -> dict:
    """Liveness; loads nothing."""
    return {"status": "ok", "function": service.settings.function.value, "version": __version__}


@router.post("/initialize", response_model=LifecycleOut, responses=PUBLIC_ERRORS)
def initialize(service: ServiceDep) -> dict:
    """FC's initializer: load the local embedder once, so the first real request does not pay for it."""
    from engram_core.adapters.minilm import MiniLMEmbedder
    from engram_core.providers import build_providers

    embedder = build_providers(embedder=service.settings.embedder).embedder
    if isinstance(embedder, MiniLMEmbedder):
        embedder.embed(["warm up"])
    return {"status": "ok", "detail": f"embedder {embedder.model_id} ready"}


@router.get("/pre-stop", response_model=LifecycleOut, responses=PUBLIC_ERRORS)
def pre_stop(service: ServiceDep) -> dict:
    """FC's pre-stop hook: finish queued jobs and close every warm store before the instance goes."""
    service.flush()
    return {"status": "ok", "detail": "jobs finished, stores closed"}
