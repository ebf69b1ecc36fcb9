"""The ``engram`` command line."""

from __future__ import annotations

import gc
import sys

import click

from engram_core.cli.common import (
    Context,
    HelpGroup,
    echo,
    echo_events,
    exit_quietly,
    handle_errors,
    print_json,
    stdout_gone,
)
from engram_core.cli.doctor import echo_usage
from engram_core.cli.plugins import contributed_commands
from engram_core.core.timeutil import parse_duration
from engram_core.core.views import BeliefOut, EventOut, MemoryOut, ProposalOut, RecallOut, WriteOut

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


@click.group(cls=HelpGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", envvar="ENGRAM_STORE", metavar="PATH",
              help="SQLite store file, or oss://bucket/prefix for snapshot storage (default: a per-user "
                   "data dir; env ENGRAM_STORE).")
@click.option("--tenant", envvar="ENGRAM_TENANT", default="default", show_default=True,
              help="Tenant inside a snapshot store (oss:// or `snapshots` commands; env ENGRAM_TENANT).")
@click.option("--embedder", envvar="ENGRAM_EMBEDDER", default=None,
              type=click.Choice(["minilm", "hashing", "qwen"]),
              help="Embedder (env ENGRAM_EMBEDDER); default: qwen when a Qwen Cloud key is set, else minilm.")
@click.version_option(package_name="engram")
@click.pass_context
def cli(ctx: click.Context, store: str | None, embedder: str | None, tenant: str) -> None:
    """Engram: memory for AI agents that recalls under a token budget, forgets, and keeps beliefs current."""
    ctx.obj = Context(store, embedder, tenant)
    ctx.call_on_close(ctx.obj.close)


pass_engine = click.make_pass_decorator(Context)


@cli.command()
@click.argument("text")
@click.option("--role", default="user", show_default=True, type=click.Choice(["user", "assistant"]))
@click.option("--session", "session_id", help="Session id (default: 'default').")
@click.option("--id", "message_id", help="Your id for the message; observing it again is a no-op.")
@click.option("--at", "occurred_at", help="When it was said (ISO-8601); default: now.")
@click.option("--speaker", help="Who said it (default: the role).")
@json_option
@pass_engine
@handle_errors
def observe(ctx: Context, text: str, role: str, session_id: str | None, message_id: str | None,
            occurred_at: str | None, speaker: str | None, as_json: bool) -> None:
    """Observe a message: stored if important enough, facts extracted and adjudicated."""
    result = ctx.engine().observe(text, role=role, session_id=session_id, message_id=message_id,
                                  occurred_at=occurred_at, speaker=speaker)
    view = WriteOut.view(result)
    print_json(view) if as_json else echo_events(view["events"])


@cli.command()
@click.argument("text")
@click.option("--kind", default="fact", show_default=True,
              type=click.Choice(["preference", "fact", "skill", "episode"]))
@click.option("--importance", type=float, help="0..1; set it to bypass the importance gate.")
@click.option("--session", "session_id", help="Session id.")
@json_option
@pass_engine
@handle_errors
def remember(ctx: Context, text: str, kind: str, importance: float | None, session_id: str | None,
             as_json: bool) -> None:
    """Remember something explicitly."""
    view = WriteOut.view(ctx.engine().remember(text, kind=kind, importance=importance, session_id=session_id))
    print_json(view) if as_json else echo_events(view["events"])


@cli.command()
@click.argument("query")
@click.option("--budget", "budget", default=1024, show_default=True, type=int, help="Hard token budget.")
@click.option("--as-of", "as_of", help="Recall as it would have been at this date (no reinforcement).")
@click.option("--no-reinforce", is_flag=True, help="Only look: do not reinforce (as HTTP POST /recall).")
@json_option
@pass_engine
@handle_errors
def recall(ctx: Context, query: str, budget: int, as_of: str | None, no_reinforce: bool, as_json: bool) -> None:
    """Recall memories for QUERY, packed under the budget.

    This command reinforces what it packs by default, as a chat turn does (the packed memories fade more
    slowly from now on); --no-reinforce only looks. The HTTP API's POST /recall and the board never
    reinforce: only a chat turn, which hands the block to a model, does there.
    """
    result = ctx.engine().recall(query, budget, as_of=as_of, reinforce=not no_reinforce)
    if as_json:
        print_json(RecallOut.view(result))
        return
    echo(result.render() or "(nothing recalled)")
    echo(f"\n{len(result.items)} memories, {result.tokens_used}/{result.budget_tokens} tokens")
    for item in result.items:
        s = item.score
        echo(f"  {item.memory_id} score={s.score:.3f} sim={s.similarity:.2f} lex={s.lexical:.2f} "
                   f"imp={s.importance:.2f} rec={s.recency:.2f} ret={s.retention:.2f} tokens={item.tokens}")


def _echo_beliefs(beliefs: list) -> None:
    if not beliefs:
        echo("(no beliefs)")
    for b in beliefs:
        until = b.valid_to.date().isoformat() if b.valid_to else "now"
        mark = "" if b.is_current() else f"  [superseded by {b.superseded_by}]" if b.superseded_by else "  [retired]"
        echo(f"{b.subject} {b.predicate} = {b.object}  ({b.valid_from.date().isoformat()} .. {until}){mark}")


