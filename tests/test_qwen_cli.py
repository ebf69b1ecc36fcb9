"""Acceptance through the real CLI: `engram chat` against the local OpenAI-compatible server, the
Lisbon -> Ponta Delgada story on the LLM path, `engram stats` usage and `engram doctor`."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from openai_server import OpenAIServer, Reply
from qwen_support import KEY, ROOT, cli_env, engram, story_model

from engram_core.core import prompts

STORY = (ROOT / "examples" / "lisbon-story.txt").read_text(encoding="utf-8")


@pytest.fixture
def server() -> OpenAIServer:
    with OpenAIServer(responder=story_model) as running:
        yield running


def test_chat_turn_replies_from_the_strong_model_and_books_with_the_cheap_one(server: OpenAIServer,
                                                                               tmp_path: Path) -> None:
    env = cli_env(server.url, tmp_path / "chat.sqlite")
    chat = engram(env, "chat", "--quiet", stdin="I live in Lisbon.\n")
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.strip() == "engram> Noted, thanks for telling me."
    assert [(r.system, r.model) for r in server.chat_requests()] == [
        (prompts.ASSESS_SYSTEM, "qwen-flash"), (prompts.REPLY_SYSTEM, "qwen-plus")]
    stats = engram(env, "stats", "--json")
    usage = json.loads(stats.stdout)["usage"]
    calls = {(r["purpose"], r["model"]): r["calls"] for r in usage["by_purpose"]}
    assert calls == {("reply", "qwen-plus"): 1, ("extract", "qwen-flash"): 1, ("embed", "text-embedding-v4"): 2}
    assert usage["turns"] == 1 and usage["cost_per_turn_usd"] > 0
    text = engram(env, "stats")
    assert "chat turns: 1" in text.stdout and "reply" in text.stdout and "qwen-plus" in text.stdout
    assert all(KEY not in out for out in (chat.stdout, chat.stderr, stats.stdout, text.stdout, text.stderr))


@pytest.mark.slow
def test_lisbon_story_through_the_llm_path(server: OpenAIServer, tmp_path: Path) -> None:
    env = cli_env(server.url, tmp_path / "story.sqlite")
    session_one_day = datetime.now(timezone.utc) + timedelta(days=1)
    chat = engram(env, "chat", stdin=STORY)
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout.count("engram> Noted, thanks for telling me.") == 7

    def recalled(query: str) -> str:
        out = engram(env, "recall", query, "--budget", "300", "--json")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert result["tokens_used"] <= 300
        return result["block"]

    where = recalled("where do I live?")
    assert "Ponta Delgada" in where and "Lisbon" not in where
    project = recalled("project name?")
    assert "ABYSS" in project and "ECHO" not in project.replace("project ECHO is now called ABYSS", "")
    assert "shellfish" in recalled("book a team dinner")

    past = json.loads(engram(env, "beliefs", "--as-of", session_one_day.isoformat(), "--json").stdout)
    assert [b["object"] for b in past if b["predicate"] == "lives_in"] == ["Lisbon"]
    now = json.loads(engram(env, "beliefs", "--json").stdout)
    assert {b["object"] for b in now if b["predicate"] == "lives_in"} == {"Ponta Delgada"}
    assert not [b for b in now if b["predicate"] == "leads_project"]  # ECHO superseded by the model's verdict

    events = json.loads(engram(env, "events", "--json", "--limit", "1000").stdout)
    paths = {e["detail"].get("path") for e in events if e["kind"] == "superseded"}
    assert {"exact", "llm"} <= paths
    by_model = {(r.system, r.model) for r in server.chat_requests()}
    assert by_model == {(prompts.ASSESS_SYSTEM, "qwen-flash"), (prompts.ADJUDICATE_SYSTEM, "qwen-flash"),
                        (prompts.REPLY_SYSTEM, "qwen-plus")}
    usage = json.loads(engram(env, "stats", "--json").stdout)["usage"]
    assert usage["turns"] == 7 and usage["bookkeeping_calls_per_reply"] > 1


def test_reply_failure_in_chat_is_one_line_and_the_message_is_kept(server: OpenAIServer, tmp_path: Path) -> None:
    env = cli_env(server.url, tmp_path / "fail.sqlite", ENGRAM_LLM_MAX_RETRIES="1")
    server.script(Reply(content=json.dumps({"importance": 0.8, "facts": []})), Reply(status=503), Reply(status=503))
    chat = engram(env, "chat", "--quiet", stdin="I live in Lisbon.\n")
    assert chat.returncode == 0 and "Traceback" not in chat.stderr
    assert chat.stderr.startswith("engram: error: no reply:") and "HTTP 503 after 2 attempts" in chat.stderr
    messages = json.loads(engram(env, "memories", "--json").stdout)
    assert [m["text"] for m in messages] == ["I live in Lisbon."]


def test_doctor_says_which_providers_are_active_and_why(server: OpenAIServer, tmp_path: Path) -> None:
    store = tmp_path / "doc.sqlite"
    qwen = engram(cli_env(server.url, store), "doctor", "--json")
    assert qwen.returncode == 0, qwen.stderr
    report = json.loads(qwen.stdout)
    assert report["mode"] == "qwen" and report["api_key"] == "set (QWEN_CLOUD_API_KEY)"
    assert report["llm"] == {"id": "qwen-flash+qwen-plus", "why": "Qwen Cloud key is set"}
    assert report["embedder"]["id"] == "text-embedding-v4:512" and report["qwen"]["base_url"] == server.url
    assert KEY not in qwen.stdout and server.requests == []  # doctor makes no network call

    offline_env = {k: v for k, v in cli_env(server.url, store).items() if k != "QWEN_CLOUD_API_KEY"}
    offline = engram(offline_env, "doctor")
    assert offline.returncode == 0 and "mode: offline" in offline.stdout
    assert "no Qwen Cloud key (QWEN_CLOUD_API_KEY or DASHSCOPE_API_KEY) is set" in offline.stdout

    bad = engram({**offline_env, "ENGRAM_EMBED_DIM": "300"}, "doctor")
    assert bad.returncode == 2 and bad.stderr.startswith("engram: error: ENGRAM_EMBED_DIM")
    assert len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["doctor", "reembed"])
def test_new_commands_have_help(tmp_path: Path, command: str) -> None:
    out = engram(cli_env("http://127.0.0.1:9/v1", tmp_path / "h.sqlite"), command, "--help")
    assert out.returncode == 0 and "Usage:" in out.stdout
