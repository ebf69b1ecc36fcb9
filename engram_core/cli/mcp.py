"""``engram mcp``: serve Engram to any MCP client (stdio by default, streamable HTTP with ``--http``)."""

from __future__ import annotations

import click

from engram_core.cli.common import Context, HelpGroup, handle_errors


@click.group(name="mcp", cls=HelpGroup, invoke_without_command=True)
@click.option("--store", "location", envvar="ENGRAM_TENANT_STORE", metavar="DIR|oss://BUCKET/PREFIX",
              help="Where tenants live: a directory (one SQLite per tenant) or oss://bucket/prefix "
                   "(env ENGRAM_TENANT_STORE; default: 'tenants' in the per-user data dir).")
@click.option("--tenant", default="default", show_default=True, envvar="ENGRAM_TENANT",
              help="Tenant served over stdio (over HTTP each API key picks its own).")
@click.option("--http", "http_address", metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp with bearer API keys instead of stdio.")
@click.option("--keys-file", envvar="ENGRAM_API_KEYS_FILE", metavar="PATH|oss://BUCKET/KEY",
              help="API keys for --http: a JSON list of {tenant, hash} (env ENGRAM_API_KEYS_FILE; "
                   "the same list may be given in ENGRAM_API_KEYS).")
@click.option("--api-keys", envvar="ENGRAM_API_KEYS", hidden=True)
@click.pass_context
@handle_errors
def mcp(ctx: click.Context, location: str | None, tenant: str, http_address: str | None, keys_file: str | None,
        api_keys: str | None) -> None:
    """Serve Engram's memory tools (engram_recall, engram_remember and the rest) to an MCP client."""
    if ctx.invoked_subcommand is not None:
        return
    from engram_core.mcp.server import serve
    from engram_core.mcp.settings import default_store_dir, load_keys, make_settings

    root = ctx.find_object(Context)
    settings = make_settings(location or str(default_store_dir()), tenant, root.embedder, http_address, root.settings)
    oss = settings.engram.oss
    serve(settings, load_keys(api_keys, keys_file, oss) if settings.http else load_keys(None, None, oss))


@mcp.command(name="new-key")
@click.option("--tenant", required=True, help="The tenant this key opens.")
@handle_errors
def new_key(tenant: str) -> None:
    """Make an API key: prints the key (give it to the client, once) and the entry to configure."""
    import json

    from engram_core.tenants.ids import check_tenant_id
    from engram_core.tenants.credentials import hash_key, new_key as make_key

    key = make_key()
    click.echo(f"key:   {key}")
    click.echo("entry: " + json.dumps({"tenant": check_tenant_id(tenant), "hash": hash_key(key)}))
    click.echo("Clients send `Authorization: Bearer KEY`; put entries in a JSON list in ENGRAM_API_KEYS or a "
               "keys file. Only the entry is stored.", err=True)
