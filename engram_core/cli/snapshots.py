"""``engram snapshots``: list, show, garbage-collect and restore a tenant's generations."""

from __future__ import annotations

from datetime import datetime, timezone

import click

from engram_core.cli.common import Context, HelpGroup, handle_errors, print_json

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
pass_context = click.make_pass_decorator(Context)


@click.group(cls=HelpGroup)
def snapshots() -> None:
    """A tenant's snapshot generations in --store (oss://bucket/prefix, or a local snapshot directory)."""


@snapshots.command(name="list")
@json_option
@pass_context
@handle_errors
def list_cmd(ctx: Context, as_json: bool) -> None:
    """Every generation of --tenant, oldest first, with the latest-generation hint."""
    from engram_core.snapshots.admin import list_generations, listing_view

    listing = list_generations(ctx.snapshotter(), ctx.tenant)
    if as_json:
        print_json(listing_view(listing))
        return
    if not listing.generations:
        click.echo(f"tenant {ctx.tenant}: no generations")
    for row in listing.generations:
        flag = "  QUARANTINED" if row.quarantined else ""
        click.echo(f"{row.number:>8}  {row.size:>12,} bytes  {row.modified.isoformat(timespec='seconds')}{flag}")
    click.echo(f"hint: {listing.hint if listing.hint is not None else '(none)'}")


@snapshots.command()
@click.argument("generation", type=int)
@json_option
@pass_context
@handle_errors
def show(ctx: Context, generation: int, as_json: bool) -> None:
    """Verify one generation (checksum, integrity) and summarise what it holds."""
    from engram_core.snapshots.admin import describe

    info = describe(ctx.snapshotter(), ctx.tenant, generation)
    if as_json:
        print_json(info)
        return
    for key, value in info.items():
        click.echo(f"{key}: {value}")


@snapshots.command()
@click.option("--all-tenants", is_flag=True, help="Every tenant in the store, not only --tenant.")
@json_option
@pass_context
@handle_errors
def gc(ctx: Context, all_tenants: bool, as_json: bool) -> None:
    """Delete generations past retention (newest ENGRAM_SNAPSHOT_KEEP kept, and any within the grace period)."""
    from engram_core.snapshots.collection import collect_garbage

    snapshotter = ctx.snapshotter()
    now = datetime.now(timezone.utc)
    tenants = snapshotter.tenants() if all_tenants else [ctx.tenant]
    reports = [collect_garbage(snapshotter, tenant, now) for tenant in tenants]
    if as_json:
        print_json([{"tenant": r.tenant, "deleted": list(r.deleted), "kept": list(r.kept)} for r in reports])
        return
    for r in reports:
        click.echo(f"{r.tenant}: deleted {len(r.deleted)} generations, kept {len(r.kept)}")


@snapshots.command()
@click.argument("generation", type=int)
@pass_context
@handle_errors
def restore(ctx: Context, generation: int) -> None:
    """Write GENERATION again as the newest generation (create-only; nothing is overwritten)."""
    from engram_core.snapshots.admin import restore as restore_generation

    number = restore_generation(ctx.snapshotter(), ctx.tenant, generation)
    click.echo(f"restored generation {generation} of {ctx.tenant} as generation {number}")
