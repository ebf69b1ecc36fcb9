"""The service behind the routes: tenant stores, credentials, rate limits, idempotent writes, the fan-out."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from engram_core.adapters.clock import SystemClock
from engram_core.core.ports import Clock, Embedder
from functions import idempotency
from engram_core.tenants.credentials import KeyRing, parse_key_entries
from functions.keysource import KeySource
from functions.query_ahead import AheadEmbedder
from functions.ratelimit import RateLimiter
from functions.settings import AppSettings, FanoutMode, Platform, ServiceSettings

if TYPE_CHECKING:
    from engram_core.providers import ProviderRoot
    from engram_core.tenants.tenancy import TenantStores
    from engram_core.usecases.engine import Engine
    from functions.sleepjobs import Invoker

T = TypeVar("T")


@dataclass(frozen=True)
class ReplayKey:
    """An Idempotency-Key (hashed) and the fingerprint of the request that carried it."""

    digest: str
    fingerprint: str


@dataclass(frozen=True)
class WriteOutcome:
    status: int
    body: object
    replayed: bool


@dataclass
class Service:
    settings: ServiceSettings
    stores: TenantStores
    keys: KeyRing | KeySource
    limiter: RateLimiter
    providers: ProviderRoot  # what every tenant engine is built from
    clock: Clock = field(default_factory=lambda: SystemClock())
    self_url: str | None = None  # where this server listens, for local jobs
    hosted_embedder: bool = False  # each recall then calls a model: it is rate limited like the model routes
    _invoker: Invoker | None = field(default=None, repr=False)
    _invoker_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def invoker(self, headers: Mapping[str, str] | None = None) -> Invoker:
        """FC: a client on this request's STS credentials (they rotate). Local: one job queue, kept."""
        from functions.invokers import FcInvoker, LocalInvoker

        if self.settings.fanout_mode is FanoutMode.FC:
            return FcInvoker(self.settings, headers or {})
        with self._invoker_lock:
            if self._invoker is None:
                self._invoker = LocalInvoker(self.settings.local_url or self.self_url or "http://127.0.0.1:9000")
            return self._invoker

    def tenant_embedder(self) -> Embedder:
        """The embedder tenant engines get."""
        return self.providers.providers().embedder

    def ahead_embedder(self) -> Embedder | None:
        """What a request may embed its query with ahead of its engine (query_ahead.py): a local embedder
        only (a hosted one's calls are metered per tenant engine and rate limited)."""
        return None if self.hosted_embedder else self.tenant_embedder()

    def platform_headers(self, headers: Mapping[str, str]) -> Mapping[str, str]:
        """The request's headers where the platform vouches for its x-fc-* ones (FC), else none at all."""
        return headers if self.settings.platform is Platform.FC else {}

    def use_request_credentials(self, headers: Mapping[str, str]) -> None:
        """On FC, after authentication: this request's storage calls (and only its own) use the STS
        credentials the platform sent with it. Anywhere else x-fc-* headers are the client's: ignored."""
        scope = getattr(self.stores, "use_request_credentials", None)
        if scope is not None and self.settings.platform is Platform.FC:
            scope(headers)

    def flush(self) -> None:
        """Finish queued jobs and close warm stores (pre-stop); both reopen on the next request."""
        with self._invoker_lock:
            invoker, self._invoker = self._invoker, None
        if invoker is not None:
            invoker.close()
        self.stores.close()

    def read(self, tenant: str, operation: Callable[[Engine], T]) -> T:
        """Reads never write a generation."""
        return self.stores.run(tenant, operation, write=False)

    def write(self, tenant: str, operation: Callable[[Engine], tuple[int, object]],
              replay_key: ReplayKey | None) -> WriteOutcome:
        """Run a write once per Idempotency-Key: a retry returns the first result and writes nothing."""

        def once(engine: Engine) -> WriteOutcome:
            if replay_key is not None:
                found = idempotency.find(engine.meta, replay_key.digest, replay_key.fingerprint)
                if found is not None:
                    return WriteOutcome(found.status, found.body, replayed=True)
            status, body = operation(engine)
            if replay_key is not None:
                idempotency.save(engine.meta, replay_key.digest, replay_key.fingerprint,
                                 idempotency.Replay(status, body))
            return WriteOutcome(status, body, replayed=False)

        return self.stores.run(tenant, once, write=True)

    def close(self) -> None:
        self.flush()


def open_engine_for(root: ProviderRoot) -> Callable[[Path], Engine]:
    """Every tenant's engine gets the providers of one root: settings read once, one shared client."""
    def open_tenant_engine(path: Path) -> Engine:
        from engram_core import open_engine

        providers = root.providers()
        if not root.hosted_embedder:  # takes the query a request embedded ahead (query_ahead.py)
            providers = replace(providers, embedder=AheadEmbedder(providers.embedder))
        return open_engine(path, providers=providers)

    return open_tenant_engine


def load_key_ring(settings: AppSettings, extra_keys: list | None = None) -> KeySource:
    """Keys from ENGRAM_API_KEYS, plus any given (the dev key of `engram serve`), and the files, kept fresh."""
    from engram_core.tenants.keyfile import read_key_file  # a path, or oss://bucket/key

    keys = list(extra_keys or [])
    if settings.service.api_keys is not None:
        keys += parse_key_entries(settings.service.api_keys.get_secret_value(), "ENGRAM_API_KEYS")
    oss = settings.engram.oss
    return KeySource(settings.service, keys, read=lambda location: read_key_file(location, oss))


def check_object_store(settings: AppSettings) -> None:
    """Fail at start-up, not on the first request, when OSS requests could not be signed (V4 needs the region)."""
    service = settings.service
    locations = (service.tenant_root(), service.api_keys_file or "", service.admin_key_file or "")
    if any(location.startswith("oss://") for location in locations):
        settings.engram.oss.signing_region()


def build_service(settings: AppSettings, *, extra_keys: list | None = None,
                  stores: TenantStores | None = None, providers: ProviderRoot | None = None) -> Service:
    """The HTTP service's composition root, from the settings read at start-up: the providers' client is
    built here, once, for every tenant engine the service opens, and nothing below reads the environment."""
    from engram_core.providers import provider_root
    from engram_core.tenants.tenancy import open_tenant_stores

    check_object_store(settings)
    service = settings.service
    root = providers or provider_root(settings.engram.providers, embedder=service.embedder)
    return Service(
        settings=service,
        stores=stores or open_tenant_stores(service.tenant_root(), open_engine_for(root), settings.engram),
        keys=load_key_ring(settings, extra_keys),
        limiter=RateLimiter(service.rate_per_minute, service.rate_burst),
        providers=root,
        hosted_embedder=root.hosted_embedder,
    )
