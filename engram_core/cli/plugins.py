"""Commands other packages contribute to ``engram`` (``serve`` from ``functions``, ``bench`` from ``engram_bench``).

They are declared as ``[project.entry-points."engram.commands"]`` in pyproject.toml and found at run time,
so the library never imports the HTTP service or the benchmarks, and no import cycle runs through the CLI.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

import click

GROUP = "engram.commands"


def _load(entry: EntryPoint) -> click.Command | None:
    """The entry point's command; None when its package is not installed (a slim image ships no benchmarks)."""
    top = entry.value.split(":", 1)[0].split(".", 1)[0]
    try:
        command = entry.load()
    except ModuleNotFoundError as missing:
        if missing.name == top:
            return None
        raise
    if not isinstance(command, click.Command):
        raise TypeError(f"entry point {entry.name} = {entry.value} is not a click command")
    return command


def contributed_commands() -> list[click.Command]:
    """Every contributed command, in name order."""
    found = (_load(entry) for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name))
    return [command for command in found if command is not None]
