"""``engram reembed``: move a store's vectors to the active embedder, with a progress bar."""

from __future__ import annotations

import click
from tqdm import tqdm

from engram_core.cli.common import Context, handle_errors


@click.command()
@click.option("--force", is_flag=True, help="Re-embed even if the store already uses the active embedder.")
@click.pass_obj
@handle_errors
def reembed(ctx: Context, force: bool) -> None:
    """Re-embed every memory with the active embedder (after changing embedder model or dimension).

    All vectors are computed first and written in one transaction: an interrupted run changes nothing.
    """
    engine = ctx.engine()
    total = sum(engine.memory_counts().values())
    with tqdm(total=total, desc="reembed", unit="mem", disable=None) as bar:
        report = engine.reembed(bar.update, force=force)
    if report.skipped:
        click.echo(f"vectors already come from {report.current}; nothing to do (--force to redo)")
        return
    click.echo(f"re-embedded {report.memories} memories: {report.previous or 'none'} -> {report.current}")
