"""Request dependencies: the service, the caller's tenant, rate limits and idempotency keys."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request, Response
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from functions import idempotency
from functions.errors import AuthError, RateLimitedError
from functions.service import ReplayKey, Service, WriteOutcome

api_key_scheme = HTTPBearer(scheme_name="apiKey", auto_error=False,
                            description="An API key; it alone decides the tenant.")
admin_key_scheme = HTTPBearer(scheme_name="adminKey", auto_error=False,
                              description="The admin credential of the timer and job path.")


def service_of(request: Request) -> Service:
    return request.app.state.service


async def tenant_of(request: Request,
                    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(api_key_scheme)]) -> str:
    """The tenant named by the API key. The same answer for a missing key and a wrong one.

    It runs in the request's own context (async), so the credentials it scopes reach the handler."""
    service = service_of(request)
    tenant = service.keys.tenant_for(credentials.credentials if credentials else None)
    if tenant is None:
        raise AuthError("missing or invalid API key")
    service.use_request_credentials(request.headers)
    return tenant


def _spend_token(service: Service, tenant: str) -> None:
    wait = service.limiter.take(tenant)
    if wait is not None:
        raise RateLimitedError(wait)


async def limited_tenant_of(request: Request, tenant: Annotated[str, Depends(tenant_of)]) -> str:
    """For endpoints that call a model: one token of the tenant's bucket, or 429."""
    _spend_token(service_of(request), tenant)
    return tenant


async def recall_tenant_of(request: Request, tenant: Annotated[str, Depends(tenant_of)]) -> str:
    """A recall embeds its query: it spends a token when that is a hosted model's call, and none locally."""
    service = service_of(request)
    if service.hosted_embedder:
        _spend_token(service, tenant)
    return tenant


async def replay_key_of(
    request: Request,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=200,
                                                  description="Retry-safe writes: the same key returns the "
                                                              "first result.")] = None,
) -> ReplayKey | None:
    digest = idempotency.check_key(idempotency_key)
    if digest is None:
        return None
    body = await request.body()
    return ReplayKey(digest, idempotency.fingerprint(request.method, request.url.path + "?" + request.url.query, body))


def shape(outcome: WriteOutcome, response: Response) -> object:
    """The stored (or first) result, marked when it is a replay; a kept error goes out as it is."""
    if outcome.replayed and outcome.status >= 400:
        return JSONResponse(outcome.body, status_code=outcome.status, headers={"Idempotent-Replayed": "true"})
    response.status_code = outcome.status
    if outcome.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return outcome.body


# Parameter types for the routes: what each dependency hands a handler.
ServiceDep = Annotated[Service, Depends(service_of)]
TenantDep = Annotated[str, Depends(tenant_of)]
LimitedTenantDep = Annotated[str, Depends(limited_tenant_of)]
RecallTenantDep = Annotated[str, Depends(recall_tenant_of)]
ReplayDep = Annotated[ReplayKey | None, Depends(replay_key_of)]
