"""Group commit: writers of one tenant in one process share a checkout and a generation.

While one thread commits, the others queue their operations; the next thread
to get the tenant's lane runs everything queued in one checkout and one
commit, and hands each caller its own result or error. Racing each other
would only waste attempts: inside a process the writers take turns, and only
other instances race through the create-only commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from engram_core.core.errors import StoreError

if TYPE_CHECKING:
    from engram_core.usecases.engine import Engine

T = TypeVar("T")


@dataclass(eq=False)
class Ticket(Generic[T]):
    operation: Callable[[Engine], T]
    result: T | None = None
    error: Exception | None = None
    done: bool = False

    def apply(self, engine: Engine) -> None:
        self.result, self.error = None, None
        try:
            self.result = self.operation(engine)
        except Exception as exc:
            self.error = exc

    def finish(self, error: Exception | None = None) -> None:
        if error is not None:
            self.error = error
        self.done = True

    def outcome(self) -> T:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


@dataclass
class Lane:
    """One tenant's queue of operations waiting for a checkout, and the turn to run them."""

    turn: threading.Lock = field(default_factory=threading.Lock)
    guard: threading.Lock = field(default_factory=threading.Lock)
    pending: list[Ticket] = field(default_factory=list)

    def enqueue(self, ticket: Ticket) -> None:
        with self.guard:
            self.pending.append(ticket)

    def take_all(self) -> list[Ticket]:
        with self.guard:
            taken, self.pending = self.pending, []
        return taken


def abandon(batch: list[Ticket]) -> None:
    """The thread running a batch was interrupted: whatever it did not finish was not written."""
    for ticket in batch:
        if not ticket.done:
            ticket.finish(StoreError("the writer running this operation was interrupted; nothing was written, retry"))
