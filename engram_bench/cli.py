"""``engram bench``: measured figures, printed as tables (never asserted in unit tests)."""

from __future__ import annotations

import click

from engram_core.cli.common import HelpGroup


@click.group(cls=HelpGroup)
def bench() -> None:
    """Benchmarks: run offline and deterministically; each prints a table of measured figures."""


def register_suites() -> None:
    """Each suite lives in its own module and adds itself to the group here."""
    from importlib import import_module

    for name in SUITES:
        bench.add_command(import_module(f"engram_bench.{name}").command)


SUITES: list[str] = ["retrieval", "answers", "supersession", "truth", "scenario", "scale", "growth", "mcp",
                     "service", "storage", "replica", "fanout", "load"]

register_suites()  # `engram bench` is this group, contributed to the CLI through an ``engram.commands`` entry point
