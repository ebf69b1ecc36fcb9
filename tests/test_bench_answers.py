"""``engram bench answers`` against the local OpenAI-compatible server: answers, judge, tokens and cost."""

from __future__ import annotations

import json
import re
from pathlib import Path

from openai_server import OpenAIServer, Recorded, Reply
from qwen_support import cli_env, engram

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "bench-locomo-shaped.json"
GOLD = {"Where does Ana volunteer?": "animal shelter", "What did Ben paint?": "a lighthouse"}


def reading_model(request: Recorded) -> Reply:
    """Answers from the memories it was given (the gold answer if they hold it), and judges by equality."""
    text = request.last_user
    if text.startswith("Question:"):  # the judge
        gold = re.search(r"Gold answer: (.*)", text).group(1)
        answer = re.search(r"Answer to grade: (.*)", text).group(1)
        return Reply(content=json.dumps({"label": "CORRECT" if gold.lower() in answer.lower() else "WRONG"}))
    question = re.search(r"Question: (.*)", text).group(1)
    gold = GOLD.get(question, "")
    return Reply(content=gold if gold and gold.split()[-1] in text.lower() else "not known")


def test_answers_are_judged_per_system_with_tokens_and_cost(tmp_path: Path) -> None:
    with OpenAIServer(reading_model) as server:
        env = cli_env(server.url, tmp_path / "unused.sqlite", ENGRAM_EMBEDDER="hashing")
        report = tmp_path / "answers.json"
        out = engram(env, "bench", "answers", "--data", str(FIXTURE), "--budget", "512",
                     "--systems", "B0 no memory,B3 Engram", "--json", str(report))
        assert out.returncode == 0, out.stderr
        requests = server.chat_requests()
    data = json.loads(report.read_text())
    assert data["results"]["B0 no memory"]["overall"] == 0.0  # no context: "not known", judged WRONG
    assert data["results"]["B3 Engram"]["overall"] > 0.0
    assert "J accuracy" in out.stdout and "USD per question" in out.stdout
    assert {r.model for r in requests} == {"qwen-plus", "qwen-flash"}  # reply model answers, bookkeeping judges
    assert all(r.body["temperature"] == 0 for r in requests)
    assert len(requests) == 2 * 2 * 2  # two questions with answers (category 5 apart), two systems, two calls


def test_without_a_key_it_refuses_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in cli_env("http://127.0.0.1:9/v1", tmp_path / "s.sqlite").items()
           if k not in ("QWEN_CLOUD_API_KEY", "DASHSCOPE_API_KEY")}
    out = engram(env, "bench", "answers", "--data", str(FIXTURE))
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "needs a Qwen Cloud key" in out.stderr