@cli.command()
@click.option("--as-of", "as_of", help="What was believed true at this date (ISO-8601).")
@json_option
@pass_engine
@handle_errors
def beliefs(ctx: Context, as_of: str | None, as_json: bool) -> None:
    """Current beliefs, or what was true as of a date."""
    found = ctx.engine().beliefs(as_of)
    print_json([BeliefOut.view(b) for b in found]) if as_json else _echo_beliefs(found)


@cli.command()
@click.argument("subject", default="user")
@click.option("--predicate", help="Only this predicate.")
@json_option
@pass_engine
@handle_errors
def history(ctx: Context, subject: str, predicate: str | None, as_json: bool) -> None:
    """Full bi-temporal history of a subject's beliefs."""
    found = ctx.engine().history(subject, predicate)
    print_json([BeliefOut.view(b) for b in found]) if as_json else _echo_beliefs(found)


@cli.command()
@json_option
@pass_engine
@handle_errors
def sweep(ctx: Context, as_json: bool) -> None:
    """Mark faded memories as decayed (out of recall, never deleted)."""
    events = [EventOut.view(e) for e in ctx.engine().sweep()]
    print_json(events) if as_json else (echo_events(events), echo(f"{len(events)} decayed"))


@cli.command()
@json_option
@pass_engine
@handle_errors
def sleep(ctx: Context, as_json: bool) -> None:
    """Sleep cycle: decay sweep, then faded groups become gists; originals archived."""
    view = WriteOut.view(ctx.engine().sleep())
    print_json(view) if as_json else (echo_events(view["events"]), echo(f"{len(view['memories'])} gists"))


@cli.command()
@click.argument("session_id")
@json_option
@pass_engine
@handle_errors
def consolidate(ctx: Context, session_id: str, as_json: bool) -> None:
    """Turn a session transcript into durable memories (adjudicated)."""
    view = WriteOut.view(ctx.engine().consolidate(session_id))
    print_json(view) if as_json else echo_events(view["events"])


@cli.command()
@click.option("--apply", "proposal_id", metavar="PROPOSAL", help="Apply approved actions of this proposal.")
@click.option("--approve", multiple=True, metavar="ACTION", help="An action id to apply (repeatable).")
@json_option
@pass_engine
@handle_errors
def dream(ctx: Context, proposal_id: str | None, approve: tuple[str, ...], as_json: bool) -> None:
    """Propose merges/forgets/re-importance and reviews of possibly stale memories; apply only what you approve."""
    if proposal_id:
        events = [EventOut.view(e) for e in ctx.engine().dream_apply(proposal_id, approve)]
        print_json(events) if as_json else echo_events(events)
        return
    view = ProposalOut.view(ctx.engine().dream())
    if as_json:
        print_json(view)
        return
    echo(f"proposal {view['id']}: {len(view['actions'])} actions, {len(view['rejected'])} rejected")
    for a in view["actions"]:
        echo(f"  {a['id']}: {a['action']} {', '.join(a['memory_ids'])} {a['reason']}".rstrip())
    for r in view["rejected"]:
        echo(f"  rejected: {r}")


@cli.command()
@click.argument("memory_id")
@click.option("--purge", is_flag=True, help="Hard delete (privacy request): text, vector and derived text.")
@click.option("--yes", is_flag=True, help="Do not ask before purging.")
@pass_engine
@handle_errors(replay=False)  # it asks first / reads its input once
def forget(ctx: Context, memory_id: str, purge: bool, yes: bool) -> None:
    """Forget a memory (soft: kept for audit), or purge it."""
    if purge and not yes:
        click.confirm(f"Purge {memory_id} for good?", abort=True)
    echo_events([EventOut.view(e) for e in ctx.engine().forget(memory_id, purge=purge)])


@cli.command(name="export")
@click.argument("output", type=click.File("w", encoding="utf-8"), default="-")
@pass_engine
@handle_errors
def export_cmd(ctx: Context, output) -> None:  # noqa: ANN001 - click file
    """Export the whole store as JSON lines (to OUTPUT, default stdout)."""
    for line in ctx.engine().export_lines():
        output.write(line + "\n")


_PLURALS = {"memory": "memories", "usage": "usage records"}  # the import's record types that take no plain "s"


def _counted(n: int, kind: str) -> str:
    """``1 memory``, ``2 memories``, ``3 dream proposals``."""
    name = kind if n == 1 else _PLURALS.get(kind, kind + "s")
    return f"{n} {name.replace('_', ' ')}"


@cli.command(name="import")
@click.argument("source", type=click.File("r", encoding="utf-8"))
@pass_engine
@handle_errors(replay=False)  # it asks first / reads its input once
def import_cmd(ctx: Context, source) -> None:  # noqa: ANN001 - click file
    """Import an export file (all or nothing)."""
    counts = ctx.engine().import_lines(source)
    echo("imported " + ", ".join(_counted(n, kind) for kind, n in counts.items()))


