"""The offline default "LLM": the deterministic heuristics behind the ``LLM`` port.

It answers in the same JSON a hosted model would, so the engine parses it through
the same defensive path (``engram_core.core.verdicts``) and cannot tell the two apart.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from enum import Enum

from engram_core.adapters.offline import heuristics, judge
from engram_core.adapters.offline.adjudicate import adjudicate
from engram_core.core.model import Belief, FactDraft

# Speakers whose words are not facts about a person.
_NOT_A_PERSON = frozenset({"assistant", "system", "ai", "bot", "tool"})
_THE_USER = frozenset({"", "user", "human", "me"})


_WRITE_PATH_ONLY = frozenset({"carried"})  # set by the write path, never by a bookkeeper


def draft_to_json(draft: FactDraft) -> dict[str, object]:
    """Every FactDraft field a bookkeeper answers, enums as their string values."""
    return {key: value.value if isinstance(value, Enum) else value for key, value in asdict(draft).items()
            if key not in _WRITE_PATH_ONLY}


def subject_for(speaker: str | None) -> tuple[str, str] | None:
    """(subject, display) for a speaker; None when the speaker is not a person."""
    name = (speaker or "").strip()
    if name.lower() in _NOT_A_PERSON:
        return None
    if name.lower() in _THE_USER:
        return "user", "The user"
    return name.lower(), name


class OfflineLLM:
    """No network, no model: rules and templates, same answer every time."""

    model_id = "offline-heuristic-v1"

    def assess(self, text: str, speaker: str, occurred_at: datetime, earlier: str = "") -> str:
        who = subject_for(speaker)
        facts = heuristics.extract_facts(text, *who, earlier=earlier) if who else ()
        importance = judge.score_importance(text)
        return json.dumps({"importance": importance, "facts": [draft_to_json(f) for f in facts]})

    def adjudicate(self, new_fact: FactDraft, candidates: Sequence[Belief]) -> str:
        return json.dumps(adjudicate(new_fact, candidates))

    def summarise(self, texts: Sequence[str]) -> str:
        return json.dumps({"gist": judge.summarise(texts)})

    def propose_dream(self, memories: Sequence[tuple[str, str, float]]) -> str:
        return json.dumps(judge.propose_dream(memories))

    def reply(self, message: str, memory_block: str) -> str:
        return judge.offline_reply(message, memory_block)
