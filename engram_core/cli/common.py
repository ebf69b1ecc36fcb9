"""Shared CLI plumbing: opening the engine, printing, turning errors into one clear line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import sys
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING

import click

from engram_core.core.errors import BusyError, EngramError, GenerationExistsError, ValidationError

if TYPE_CHECKING:  # imported lazily at run time, to keep --help fast
    from engram_core.providers import ProviderRoot
    from engram_core.settings import Settings
    from engram_core.usecases.engine import Engine

EXIT_ERROR = 2
# C0 and C1 controls but tab and newline, and the bidi controls: stored text can carry them, and a terminal
# obeys them (set the window title, clear the screen, reorder what is shown).
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """Each such character shown as ``\\uXXXX`` (still valid inside JSON strings), never sent raw."""
    return _TERMINAL_UNSAFE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def echo(text: str = "", *, err: bool = False) -> None:
    """``click.echo`` for anything that may hold stored text."""
    click.echo(terminal_safe(text), err=err)


WHOLE_SENTENCE = 10_000  # a summary limit no first sentence reaches: the help formatter wraps it instead


class HelpGroup(click.Group):
    """Command lists whose summaries are each command's whole first sentence, wrapped, never cut with '...'."""

    group_class = type  # groups made with @group.group() are HelpGroups too

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(WHOLE_SENTENCE)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def stdout_gone() -> bool:
    """True when click met a closed stdout outside a command (it then wraps stdout to hush the final flush)."""
    return type(sys.stdout).__name__ == "_PacifyFlushWrapper"


def exit_quietly() -> None:
    """The reader has what it wanted: no error line, exit 0, and no second failure when Python flushes."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


class Context:
    """A command's composition root: its options, the settings it reads once, the providers it builds once."""

    def __init__(self, store: str | None, embedder: str | None, tenant: str = "default") -> None:
        self.store = store
        self.embedder = embedder
        self.tenant = tenant
        self._engine: Engine | None = None
        self._settings: Settings | None = None  # read once per command, when it first needs them
        self._providers: ProviderRoot | None = None  # built once per command, for every engine it opens
        self._checkout = None  # set when the store is oss://: the command works on a snapshot checkout

    @property
    def settings(self) -> Settings:
        """The environment, read once per command (a command that opens no store never reads it)."""
        if self._settings is None:
            from engram_core.settings import load_settings

            self._settings = load_settings()
        return self._settings

    def _open_engine_at(self, path: Path) -> Engine:
        from engram_core import open_engine
        from engram_core.providers import provider_root

        if self._providers is None:
            self._providers = provider_root(self.settings.providers, embedder=self.embedder)
        return open_engine(path, providers=self._providers.providers())

    def engine(self) -> Engine:
        if self._engine is None:
            from engram_core.usecases.engine import default_store_path
            from engram_core.snapshots import is_remote

            if self.store and is_remote(self.store):
                self._checkout = self.snapshotter().checkout(self.tenant)
                self._engine = self._checkout.engine
                return self._engine
            path = Path(self.store) if self.store else default_store_path()
            self._engine = self._open_engine_at(path)
        return self._engine

    def store_description(self) -> str:
        """Which store a command works on, said plainly (the default is per user, shared by every clone)."""
        if self.store and _is_remote(self.store):
            return f"{self.store} (tenant {self.tenant})"
        if self.store:
            return str(Path(self.store).resolve())
        from engram_core.usecases.engine import default_store_path

        return f"{default_store_path()} (the per-user default: --store or ENGRAM_STORE for another)"

    def snapshotter(self):  # noqa: ANN201 - Snapshotter over --store (oss:// or a snapshot directory)
        from engram_core.snapshots import open_snapshotter

        if not self.store:
            raise ValidationError("name the snapshot store: --store oss://bucket/prefix or a directory", field="store")
        return open_snapshotter(self.store, self._open_engine_at, settings=self.settings.snapshots,
                                oss=self.settings.oss)

    def commit(self) -> None:
        """After a command succeeded on a snapshot checkout: write the next generation if anything changed."""
        if not self._try_commit():
            raise BusyError(f"tenant {self.tenant!r} changed while this command ran; nothing was written, "
                            "run it again")

    def _try_commit(self) -> bool:
        """False when another writer took the generation first (this checkout is then let go)."""
        if self._checkout is None:
            return True
        checkout, self._checkout, self._engine = self._checkout, None, None
        try:
            checkout.commit()
        except GenerationExistsError:
            checkout.discard()
            return False
        return True

    def run_committed(self, call: Callable[[], object]) -> object:
        """Run a command and commit it; on a snapshot store a lost race reloads and runs it again.

        What the command prints is held back until its commit lands, so a replay prints nothing twice.
        """
        if not (self.store and _is_remote(self.store)):
            result = call()
            self.commit()
            return result
        policy = self.snapshotter().retry
        for attempt in range(policy.max_attempts):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                result = call()
            if self._try_commit():
                sys.stdout.write(printed.getvalue())
                return result
            time.sleep(policy.delay(attempt, random.Random()))
        raise BusyError(f"tenant {self.tenant!r}: {policy.max_attempts} attempts in a row lost the race to "
                        "other writers; nothing was written, run it again")

    def close(self) -> None:
        if self._checkout is not None:
            self._checkout.discard()
        elif self._engine is not None:
            self._engine.close()


def _is_remote(store: str) -> bool:
    from engram_core.snapshots import is_remote

    return is_remote(store)


def fail(message: str) -> None:
    echo(f"engram: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def handle_errors(command: Callable | None = None, *, replay: bool = True) -> Callable:
    """Engine errors become one line on stderr and exit status 2, never a traceback.

    On a snapshot store a command that lost the commit race runs again on the newer state;
    ``replay=False`` is for commands that read a stream or ask the user (they fail with "run it again").
    """
    if command is None:
        return lambda inner: handle_errors(inner, replay=replay)

    @wraps(command)
    def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the command's own arguments and result
        try:
            ctx = args[0] if args and isinstance(args[0], Context) else None
            if ctx is None:
                return command(*args, **kwargs)
            if not replay:
                result = command(*args, **kwargs)
                ctx.commit()
                return result
            return ctx.run_committed(lambda: command(*args, **kwargs))
        except EngramError as exc:
            field = f" (field: {exc.field})" if exc.field else ""
            fail(f"{exc.message}{field}")
        except BrokenPipeError:  # the only pipe a command writes to is stdout: `engram events | head`
            exit_quietly()
        except OSError as exc:
            fail(f"{exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}".rstrip(": "))

    return wrapper


def print_json(value: object) -> None:
    echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def echo_events(events: list[dict]) -> None:
    for event in events:
        detail = ", ".join(f"{k}={v}" for k, v in event["detail"].items())
        target = event["memory_id"] or event["belief_id"] or event["message_id"] or ""
        echo(f"  {event['kind']:<12} {target} {detail}".rstrip())
