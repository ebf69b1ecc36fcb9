"""Shared pieces of the Qwen provider tests: settings for the local server, and a scripted "real model"."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from openai_server import Recorded, Reply

from engram_core.core import prompts
from engram_core.providers.settings import ProviderSettings, load_settings

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-7f3a9c1e5b2d4f60a8e1"  # distinctive, so a leak anywhere is easy to grep for
_DATA = re.compile(r"<data>\n(.*?)\n</data>", re.DOTALL)


def settings_for(url: str, **overrides: object) -> ProviderSettings:
    """Fast, bounded retries so retry tests take milliseconds."""
    base = {"api_key": KEY, "llm_base_url": url, "llm_backoff_seconds": 0.001, "llm_backoff_max_seconds": 0.005,
            "llm_timeout_seconds": 5.0, "llm_reply_timeout_seconds": 5.0}
    return load_settings(**{**base, **overrides})


def cli_env(url: str, store: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "QWEN_", "DASHSCOPE_"))}
    return {**env, "QWEN_CLOUD_API_KEY": KEY, "ENGRAM_LLM_BASE_URL": url, "ENGRAM_STORE": str(store),
            "ENGRAM_LLM_BACKOFF_SECONDS": "0.001", **extra}


def engram(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engram_core.cli.main", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def data_blocks(text: str) -> list[str]:
    """The unescaped contents of the <data> blocks of a prompt."""
    return [html.unescape(block) for block in _DATA.findall(text)]


def fact(subject: str, predicate: str, obj: str, statement: str, **extra: object) -> dict:
    return {"subject": subject, "predicate": predicate, "object": obj, "statement": statement, **extra}


def assessment(importance: float, *facts: dict) -> Reply:
    return Reply(content=json.dumps({"importance": importance, "facts": list(facts)}))


# What a good bookkeeping model answers for each line of examples/lisbon-story.txt.
STORY_ASSESSMENTS = {
    "Hi! I'm Sam Rivera and I work as a marine biologist.": assessment(
        0.8, fact("user", "name", "Sam Rivera", "The user's name is Sam Rivera.", critical=True),
        fact("user", "job_title", "marine biologist", "The user works as a marine biologist.")),
    "I'm allergic to shellfish, so please keep that in mind.": assessment(
        0.95, fact("user", "allergy", "shellfish", "The user is allergic to shellfish.", critical=True,
                   cardinality="many", importance=0.95)),
    "I live in Lisbon.": assessment(0.8, fact("user", "lives_in", "Lisbon", "The user lives in Lisbon.")),
    "I'm leading a project called ECHO.": assessment(
        0.7, fact("user", "leads_project", "ECHO", "The user leads a project called ECHO.")),
    "I hate calls before 10am.": assessment(
        0.6, fact("user", "dislikes", "calls before 10am", "The user hates calls before 10am.", kind="preference",
                  cardinality="many")),
    "Big news: I moved to Ponta Delgada last week.": assessment(
        0.85, fact("user", "lives_in", "Ponta Delgada", "The user lives in Ponta Delgada.", revision=True)),
    "Also, project ECHO got renamed to ABYSS.": assessment(
        0.75, fact("user", "project_name", "ABYSS", "The user's project ECHO is now called ABYSS.", revision=True)),
}


def _story_verdicts(request: Recorded) -> Reply:
    """A renamed project replaces the old project belief; anything else coexists."""
    new, current = (json.loads(block) for block in data_blocks(request.last_user))
    renamed = new["revision"] and "project" in new["predicate"]
    verdicts = [{"id": b["id"], "verdict": "supersede" if renamed and "project" in b["predicate"] else "coexist"}
                for b in current]
    return Reply(content=json.dumps({"verdicts": verdicts}))


def story_model(request: Recorded) -> Reply | None:
    """Routes like the real service would see them: the system prompt says which task it is."""
    if request.system == prompts.ASSESS_SYSTEM:
        message = data_blocks(request.last_user)[0]
        return STORY_ASSESSMENTS.get(message, assessment(0.2))
    if request.system == prompts.ADJUDICATE_SYSTEM:
        return _story_verdicts(request)
    if request.system == prompts.REPLY_SYSTEM:
        return Reply(content="Noted, thanks for telling me.", reasoning="The user shared a fact; acknowledge it.")
    return None
