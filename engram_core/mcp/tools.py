"""The ``engram_*`` tools: typed inputs an agent can act on, one engine call each, JSON views out.

No business rule lives here: every tool parses its arguments (pydantic, through the
SDK), runs one engine use case on the caller's tenant and shapes the result.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Literal, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from engram_core.usecases.engine import Engine
from engram_core.core.errors import EngramError
from engram_core.core.model import EventKind, MemoryKind
from engram_core.core.render import render_block, render_line
from engram_core.tenants.tenancy import TenantStores
from engram_core.core.views import BeliefOut, EventOut, JsonValue, MemoryOut, ProposalOut, RecallOut, WriteOut

T = TypeVar("T")
logger = logging.getLogger(__name__)
Json = dict[str, object]  # JSON-ready views; the SDK sends them as structured content

Kind = Literal["fact", "preference", "skill", "episode"]
Status = Literal["active", "superseded", "decayed", "archived", "deleted"]
When = Annotated[str | None, Field(
    description="ISO-8601 date or time, e.g. 2026-05-01 or 2026-05-01T10:00:00Z (UTC when no offset).")]
MemoryId = Annotated[str, Field(min_length=1, max_length=200, description="A memory id, e.g. from engram_list.")]


class MemoryTools:
    """Each public method is one MCP tool; ``tenant`` names the caller's tenant for every call."""

    def __init__(self, stores: TenantStores, tenant: Callable[[], str]) -> None:
        self._stores = stores
        self._tenant = tenant

    def _run(self, operation: Callable[[Engine], T], *, write: bool) -> T:
        try:
            return self._stores.run(self._tenant(), operation, write=write)
        except EngramError as exc:
            field = f" (field: {exc.field})" if exc.field else ""
            raise ToolError(f"{exc.message}{field}") from exc

    def warm_up(self) -> None:
        """Open the store, load the embedder and build the recall index now, not on the first call."""
        try:
            self._run(lambda e: e.recall("warm-up", 1, reinforce=False), write=False)
        except ToolError as exc:
            logger.warning("warm-up failed; tool calls will report it: %s", exc)

    def remember(
        self,
        text: Annotated[str, Field(min_length=1, description="What to remember, in plain words (up to 32 KiB).")],
        kind: Annotated[Kind, Field(description="fact, preference, skill or episode.")] = "fact",
        importance: Annotated[float | None, Field(ge=0, le=1, description=(
            "0..1. Leave it out to let the importance gate decide whether this is worth storing; "
            "set it to store the memory with exactly this importance."))] = None,
        session_id: Annotated[str | None, Field(max_length=200, description="Conversation or task id.")] = None,
    ) -> Json:
        """Remember something. Facts are extracted and adjudicated against what is already believed
        (a changed fact supersedes the old one); returns the memories, beliefs and events it caused."""
        result = self._run(lambda e: e.remember(text, kind=kind, importance=importance, session_id=session_id),
                           write=True)
        return WriteOut.view(result)

    def recall(
        self,
        query: Annotated[str, Field(min_length=1, description="What the agent needs to know right now.")],
        budget_tokens: Annotated[int, Field(ge=1, description="Hard token budget for the memory block.")] = 1024,
        as_of: When = None,
        reinforce: Annotated[bool, Field(description="Strengthen what is recalled (ignored with as_of).")] = True,
    ) -> Json:
        """Recall the memories that matter for a query, packed under a hard token budget. Returns `block`
        (the rendered memory block to put in context) and `items` with their score breakdown and tokens."""
        writes = reinforce and as_of is None
        result = self._run(lambda e: e.recall(query, budget_tokens, as_of=as_of, reinforce=reinforce), write=writes)
        return RecallOut.view(result)

    def list_memories(
        self,
        status: Annotated[list[Status], Field(description="Only these statuses (empty: all).")] = [],  # noqa: B006 - read, never changed
        kind: Annotated[list[Kind | Literal["gist"]], Field(description="Only these kinds (empty: all).")] = [],  # noqa: B006 - read, never changed
        text: Annotated[str | None, Field(max_length=200, description="Only memories containing this text.")] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="Page size.")] = 50,
        offset: Annotated[int, Field(ge=0, description="Memories to skip (from next_offset).")] = 0,
    ) -> Json:
        """List stored memories with filters and paging; `next_offset` is null on the last page."""
        found = self._run(lambda e: e.memories(status=status, kind=kind, text=text, limit=limit, offset=offset),
                          write=False)
        return {"memories": [MemoryOut.view(m) for m in found], "offset": offset,
                "next_offset": offset + len(found) if len(found) == limit else None}

    def beliefs(
        self,
        as_of: When = None,
        subject: Annotated[str | None, Field(max_length=200, description=(
            "Only this subject (e.g. user); also returns its full history with both time axes."))] = None,
    ) -> Json:
        """What is believed true now, or what was true as of a date; with a subject, also every belief
        that subject ever had (valid_from/valid_to in the world, recorded_at/expired_at in the engine)."""
        def read(engine: Engine) -> Json:
            found = [b for b in engine.beliefs(as_of) if subject is None or b.subject == subject]
            history = engine.history(subject) if subject is not None else []
            return {"as_of": as_of, "beliefs": [BeliefOut.view(b) for b in found],
                    "history": [BeliefOut.view(b) for b in history]}

        return self._run(read, write=False)

    def forget(
        self,
        memory_id: MemoryId,
        purge: Annotated[bool, Field(description=(
            "Hard delete (privacy request): text, vector and derived text are erased for good."))] = False,
        confirm_purge: Annotated[bool, Field(description="Must be true when purge is true.")] = False,
    ) -> Json:
        """Forget a memory: soft by default (out of recall, kept for audit), or purge it with confirmation."""
        if purge and not confirm_purge:
            raise ToolError("purge erases the memory for good; call again with confirm_purge=true "
                            "(field: confirm_purge)")
        events = self._run(lambda e: e.forget(memory_id, purge=purge), write=True)
        return {"events": [EventOut.view(e) for e in events]}

    def stats(self) -> Json:
        """Counts by status, beliefs, schema version, providers and the store's clock."""
        return {"tenant": self._tenant(), **self._run(lambda e: e.stats(), write=False)}

    def export(self) -> Json:
        """Export the whole memory store as JSON lines (lossless; feed `data` to engram_import)."""
        lines = self._run(lambda e: list(e.export_lines()), write=False)
        return {"format": "engram-export", "lines": len(lines), "data": "\n".join(lines) + "\n"}

    def import_store(
        self,
        data: Annotated[str, Field(min_length=1, description="JSON lines exactly as returned by engram_export.")],
    ) -> Json:
        """Import an export into this store: validated completely first, then all or nothing."""
        counts = self._run(lambda e: e.import_lines(data.splitlines()), write=True)
        return {"imported": counts}

    def sleep(self) -> Json:
        """Sleep cycle: mark faded memories decayed, summarise faded groups into gists, archive originals."""
        return WriteOut.view(self._run(lambda e: e.sleep(), write=True))

    def dream(self) -> Json:
        """Propose merges, forgets and importance changes; nothing changes until engram_dream_apply."""
        return ProposalOut.view(self._run(lambda e: e.dream(), write=True))

    def dream_apply(
        self,
        proposal_id: Annotated[str, Field(min_length=1, max_length=200, description="The id from engram_dream.")],
        approved: Annotated[list[str], Field(min_length=1, description=(
            "Action ids (a1, a2, ...) from that proposal to apply; any other id is rejected."))],
    ) -> Json:
        """Apply only the approved actions of a dream proposal, each re-validated; unknown ids are rejected."""
        events = self._run(lambda e: e.dream_apply(proposal_id, approved), write=True)
        views = [EventOut.view(e) for e in events]
        return {"events": views, "applied": _actions(views, EventKind.DREAM_APPLIED),
                "rejected": _actions(views, EventKind.DREAM_REJECTED)}

    def memory_context(self) -> str:
        """The current beliefs as a memory block, ready to place in a model's context."""
        def render(engine: Engine) -> str:
            beliefs = engine.beliefs()
            lines = [render_line(MemoryKind.FACT, b.statement, b.valid_from) for b in beliefs]
            return render_block(lines, times=[b.valid_from for b in beliefs])

        return self._run(render, write=False)

    def recall_context(self, query: str) -> str:
        """The memory block recall would pack for ``query`` (default budget, no reinforcement)."""
        result = self._run(lambda e: e.recall(query, reinforce=False), write=False)
        return result.render()


def _actions(views: list[Json], kind: EventKind) -> list[JsonValue]:
    return [v["detail"].get("action") for v in views if v["kind"] == kind.value]  # type: ignore[union-attr]
