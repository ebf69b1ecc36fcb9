"""The timer's fan-out: one asynchronous sleep job per due tenant, bounded per run, idempotent per trigger time."""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from engram_core.errors import ConfigurationError, EngramError
from engram_core.timeutil import to_storage
from functions import schedule

if TYPE_CHECKING:
    from functions.service import Service

log = logging.getLogger("engram.fanout")


class DispatchError(EngramError):
    """A job could not be handed to the invoker."""

    code = "dispatch_failed"


class SleepJob(BaseModel):
    """The body of one asynchronous per-tenant invocation (well under FC's 128 KB async limit).

    It carries an HMAC of (tenant, trigger time) under the admin key, never the key itself:
    async payloads are kept by FC, and a signed job is good for its own tenant and trigger only.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    job: str = Field("sleep", pattern="^sleep$")
    tenant: str = Field(min_length=1, max_length=64)
    trigger_time: AwareDatetime
    signature: str | None = Field(None, max_length=128)


def job_signature(admin_key: str, tenant: str, trigger: datetime) -> str:
    message = f"sleep|{tenant}|{to_storage(trigger)}".encode("utf-8")
    return hmac.new(admin_key.encode("utf-8"), message, hashlib.sha256).hexdigest()


def signed_job(admin_key: str, tenant: str, trigger: datetime) -> SleepJob:
    return SleepJob(tenant=tenant, trigger_time=trigger, signature=job_signature(admin_key, tenant, trigger))


def signature_valid(admin_key: str | None, job: SleepJob) -> bool:
    if not admin_key or not job.signature:
        return False
    return hmac.compare_digest(job_signature(admin_key, job.tenant, job.trigger_time), job.signature)


class Invoker(Protocol):
    def invoke_async(self, job: SleepJob) -> None:
        """Hand the job over for asynchronous execution; raises DispatchError when it cannot."""
        ...

    def close(self) -> None:
        ...


@dataclass
class FanoutReport:
    trigger_time: datetime
    dispatched: list[str] = field(default_factory=list)
    already_dispatched: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    not_due: int = 0
    truncated: bool = False

    def view(self) -> dict:
        return {"trigger_time": self.trigger_time.isoformat(), "dispatched": self.dispatched,
                "already_dispatched": self.already_dispatched, "failed": self.failed,
                "not_due": self.not_due, "truncated": self.truncated}


def _dispatch_one(service: Service, invoker: Invoker, tenant: str, trigger: datetime, period: timedelta,
                  report: FanoutReport, admin_key: str) -> None:
    claimed = service.stores.run(tenant, lambda e: schedule.claim(e, trigger, period), write=True)
    if not claimed.won:  # another instance handling the same event got there first
        report.already_dispatched.append(tenant)
        return
    try:
        invoker.invoke_async(signed_job(admin_key, tenant, trigger))
    except DispatchError as exc:
        log.warning("dispatch to %s failed: %s", tenant, exc.message)
        service.stores.run(tenant, lambda e: schedule.release(e, trigger, claimed.previous), write=True)
        report.failed.append(tenant)
        return
    report.dispatched.append(tenant)


def fan_out(service: Service, trigger: datetime, headers: Mapping[str, str]) -> FanoutReport:
    """Dispatch a sleep job to each due tenant, at most ``fanout_max_per_run`` of them."""
    if service.settings.admin_key is None:
        raise ConfigurationError("the fan-out signs its jobs with ENGRAM_ADMIN_KEY; set it", field="admin_key")
    admin_key = service.settings.admin_key.get_secret_value()
    invoker = service.invoker(headers)  # built before any claim: a configuration error leaves no tenant claimed
    period = timedelta(hours=service.settings.sleep_period_hours)
    report = FanoutReport(trigger)
    for tenant in service.stores.tenants():
        state = service.read(tenant, lambda e: schedule.state_of(e, trigger, period))
        if state is schedule.TenantState.ALREADY_DISPATCHED:
            report.already_dispatched.append(tenant)
        elif state is schedule.TenantState.NOT_DUE:
            report.not_due += 1
        elif len(report.dispatched) >= service.settings.fanout_max_per_run:
            report.truncated = True
            break
        else:
            _dispatch_one(service, invoker, tenant, trigger, period, report, admin_key)
    return report
