"""The truth-maintenance cases and how a run is judged against them (pure).

A case is a short conversation in sessions, the beliefs that must hold at the end
(``current``), values it replaced (``replaced``: may have been believed, must not
be current), beliefs that may exist (``allowed``), past facts that may exist only
as history (``past``), the messages that state a replaced value (``outdated``,
1-based over the whole case) and a recall probe. A spec matches a belief by
subject, polarity and value: the value (any of its alternatives) is part of the
belief's object, case-insensitively. Any belief the ledger made that no spec
accounts for is a false belief.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engram_bench.common import read_json_model
from engram_core.core.errors import ValidationError
from engram_core.core.model import Belief

USER = "user"
NEGATED_PREFIX = "not:"
# Predicates that state the absence of a value or a wish rather than the value itself; a hosted
# model names its predicates freely, so polarity is read from the name's words.
_NEGATIVE_WORDS = re.compile(r"(?:^|_)(?:dislikes?|avoids?|hates?|quit|stopped|no_longer|former|not|never|gave_up)(?:_|$)")
_WISH_WORDS = re.compile(r"(?:^|_)(?:goals?|wish(?:es)?|wants?|plans?|dreams?|aspirations?|hopes?|would_like|intends?)(?:_|$)")
Polarity = Literal["positive", "negative", "any", "wish"]


class SpecIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: list[str] = Field(min_length=1)
    value: list[str] = Field(min_length=1)
    polarity: Polarity = "positive"


class SessionIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    gap_hours: float = Field(ge=0)
    messages: list[str] = Field(min_length=1)


class ProbeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1)
    expect: list[list[str]] = Field(min_length=1)  # every group must be found; any string of a group will do
    forbid: list[str] = []


class CaseIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    style: str = Field(min_length=1)
    split: Literal["dev", "heldout"]
    sessions: list[SessionIn] = Field(min_length=1)
    current: list[SpecIn] = []
    replaced: list[SpecIn] = []
    allowed: list[SpecIn] = []
    past: list[SpecIn] = []
    outdated: list[int] = []
    probe: ProbeIn

    @property
    def is_update(self) -> bool:
        return bool(self.replaced)

    def messages(self) -> list[str]:
        return [m for s in self.sessions for m in s.messages]


class CaseFileIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: int
    cases: list[CaseIn] = Field(min_length=1)


def shipped_cases_path() -> Path:
    return Path(str(resources.files("engram_bench") / "data" / "truth-cases.json"))


def load_cases(path: Path | None = None) -> list[CaseIn]:
    path = path or shipped_cases_path()
    parsed = read_json_model(path, CaseFileIn)
    ids = [c.id for c in parsed.cases]
    if len(set(ids)) != len(ids):
        raise ValidationError(f"{path}: case ids must be unique", field="file")
    return parsed.cases


# -- matching ---------------------------------------------------------------------------

def belief_polarity(predicate: str) -> Polarity:
    name = predicate.strip().lower()
    if name.startswith(NEGATED_PREFIX) or _NEGATIVE_WORDS.search(name):
        return "negative"
    return "wish" if _WISH_WORDS.search(name) else "positive"


def _subject_matches(spec: SpecIn, subject: str) -> bool:
    who = subject.strip().lower()
    if who == USER:
        return USER in spec.subject
    return any(word != USER and word.lower() in who for word in spec.subject)


def spec_matches(spec: SpecIn, belief: Belief) -> bool:
    if not _subject_matches(spec, belief.subject):
        return False
    if spec.polarity != "any" and belief_polarity(belief.predicate) != spec.polarity:
        return False
    held = belief.object.lower()
    return any(v.lower() in held for v in spec.value)


def _any_match(specs: Sequence[SpecIn], belief: Belief) -> bool:
    return any(spec_matches(s, belief) for s in specs)


# -- the ledger ---------------------------------------------------------------------------

@dataclass(frozen=True)
class LedgerOutcome:
    case_id: str
    false_beliefs: tuple[str, ...]  # "subject predicate: object" of each
    false_supersessions: tuple[str, ...]  # the still-true values the ledger retired
    update_caught: bool | None  # None when the case changes nothing


def _any_polarity(specs: Sequence[SpecIn]) -> list[SpecIn]:
    return [s.model_copy(update={"polarity": "any"}) for s in specs]


def _accounted(case: CaseIn, belief: Belief) -> bool:
    if _any_match(case.current, belief) or _any_match(case.replaced, belief) or _any_match(case.allowed, belief):
        return True
    if belief_polarity(belief.predicate) == "negative" and _any_match(_any_polarity(case.replaced + case.past), belief):
        return True  # "no longer works at X" for a replaced or past X is true
    return not belief.is_current() and _any_match(case.past, belief)


def describe(belief: Belief) -> str:
    return f"{belief.subject} {belief.predicate}: {belief.object}"


def _falsely_retired(case: CaseIn, beliefs: Sequence[Belief]) -> tuple[str, ...]:
    retired = []
    for spec in case.current:
        matching = [b for b in beliefs if spec_matches(spec, b)]
        if matching and not any(b.is_current() for b in matching):
            retired.append(spec.value[0])
    return tuple(retired)


def _update_caught(case: CaseIn, beliefs: Sequence[Belief]) -> bool | None:
    if not case.is_update:
        return None
    current = [b for b in beliefs if b.is_current()]
    new_held = all(any(spec_matches(s, b) for b in current) for s in case.current)
    old_gone = not any(spec_matches(s, b) for s in case.replaced for b in current)
    return new_held and old_gone


def judge_ledger(case: CaseIn, beliefs: Sequence[Belief]) -> LedgerOutcome:
    false = tuple(describe(b) for b in beliefs if not _accounted(case, b))
    return LedgerOutcome(case.id, false, _falsely_retired(case, beliefs), _update_caught(case, beliefs))


# -- the context ----------------------------------------------------------------------------

@dataclass(frozen=True)
class PackedItem:
    """One item of a system's context: its line, the case messages whose own text it is (1-based;
    empty for a distilled fact or a gist), and the belief it states, if any."""

    line: str
    raw_messages: tuple[int, ...]
    belief: Belief | None = None


def found(block: str, probe: ProbeIn) -> bool:
    text = block.lower()
    return all(any(alt.lower() in text for alt in group) for group in probe.expect)


def item_is_stale(case: CaseIn, item: PackedItem) -> bool:
    """A raw message that states a replaced value, a belief holding one, or other text (a gist) that
    names a replaced value and none of the expected ones."""
    if item.belief is not None:
        return _any_match(case.replaced, item.belief)
    if item.raw_messages:
        return any(m in case.outdated for m in item.raw_messages)
    text = item.line.lower()
    named = any(f.lower() in text for f in case.probe.forbid)
    return named and not found(item.line, case.probe)


def stale(case: CaseIn, items: Sequence[PackedItem]) -> bool | None:
    if not case.is_update:
        return None
    return any(item_is_stale(case, i) for i in items)
