"""POST /invoke: Function Compute's event path (timer events and the per-tenant sleep jobs they fan out).

FC sends the event as the raw body (Content-Type application/octet-stream).
Who may send one:

- on Function Compute (``ENGRAM_PLATFORM=fc``) the ``jobs`` function has no
  HTTP trigger and no custom-domain route, so the only way in is FC's own
  delivery: its timer, its async queue, or a signed InvokeFunction call that
  needs ``fc:InvokeFunction`` on the function. A timer event is trusted there
  and carries no secret (a trigger's payload is readable by anyone with
  read-only FC access);
- anywhere else the path may be reachable over HTTP, so a timer event needs
  the admin key in the Authorization header.

A sleep job always needs the fan-out's signature (an HMAC under the admin key)
or the admin key. The outcome is reported to FC in the ``x-fc-status`` header
as well as the status code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError

from engram_core.tenants.due_index import DueEntry, due_hour
from engram_core.usecases.engine import Engine
from engram_core.core.errors import EngramError, NotFoundError, ValidationError
from engram_core.tenants.ids import check_tenant_id
from engram_core.core.timeutil import check_in_range
from functions import schedule
from functions.deps import ServiceDep, admin_key_scheme
from functions.errors import AuthError, error_response, status_of
from functions.fanout import fan_out
from functions.sleepjobs import SleepJob, signature_valid
from functions.openapi import errors
from engram_core.core.schemas import FanoutOut, SleepJobOut
from functions.service import Service
from functions.settings import FunctionRole, Platform

router = APIRouter(tags=["jobs"])
MAX_EVENT_BYTES = 128 * 1024  # FC's async payload limit; timer events are far smaller
# What a caller without the admin header may send: a signed sleep job or a timer event (16 KB payload at most).
UNSIGNED_EVENT_BYTES = 20 * 1024


class TimerEvent(BaseModel):
    """What FC's timer trigger delivers."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    triggerTime: AwareDatetime
    triggerName: str = Field(max_length=256)
    payload: str | None = Field(None, max_length=16 * 1024)


class TimerPayload(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)  # an admin_key field is refused: no secrets in payloads

    job: str = Field("sleep-due", pattern="^sleep-due$")


def _parse_event(raw: bytes) -> TimerEvent | SleepJob:
    if len(raw) > MAX_EVENT_BYTES:
        raise ValidationError("event is larger than 128 KB", field="body")
    try:
        data = json.loads(raw or b"null")
        if isinstance(data, dict) and "triggerTime" in data:
            return TimerEvent.model_validate(data)
        return SleepJob.model_validate(data)
    except (json.JSONDecodeError, UnicodeDecodeError, PydanticError, RecursionError) as exc:
        raise ValidationError("body must be a timer event or a sleep job (JSON)", field="body") from exc


async def _read_event(request: Request, service: Service, header_key: str | None) -> bytes:
    """The body, read only as far as the caller may send: an unauthenticated body is never read whole."""
    limit = MAX_EVENT_BYTES if service.keys.is_admin(header_key) else UNSIGNED_EVENT_BYTES
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            if limit == UNSIGNED_EVENT_BYTES:
                raise AuthError("missing or invalid admin credential")
            raise ValidationError("event is larger than 128 KB", field="body")
    return bytes(body)


def _check_trigger_time(event: TimerEvent | SleepJob) -> None:
    """A trigger time is stored and compared like any timestamp: it must lie in the supported range."""
    moment, field = (event.triggerTime, "triggerTime") if isinstance(event, TimerEvent) else (event.trigger_time,
                                                                                             "trigger_time")
    try:
        check_in_range(moment.astimezone(timezone.utc), field)
    except OverflowError as exc:
        raise ValidationError(f"{field}: out of the representable range", field=field) from exc


def _timer_payload(event: TimerEvent) -> TimerPayload:
    try:
        return TimerPayload.model_validate_json(event.payload) if event.payload else TimerPayload()
    except PydanticError as exc:
        raise ValidationError('timer payload must be {"job": "sleep-due"}; it never carries a key',
                              field="payload") from exc


