"""The timer's fan-out: one asynchronous sleep job per due tenant, bounded per run, idempotent per trigger time.

Whom to dispatch comes from the due index (a listing that stops at the trigger's hour), never from
reading the tenants' stores; a create-only claim per (trigger, tenant) makes a retried timer event
dispatch nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from engram_core.core.errors import ConfigurationError
from engram_core.tenants.due_index import DueEntry, DueIndex
from functions.sleepjobs import DispatchError, Handed, Invoker, signed_job

if TYPE_CHECKING:
    from functions.service import Service

log = logging.getLogger("engram.fanout")


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
