"""The timer's fan-out: one asynchronous sleep job per due tenant, bounded per run, idempotent per trigger time.

Whom to dispatch comes from the due index (a listing that stops at the trigger's hour), never from
reading the tenants' stores; a create-only claim per (trigger, tenant) makes a retried timer event
dispatch nothing twice.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from engram_core.tenants.due_index import DueEntry, DueIndex
from engram_core.core.errors import ConfigurationError, EngramError
from engram_core.core.timeutil import to_storage

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


class Handed(str, Enum):
    """What the invoker did with a job."""

    QUEUED = "queued"
    ALREADY_QUEUED = "already_queued"  # FC answered 409 for the task id: its dedup, the job is queued


class Invoker(Protocol):
    def invoke_async(self, job: SleepJob) -> Handed:
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
    truncated: bool = False

    def view(self) -> dict:
        return {"trigger_time": self.trigger_time.isoformat(), "dispatched": self.dispatched,
                "already_dispatched": self.already_dispatched, "failed": self.failed, "truncated": self.truncated}


@dataclass(frozen=True)
class _Run:
    invoker: Invoker
    index: DueIndex
    trigger: datetime
    period: timedelta
    signing_key: str


def _dispatch_one(run: _Run, tenant: str, entries: list[DueEntry], report: FanoutReport) -> None:
    if not run.index.claim(tenant, run.trigger):  # another handler of the same event got there first
        report.already_dispatched.append(tenant)
    else:
        try:
            handed = run.invoker.invoke_async(signed_job(run.signing_key, tenant, run.trigger))
        except DispatchError as exc:
            log.warning("dispatch to %s failed: %s", tenant, exc.message)
            run.index.release(tenant, run.trigger)
            report.failed.append(tenant)
            return
        (report.dispatched if handed is Handed.QUEUED else report.already_dispatched).append(tenant)
    run.index.move(tenant, entries, run.trigger + run.period)  # idempotent: a retry finishes a cut-short move


def signing_key(service: Service) -> str:
    key = service.keys.signing_key
    if key is None:
        raise ConfigurationError("the fan-out signs its jobs with the admin key: set ENGRAM_ADMIN_KEY_FILE "
                                 "(or ENGRAM_ADMIN_KEY)", field="admin_key")
    return key


def fan_out(service: Service, trigger: datetime, headers: Mapping[str, str]) -> FanoutReport:
    """Dispatch a sleep job to each tenant the due index names, at most ``fanout_max_per_run`` of them."""
    key = signing_key(service)
    invoker = service.invoker(headers)  # built before any claim: a configuration error leaves no tenant claimed
    index = service.stores.due_index()
    if not index.built():  # once, for stores that predate the index
        index.build(service.stores.tenants(), trigger)
    run = _Run(invoker, index, trigger, timedelta(hours=service.settings.sleep_period_hours), key)
    due = index.due(trigger, service.settings.fanout_max_per_run)
    report = FanoutReport(trigger, truncated=due.truncated)
    for tenant, entries in due.entries.items():
        _dispatch_one(run, tenant, entries, report)
    return report
