"""``engram chat``: a chat loop; each turn recalls, writes the message, answers, and writes the answer."""

from __future__ import annotations

import sys

import click

from engram_core.cli.common import Context, echo, handle_errors
from engram_core.core.errors import EngramError
from engram_core.core.timeutil import parse_duration

HELP = "commands: /advance 3w  /session NAME  /beliefs  /quit"


def _run_command(ctx: Context, line: str, state: dict[str, str]) -> bool:
    """Slash commands; returns False to stop."""
    name, _, arg = line[1:].partition(" ")
    engine = ctx.engine()
    if name in ("quit", "exit"):
        return False
    if name == "advance":
        offset = engine.advance_clock(parse_duration(arg.strip() or "1d"))
        echo(f"[clock +{offset.total_seconds() / 3600:g} h: {engine.now().date().isoformat()}]")
    elif name == "session":
        state["session"] = arg.strip() or state["session"]
        echo(f"[session {state['session']}]")
    elif name == "beliefs":
        for b in engine.beliefs():
            echo(f"[belief] {b.statement}")
    else:
        echo(HELP)
    return True


def _turn(ctx: Context, text: str, state: dict[str, str], budget: int, verbose: bool) -> None:
    turn = ctx.engine().chat(text, session_id=state["session"], budget_tokens=budget)
    echo(f"engram> {turn.reply}")
    if not verbose:
        return
    stored = [e for e in turn.write.events]
    echo(f"  [recalled {len(turn.recall.items)} memories, {turn.recall.tokens_used}/{budget} tokens]")
    for event in stored:
        echo(f"  [{event.kind.value}] {event.memory_id or event.belief_id or ''} "
                   + " ".join(f"{k}={v}" for k, v in event.detail))


@click.command()
@click.option("--session", "session_id", default="chat", show_default=True, help="Session id to start in.")
@click.option("--budget", default=1024, show_default=True, type=int, help="Token budget for recall.")
@click.option("--quiet", is_flag=True, help="Only print replies, not the engine's decisions.")
@click.pass_obj
@handle_errors(replay=False)  # reads stdin as it goes
def chat(ctx: Context, session_id: str, budget: int, quiet: bool) -> None:
    """Chat in the terminal: Qwen Cloud with a key, offline without (stdin works as a script). /help lists commands."""
    state = {"session": session_id}
    interactive = sys.stdin.isatty()
    if interactive:
        echo(f"Engram chat on {ctx.store_description()}. {HELP}")
    while True:
        line = input("you> ") if interactive else sys.stdin.readline()
        if not interactive and not line:
            break
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if line.startswith("/"):
                if not _run_command(ctx, line, state):
                    break
                continue
            _turn(ctx, line, state, budget, not quiet)
        except EngramError as exc:
            echo(f"engram: error: {exc.message}", err=True)
