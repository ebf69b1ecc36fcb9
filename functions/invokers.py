"""Invokers for the timer's sleep jobs: Function Compute's async InvokeFunction, or the local server itself."""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from engram_core.core.errors import ConfigurationError
from functions.fanout import DispatchError, Handed, SleepJob
from functions.settings import ServiceSettings

log = logging.getLogger("engram.fanout")
LOCAL_TIMEOUT_S = 300
_TASK_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def async_task_id(job: SleepJob) -> str:
    """FC's async task id for a job: the same tenant and trigger always give the same id."""
    tenant = _TASK_ID_UNSAFE.sub("-", job.tenant)
    return f"engram-sleep-{tenant}-{int(job.trigger_time.timestamp())}"[:128]


def fc_credentials(settings: ServiceSettings, headers: Mapping[str, str]) -> tuple[str, str, str | None]:
    """The STS credentials FC sent with this request, else those in the environment."""
    if headers.get("x-fc-access-key-id") and headers.get("x-fc-access-key-secret"):
        return headers["x-fc-access-key-id"], headers["x-fc-access-key-secret"], headers.get("x-fc-security-token")
    if settings.access_key_id is None or settings.access_key_secret is None:
        # Without explicit keys the SDK would probe a metadata service: refuse instead.
        raise ConfigurationError("the fc fan-out needs credentials: FC sends them when the function has a role "
                                 "(or set ALIBABA_CLOUD_ACCESS_KEY_ID and _SECRET)", field="access_key_id")
    token = settings.security_token.get_secret_value() if settings.security_token else None
    return settings.access_key_id.get_secret_value(), settings.access_key_secret.get_secret_value(), token


def _http_status(exc: Exception) -> int | None:
    """The HTTP status of an SDK error, wherever this SDK version keeps it."""
    status = getattr(exc, "status_code", None) or getattr(exc, "statusCode", None)
    data = getattr(exc, "data", None)
    if status is None and isinstance(data, dict):
        status = data.get("statusCode")
    return int(status) if status is not None else None


def job_body(job: SleepJob) -> bytes:
    return job.model_dump_json().encode("utf-8")


class FcInvoker:
    """``InvokeFunction`` with ``x-fc-invocation-type: Async`` through the official SDK."""

    def __init__(self, settings: ServiceSettings, headers: Mapping[str, str]) -> None:
        from alibabacloud_fc20230330.client import Client  # heavy: loaded only by the timer path
        from alibabacloud_tea_openapi.utils_models import Config

        key_id, secret, token = fc_credentials(settings, headers)
        config = Config(access_key_id=key_id, access_key_secret=secret, security_token=token,
                        endpoint=settings.fc_api_endpoint(), region_id=settings.fc_region,
                        protocol=settings.fc_protocol)
        self._client = Client(config)
        self._function = settings.sleep_function()

    def invoke_async(self, job: SleepJob) -> Handed:
        from alibabacloud_fc20230330 import models
        from darabonba.exceptions import DaraException, RetryError, UnretryableException
        from darabonba.runtime import RuntimeOptions

        headers = models.InvokeFunctionHeaders(x_fc_invocation_type="Async", x_fc_async_task_id=async_task_id(job))
        request = models.InvokeFunctionRequest(body=job_body(job))
        try:
            self._client.invoke_function_with_options(self._function, request, headers, RuntimeOptions())
        except DaraException as exc:
            if _http_status(exc) == 409:  # FC's task deduplication: this task id is already queued
                log.info("sleep job for %s was already queued (task %s)", job.tenant, headers.x_fc_async_task_id)
                return Handed.ALREADY_QUEUED
            raise DispatchError(f"InvokeFunction {self._function} failed: HTTP {_http_status(exc)} "
                                f"{getattr(exc, 'code', '') or type(exc).__name__}") from exc
        except (UnretryableException, RetryError, OSError) as exc:
            raise DispatchError(f"InvokeFunction {self._function} failed: {type(exc).__name__}") from exc
        return Handed.QUEUED

    def close(self) -> None:
        pass


class LocalInvoker:
    """The local stand-in for FC's async queue: one worker thread posts each (signed) job to /invoke."""

    def __init__(self, base_url: str) -> None:
        self._url = base_url.rstrip("/") + "/invoke"
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-jobs")

    def invoke_async(self, job: SleepJob) -> Handed:
        try:
            self._pool.submit(self._post, job)
        except RuntimeError as exc:  # the pool is shut down: the server is stopping
            raise DispatchError("the local job queue is closed") from exc
        return Handed.QUEUED

    def _post(self, job: SleepJob) -> None:
        headers = {"Content-Type": "application/octet-stream", "x-fc-invocation-type": "Async"}
        request = urllib.request.Request(self._url, data=job_body(job), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=LOCAL_TIMEOUT_S) as response:
                log.info("sleep job for %s: %s", job.tenant, json.loads(response.read() or b"{}").get("gists"))
        except (urllib.error.URLError, OSError, ValueError) as exc:
            log.warning("sleep job for %s failed: %s", job.tenant, exc)

    def close(self) -> None:
        """Finish queued jobs before the process goes (pre-stop)."""
        self._pool.shutdown(wait=True)
