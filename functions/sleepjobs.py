"""A sleep job as the timer hands it to an invoker: its signed body, the invoker port, and what it answers."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime
from enum import Enum
from typing import Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from engram_core.core.errors import EngramError
from engram_core.core.timeutil import to_storage


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
    message = f"sleep|{tenant}|{to_storage(trigger)}".encode()
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
