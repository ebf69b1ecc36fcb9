"""Fakes for the ports: scripted answers, recorded calls. No mocks of internals."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from datetime import datetime

from engram_core.core.errors import ProviderError
from engram_core.core.model import Belief, FactDraft


class ScriptedLLM:
    """Answers from scripts keyed by method; records every call."""

    model_id = "scripted"

    def __init__(self, *, assess: Callable[[str], str] | dict[str, str] | None = None,
                 adjudicate: Callable[[FactDraft, Sequence[Belief]], str] | None = None,
                 summarise: Callable[[Sequence[str]], str] | None = None,
                 dream: Callable[[Sequence[tuple[str, str, float]]], str] | None = None,
                 unreachable: bool = False, on_call: Callable[[str], None] | None = None) -> None:
        self._assess = assess or {}
        self._on_call = on_call  # runs at every call, before the answer (a port-level probe of the caller's state)
        self._adjudicate = adjudicate
        self._summarise = summarise
        self._dream = dream
        self.unreachable = unreachable
        self.calls: list[tuple[str, object]] = []

    def _check(self) -> None:
        if self._on_call is not None:
            self._on_call(self.calls[-1][0])
        if self.unreachable:
            raise ProviderError("scripted LLM is unreachable")

    def assess(self, text: str, speaker: str, occurred_at: datetime, earlier: str = "") -> str:
        self.calls.append(("assess", text))
        self._check()
        if callable(self._assess):
            return self._assess(text)
        return self._assess.get(text, json.dumps({"importance": 0.5, "facts": []}))

    def adjudicate(self, new_fact: FactDraft, candidates: Sequence[Belief]) -> str:
        self.calls.append(("adjudicate", (new_fact, tuple(candidates))))
        self._check()
        return self._adjudicate(new_fact, candidates) if self._adjudicate else "{}"

    def summarise(self, texts: Sequence[str]) -> str:
        self.calls.append(("summarise", tuple(texts)))
        self._check()
        if self._summarise:
            return self._summarise(texts)
        return json.dumps({"gist": "Gist: " + " / ".join(t[:30] for t in texts)})

    def propose_dream(self, memories: Sequence[tuple[str, str, float]]) -> str:
        self.calls.append(("dream", tuple(memories)))
        self._check()
        return self._dream(memories) if self._dream else json.dumps({"actions": []})

    def reply(self, message: str, memory_block: str) -> str:
        self.calls.append(("reply", (message, memory_block)))
        self._check()
        return "scripted reply"


def fact(subject: str, predicate: str, obj: str, statement: str, **extra: object) -> dict:
    return {"subject": subject, "predicate": predicate, "object": obj, "statement": statement, **extra}


def assessment(importance: float, *facts: dict) -> str:
    return json.dumps({"importance": importance, "facts": list(facts)})


def counter_ids() -> Callable[[str], str]:
    numbers = itertools.count(1)
    return lambda prefix: f"{prefix}_{next(numbers):06d}"