@cli.command()
@json_option
@pass_engine
@handle_errors
def stats(ctx: Context, as_json: bool) -> None:
    """Counts, schema, providers and clock."""
    data = ctx.engine().stats()
    if as_json:
        print_json(data)
        return
    usage = data.pop("usage", None)
    echo_stats(ctx.store_description(), data)
    if usage:
        echo_usage(usage)


def echo_stats(store: str, data: dict) -> None:
    """``engram stats`` for people: one aligned line per fact, counts in words."""
    counts = data.get("memories", {})
    beliefs = data.get("beliefs", {})
    rows = [
        ("store", store),
        ("memories", ", ".join(f"{n} {status}" for status, n in counts.items()) or "none"),
        ("beliefs", f"{beliefs.get('current', 0)} current of {beliefs.get('total', 0)}"),
        ("messages", str(data.get("messages", 0))),
        ("schema", f"version {data.get('schema_version')}"),
        ("embedder", str(data.get("embedder"))),
        ("llm", str(data.get("llm"))),
        ("tokens", str(data.get("token_counter"))),
        ("clock", f"{data.get('now')} (offset {data.get('clock_offset_hours', 0):g} h)"),
    ]
    for label, value in rows:
        echo(f"{label + ':':<10} {value}")


@cli.command()
@click.option("--status", multiple=True, help="Filter by status (repeatable).")
@click.option("--kind", multiple=True, help="Filter by kind (repeatable).")
@click.option("--text", help="Only memories containing this text.")
@click.option("--limit", default=50, show_default=True, type=int)
@click.option("--offset", default=0, type=int)
@json_option
@pass_engine
@handle_errors
def memories(ctx: Context, status: tuple[str, ...], kind: tuple[str, ...], text: str | None, limit: int,
             offset: int, as_json: bool) -> None:
    """List memories."""
    found = ctx.engine().memories(status=status, kind=kind, text=text, limit=limit, offset=offset)
    if as_json:
        print_json([MemoryOut.view(m) for m in found])
        return
    for m in found:
        echo(f"{m.id} [{m.kind.value}/{m.status.value}] imp={m.importance:.2f} {m.text[:80]}")


@cli.command()
@click.option("--since", help="Only events at or after this time (ISO-8601).")
@click.option("--limit", default=200, show_default=True, type=int)
@json_option
@pass_engine
@handle_errors
def events(ctx: Context, since: str | None, limit: int, as_json: bool) -> None:
    """The audit log of engine decisions."""
    found = [EventOut.view(e) for e in ctx.engine().events(since, limit)]
    print_json(found) if as_json else echo_events(found)


@cli.group(cls=HelpGroup)
def clock() -> None:
    """Show or move this store's clock (to see weeks of decay in minutes)."""


@clock.command(name="show")
@json_option
@pass_engine
@handle_errors
def clock_show(ctx: Context, as_json: bool) -> None:
    """Print the store's current time and offset."""
    engine = ctx.engine()
    data = {"now": engine.now().isoformat(), "offset_hours": engine.clock_offset().total_seconds() / 3600}
    print_json(data) if as_json else echo(f"now {data['now']} (offset {data['offset_hours']:g} h)")


@clock.command(name="advance")
@click.argument("duration")
@pass_engine
@handle_errors
def clock_advance(ctx: Context, duration: str) -> None:
    """Move the clock forward by DURATION (e.g. 36h, 3d, 3w)."""
    offset = ctx.engine().advance_clock(parse_duration(duration))
    echo(f"clock offset is now {offset.total_seconds() / 3600:g} h; now {ctx.engine().now().isoformat()}")


def _register_more() -> None:
    from engram_core.cli.chat import chat
    from engram_core.cli.doctor import doctor
    from engram_core.cli.reembed import reembed
    from engram_core.cli.ingest import ingest
    from engram_core.cli.mcp import mcp
    from engram_core.cli.snapshots import snapshots

    cli.add_command(chat)
    cli.add_command(ingest)
    cli.add_command(doctor)
    cli.add_command(reembed)
    cli.add_command(mcp)
    cli.add_command(snapshots)
    for command in contributed_commands():
        cli.add_command(command)


_register_more()


def freeze_startup_objects() -> None:
    """Move what the imports made (modules, classes, functions: about 45,000 objects) out of the collector's sight.

    They live as long as the process, yet every full collection walked them again: 30 to 50 ms of pause at
    100,000 memories, more than the objects a recall leaves behind (docs/benchmarks.md, section 4). Called once,
    before any command runs, so no tenant's objects are frozen: a closed engine is freed as before
    (tests/test_index_entries.py)."""
    gc.collect()
    gc.freeze()


def main() -> None:
    freeze_startup_objects()
    try:
        cli(prog_name="engram")
    except SystemExit as done:
        if done.code == 1 and stdout_gone():  # click's own output (help) met a closed pipe
            exit_quietly()
        raise


if __name__ == "__main__":
    sys.exit(main())
