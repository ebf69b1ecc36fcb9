"""``engram serve``: every function's routes on one local HTTP server (FastAPI on uvicorn).

On the embedded default (a local tenant directory, local MiniLM, the offline
bookkeeper) and with no API keys configured, it makes a dev key for tenant
``dev`` and prints it, so the server is usable at once and still authenticated.
"""

from __future__ import annotations

import errno
import socket
import time
from typing import TYPE_CHECKING

import click
from pydantic import SecretStr

from engram_core.cli.common import handle_errors
from engram_core.core.errors import ConfigurationError

if TYPE_CHECKING:  # the service's settings load when `engram serve` runs, not for `engram --help`
    from functions.service import Service
    from functions.settings import ServiceSettings

DEV_TENANT = "dev"
FUNCTIONS = ["all", "chat", "memories", "consolidate", "jobs"]


def _dev_credentials(settings: ServiceSettings, dev_key: str | None,
                     renew: bool) -> tuple[list, dict[str, str], dict[str, SecretStr]]:
    """A dev API key when none is configured (never on cloud storage), kept between starts unless ``renew``,
    and an admin key for local jobs."""
    from engram_core.tenants.credentials import KeyEntry, hash_key, new_key

    overrides: dict[str, SecretStr] = {}
    keys: dict[str, str] = {}
    entries = []
    if settings.api_keys is None and settings.api_keys_file is None:
        if settings.tenant_root().startswith("oss://"):
            raise ConfigurationError("no API keys configured: set ENGRAM_API_KEYS or ENGRAM_API_KEYS_FILE",
                                     field="api_keys")
        if dev_key:
            keys["api"] = dev_key
        else:
            from functions.devkey import dev_key_path, kept_dev_key

            keys["api"], made = kept_dev_key(settings.tenant_root(), new_key(), renew)
            keys["api_note"] = (f"{'new, ' if made else ''}kept in {dev_key_path(settings.tenant_root())} "
                                "(owner-only); --new-dev-key for another")
        entries.append(KeyEntry(tenant=DEV_TENANT, hash=hash_key(keys["api"])).stored())
    if settings.admin_key is None and not settings.tenant_root().startswith("oss://"):
        keys["admin"] = new_key()
        overrides["admin_key"] = SecretStr(keys["admin"])
    return entries, keys, overrides


def _announce(url: str, keys: dict[str, str], store: str, default_store: bool) -> None:
    click.echo(f"engram: serving on {url} (OpenAPI at {url}/openapi.json)")
    if "api" in keys:
        click.echo(f"engram: dev API key for tenant '{DEV_TENANT}': {keys['api']}")
    where = " (the per-user default: --store DIR or ENGRAM_TENANT_STORE for another)" if default_store else ""
    click.echo(f"engram: tenant stores in {store}{where}")
    if "api_note" in keys:
        click.echo(f"engram: the dev key is {keys['api_note']}")
    if "api" in keys:
        click.echo(f"engram: try: curl -H 'Authorization: Bearer {keys['api']}' {url}/stats")


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything is announced, so a taken port is one clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=2048)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ConfigurationError(
                f"port {port} on {host} is already in use (another engram serve?): stop that server, or start "
                f"this one on another port, e.g. --port {port + 1 if port < 65535 else port - 1}",
                field="port") from exc
        raise ConfigurationError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", field="port") from exc


def _print_new_key(tenant: str) -> None:
    from engram_core.tenants.credentials import KeyEntry, hash_key, new_key

    key = new_key()
    entry = KeyEntry(tenant=tenant, hash=hash_key(key))
    click.echo(f"API key (give it to the tenant, store it nowhere else): {key}")
    click.echo(f"entry for ENGRAM_API_KEYS or the keys file: {entry.model_dump_json()}")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0 in a container).")
@click.option("--port", default=9000, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on.")
@click.option("--store", "tenant_store", metavar="DIR|oss://BUCKET/PREFIX",
              help="Tenant stores (env ENGRAM_TENANT_STORE; default: a per-user data dir).")
@click.option("--embedder", type=click.Choice(["minilm", "hashing", "qwen"]), help="Embedder (env ENGRAM_EMBEDDER).")
@click.option("--function", "function", type=click.Choice(FUNCTIONS), help="Routes to serve (env ENGRAM_FUNCTION).")
@click.option("--dev-key", envvar="ENGRAM_DEV_KEY", metavar="KEY",
              help="Use this dev API key instead of the kept one (not stored).")
@click.option("--new-dev-key", "renew_dev_key", is_flag=True,
              help="Replace the kept dev API key with a new one (an open board tab must sign in again).")
@click.option("--new-key", "new_key_for", metavar="TENANT", help="Print a new API key and its hashed entry; exit.")
@click.option("--env-table", is_flag=True, help="Print the environment variables the server reads; exit.")
@click.option("--openapi", "openapi", is_flag=True,
              help="Print the OpenAPI document of the deployed origin (docs/openapi.json); exit.")
@handle_errors
def serve(host: str, port: int, tenant_store: str | None, embedder: str | None, function: str | None,
          dev_key: str | None, renew_dev_key: bool, new_key_for: str | None, env_table: bool,
          openapi: bool) -> None:
    """Run the HTTP API (chat, memories, /v1, /mcp, consolidate, /invoke) on one local server.

    With no API keys configured it serves tenant 'dev' with a dev key, kept beside the stores between starts.
    """
    from functions.settings import env_table as settings_table

    if env_table:
        click.echo(settings_table())
        return
    if openapi:
        import json

        from functions.app import origin_document

        click.echo(json.dumps(origin_document(), indent=2, sort_keys=True))
        return
    if new_key_for:
        from engram_core.tenants.ids import check_tenant_id

        _print_new_key(check_tenant_id(new_key_for))
        return
    _run({"tenant_store": tenant_store, "embedder": embedder, "function": function}, host, port, dev_key,
         renew_dev_key)


def _run(options: dict, host: str, port: int, dev_key: str | None, renew: bool) -> None:
    import uvicorn
    from threadpoolctl import threadpool_limits

    from functions.app import create_app
    from functions.middleware import configure_logging
    from functions.service import build_service
    from functions.settings import load_app_settings

    settings = load_app_settings(**options)  # the environment, read once: everything below gets it passed in
    sock = listen(host, port)
    entries, keys, overrides = _dev_credentials(settings.service, dev_key, renew)
    if overrides:
        settings = settings.model_copy(update={"service": settings.service.model_copy(update=overrides)})
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    service = build_service(settings, extra_keys=entries)
    service.self_url = url
    configure_logging(settings.service.log_level)
    _announce(url, keys, settings.service.tenant_root(), not settings.service.tenant_store)
    config = uvicorn.Config(create_app(service), host=host, port=port, log_config=None, access_log=False,
                            timeout_graceful_shutdown=30)
    with threadpool_limits(limits=1, user_api="blas"):
        # A request embeds one short query: BLAS worker threads only spin against it and against the
        # other requests' threads (measured: a MiniLM query took 320 ms of CPU with them, 10 ms without).
        _warm_up(service)
        uvicorn.Server(config).run(sockets=[sock])


def _warm_up(service: Service) -> None:
    """What FC's initializer loads (the local embedder, the token vocabulary, the read path), before the
    first request: /healthz answers once it is done. Otherwise the first requests of a process waited
    0.5 to 1.4 s on it together (docs/benchmarks.md, section 7a)."""
    from functions.warmup import warm_up

    started = time.perf_counter()
    model = warm_up(service.tenant_embedder())
    click.echo(f"engram: warmed up (embedder {model}) in {(time.perf_counter() - started) * 1000:.0f} ms")
