"""Shared CLI plumbing: opening the engine, printing, turning errors into one clear line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path

import click

from engram_core.errors import EngramError

EXIT_ERROR = 2


class Context:
    def __init__(self, store: str | None, embedder: str) -> None:
        self.store = store
        self.embedder = embedder
        self._engine = None

    def engine(self):  # noqa: ANN201 - Engine, imported lazily to keep --help fast
        if self._engine is None:
            from engram_core import open_engine
            from engram_core.engine import default_store_path

            path = Path(self.store) if self.store else default_store_path()
            self._engine = open_engine(path, embedder=self.embedder)
        return self._engine

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()


def fail(message: str) -> None:
    click.echo(f"engram: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def handle_errors(command: Callable) -> Callable:
    """Engine errors become one line on stderr and exit status 2, never a traceback."""

    @wraps(command)
    def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        try:
            return command(*args, **kwargs)
        except EngramError as exc:
            field = f" (field: {exc.field})" if exc.field else ""
            fail(f"{exc.message}{field}")
        except OSError as exc:
            fail(f"{exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}".rstrip(": "))

    return wrapper


def print_json(value: object) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def echo_events(events: list[dict]) -> None:
    for event in events:
        detail = ", ".join(f"{k}={v}" for k, v in event["detail"].items())
        target = event["memory_id"] or event["belief_id"] or event["message_id"] or ""
        click.echo(f"  {event['kind']:<12} {target} {detail}".rstrip())
