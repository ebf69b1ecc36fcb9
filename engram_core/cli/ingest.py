"""``engram ingest``: load a conversation file (JSON or JSON lines) with timestamps."""

from __future__ import annotations

import json
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tqdm import tqdm

from engram_core.cli.common import Context, fail, handle_errors


class IngestMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1)
    role: str = "user"
    session_id: str | None = None
    id: str | None = None
    occurred_at: str | None = Field(None, alias="at")
    speaker: str | None = None


def _raw_messages(path: Path) -> list[object]:
    """A JSON list, {"messages": [...]}, or one JSON object per line."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            fail(f"{path}: neither JSON nor JSON lines (line {exc.lineno}: {exc.msg})")
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return data["messages"]
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        return [data]
    fail(f"{path}: expected a list of messages")


def load_messages(path: Path) -> list[IngestMessage]:
    """Validate every message before writing any."""
    messages = []
    for number, raw in enumerate(_raw_messages(path), start=1):
        if isinstance(raw, dict) and "occurred_at" in raw and "at" not in raw:
            raw = {**raw, "at": raw["occurred_at"]}
        try:
            messages.append(IngestMessage.model_validate(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            fail(f"{path}: message {number}: {'.'.join(map(str, first['loc']))}: {first['msg']}")
    return messages


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--session", "default_session", default="ingest", show_default=True,
              help="Session for messages that name none.")
@click.pass_obj
@handle_errors
def ingest(ctx: Context, path: Path, default_session: str) -> None:
    """Observe every message of a conversation file, in order, with its timestamp.

    Each message: {"text", "role"?, "session_id"?, "id"?, "at" or "occurred_at"?, "speaker"?}.
    Messages with an id are skipped if already observed, so a re-run is safe.
    """
    messages = load_messages(path)
    engine = ctx.engine()
    stored = 0
    for m in tqdm(messages, desc="ingest", unit="msg", disable=None):
        result = engine.observe(m.text, role=m.role, session_id=m.session_id or default_session,
                                message_id=m.id, occurred_at=m.occurred_at, speaker=m.speaker)
        stored += len(result.memories)
    click.echo(f"ingested {len(messages)} messages, {stored} memories stored")