def platform_delivers_events(service: Service) -> bool:
    """On FC the jobs function is reachable only through FC itself (no HTTP trigger, no domain route)."""
    settings = service.settings
    return settings.platform is Platform.FC and settings.function is FunctionRole.JOBS


def _check_timer(service: Service, header_key: str | None) -> None:
    if not (platform_delivers_events(service) or service.keys.is_admin(header_key)):
        raise AuthError("missing or invalid admin credential")


def _sleep_once(job: SleepJob, period: timedelta):  # noqa: ANN202 - an operation for stores.run
    def operation(engine: Engine) -> dict:
        if schedule.already_done(engine, job.trigger_time):
            return {"skipped": True, "reason": "done", "gists": 0, "events": 0}
        last = schedule.last_sleep(engine)
        if not schedule.is_due(last, job.trigger_time, period):  # slept meanwhile (by hand, say)
            return {"skipped": True, "reason": "not_due", "next_due": (last + period).isoformat(),
                    "gists": 0, "events": 0}
        done = engine.sleep()
        schedule.record_sleep(engine, job.trigger_time, job.trigger_time)
        return {"skipped": False, "gists": len(done.memories), "events": len(done.events)}

    return operation


def run_sleep_job(service: Service, job: SleepJob) -> dict:
    """One tenant's sleep cycle for one trigger time, at most once, and only when the tenant's own marks agree."""
    tenant = check_tenant_id(job.tenant)
    period = timedelta(hours=service.settings.sleep_period_hours)
    index = service.stores.due_index()
    scheduled = DueEntry(tenant, due_hour(job.trigger_time + period))  # where the fan-out moved it
    if not service.stores.has_tenant(tenant):
        index.drop([scheduled])  # a store made later puts it back on the schedule (see due_index.py)
        raise NotFoundError(f"no tenant {tenant!r}", field="tenant")
    outcome = service.stores.run(tenant, _sleep_once(job, period), write=True)
    if outcome.get("reason") == "not_due":
        index.move(tenant, [scheduled], datetime.fromisoformat(outcome["next_due"]))
    if not outcome["skipped"]:
        outcome["generations_collected"] = service.stores.collect_garbage(tenant)
    return {"tenant": tenant, "trigger_time": job.trigger_time.isoformat(), **outcome}


def _check_job(service: Service, header_key: str | None, job: SleepJob) -> None:
    signed = any(signature_valid(key, job) for key in service.keys.verifying_keys)
    if not (service.keys.is_admin(header_key) or signed):
        raise AuthError("missing or invalid admin credential or job signature")


def _authenticated(service: Service, headers: Mapping[str, str]) -> Mapping[str, str]:
    """Only once the caller is authenticated: the platform's credentials for this request alone (FC)."""
    service.use_request_credentials(headers)
    return service.platform_headers(headers)


def _handle(service: Service, event: TimerEvent | SleepJob, header_key: str | None, headers: Mapping[str, str]) -> dict:
    if isinstance(event, SleepJob):
        _check_job(service, header_key, event)
        _check_trigger_time(event)
        _authenticated(service, headers)
        return run_sleep_job(service, event)
    _check_timer(service, header_key)
    _timer_payload(event)
    _check_trigger_time(event)
    return fan_out(service, event.triggerTime, _authenticated(service, headers)).view()


@router.post("/invoke", response_model=FanoutOut | SleepJobOut, responses=errors(401, 404, 413, 422, 503),
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                 "application/json": {"schema": {"type": "object"}}}}})
async def invoke(request: Request, service: ServiceDep,
                 credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(admin_key_scheme)]
                 ) -> JSONResponse:
    """A timer event fans out one sleep job per due tenant; a sleep job runs one tenant's sleep cycle."""
    header_key = credentials.credentials if credentials else None
    try:
        event = _parse_event(await _read_event(request, service, header_key))
        body = await run_in_threadpool(_handle, service, event, header_key, request.headers)
    except EngramError as exc:
        status = status_of(exc)
        return error_response(status, exc.code, exc.message, exc.field, {"x-fc-status": "404"})
    failed = bool(body.get("failed"))
    return JSONResponse(body, status_code=200, headers={"x-fc-status": "404" if failed else "200"})
