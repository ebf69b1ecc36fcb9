"""Conversation data for ``engram bench retrieval``: the generic format, and LoCoMo's JSON.

Generic format (documented in docs/benchmarks.md)::

    {"name": str, "conversations": [{"id": str,
      "sessions": [{"id": str, "at": ISO-8601,
                    "turns": [{"id": str, "speaker": str, "text": str, "at": ISO-8601 optional}]}],
      "questions": [{"id": str, "text": str, "at": ISO-8601 optional, "evidence": [turn ids],
                     "category": str, "answer": str optional}]}]}

LoCoMo's file (a list of ``{"conversation", "qa", "sample_id", ...}``) is detected
by its shape and converted to the same model.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError as PydanticError, model_validator

from engram_core.core.errors import ValidationError

TURN_SPACING = timedelta(seconds=30)  # a turn without its own time: its session's time plus this per turn
QUESTION_DELAY = timedelta(days=1)  # a question without a time is asked this long after the last session
LOCOMO_CATEGORIES = {1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop", 5: "5 adversarial"}
LOCOMO_APART = ("5 adversarial",)  # reported apart from the headline, as LoCoMo's own papers do
_LOCOMO_DATE = "%I:%M %p on %d %B, %Y"
_DIA_ID = re.compile(r"D:?(\d+):0*(\d+)")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class TurnIn(_Strict):
    id: str = Field(min_length=1)
    speaker: str | None = None
    text: str = Field(min_length=1)
    at: datetime | None = None


class SessionIn(_Strict):
    id: str = Field(min_length=1)
    at: datetime
    turns: list[TurnIn]


class QuestionIn(_Strict):
    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    at: datetime | None = None
    evidence: list[str] = []
    category: str = "all"
    answer: str | None = None


class ConversationIn(_Strict):
    id: str = Field(min_length=1)
    sessions: list[SessionIn] = Field(min_length=1)
    questions: list[QuestionIn] = []

    @model_validator(mode="after")
    def _unique_turn_ids(self) -> "ConversationIn":
        ids = [t.id for s in self.sessions for t in s.turns]
        if len(ids) != len(set(ids)):
            raise ValueError("turn ids must be unique within a conversation")
        return self


class Dataset(_Strict):
    name: str = "unnamed"
    conversations: list[ConversationIn] = Field(min_length=1)
    apart: tuple[str, ...] = ()  # categories left out of the headline figure
    dropped_evidence: int = 0  # evidence ids that name no turn (after normalising)


def utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def load_dataset(path: Path) -> Dataset:
    """Read either format; every problem is one ValidationError naming the file."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValidationError(f"{path}: not a readable JSON file ({exc})", field="data") from exc
    try:
        return _from_locomo(raw, path.stem) if _looks_like_locomo(raw) else Dataset.model_validate(raw)
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "top level"
        raise ValidationError(f"{path}: {where}: {first['msg']}", field="data") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise ValidationError(f"{path}: not LoCoMo-shaped as expected ({exc})", field="data") from exc


def _looks_like_locomo(raw: object) -> bool:
    return isinstance(raw, list) and bool(raw) and all(
        isinstance(c, dict) and "conversation" in c and "qa" in c for c in raw)


# -- LoCoMo -----------------------------------------------------------------------------

def _session_numbers(conv: dict) -> list[int]:
    """Sessions are the ``session_N`` lists; some files list more date keys than sessions."""
    found = (re.fullmatch(r"session_(\d+)", k) for k in conv)
    return sorted(int(m.group(1)) for m in found if m and isinstance(conv[m.group(0)], list))


def _locomo_turn_text(turn: dict) -> str:
    """An image turn shows its caption, as LoCoMo's own retrieval baselines do."""
    caption = turn.get("blip_caption")
    return f"{turn['text']} [shares {caption}]" if caption else turn["text"]


def _locomo_session(conv: dict, number: int) -> dict:
    at = datetime.strptime(conv[f"session_{number}_date_time"], _LOCOMO_DATE).replace(tzinfo=timezone.utc)
    turns = [{"id": t["dia_id"], "speaker": t["speaker"], "text": _locomo_turn_text(t), "at": at + i * TURN_SPACING}
             for i, t in enumerate(conv[f"session_{number}"])]
    return {"id": f"session_{number}", "at": at, "turns": turns}


def normalise_evidence(raw: object) -> list[str]:
    """'D8:6; D9:17' -> two ids, 'D:11:26' -> 'D11:26', 'D30:05' -> 'D30:5'."""
    return [f"D{a}:{b}" for a, b in _DIA_ID.findall(str(raw))]


def _locomo_question(sample: str, index: int, qa: dict, turn_ids: set[str]) -> tuple[dict, int]:
    ids = list(dict.fromkeys(e for raw in qa.get("evidence", []) for e in normalise_evidence(raw)))
    known = [e for e in ids if e in turn_ids]
    answer = qa.get("answer", qa.get("adversarial_answer"))
    category = LOCOMO_CATEGORIES.get(int(qa["category"]), str(qa["category"]))
    question = {"id": f"{sample}-q{index + 1}", "text": qa["question"], "evidence": known, "category": category,
                "answer": None if answer is None else str(answer)}
    return question, len(ids) - len(known)


def _from_locomo(raw: list[dict], name: str) -> Dataset:
    conversations, dropped = [], 0
    for sample in raw:
        conv = sample["conversation"]
        sessions = [_locomo_session(conv, n) for n in _session_numbers(conv)]
        turn_ids = {t["id"] for s in sessions for t in s["turns"]}
        questions = []
        for index, qa in enumerate(sample["qa"]):
            question, missing = _locomo_question(sample["sample_id"], index, qa, turn_ids)
            questions.append(question)
            dropped += missing
        conversations.append({"id": sample["sample_id"], "sessions": sessions, "questions": questions})
    return Dataset.model_validate({"name": f"LoCoMo ({name})", "conversations": conversations,
                                   "apart": LOCOMO_APART, "dropped_evidence": dropped})


def question_time(conversation: ConversationIn, question: QuestionIn) -> datetime:
    if question.at is not None:
        return utc(question.at)
    last = max(utc(s.at) for s in conversation.sessions)
    return last + QUESTION_DELAY


def turn_time(session: SessionIn, index: int, turn: TurnIn) -> datetime:
    return utc(turn.at) if turn.at is not None else utc(session.at) + index * TURN_SPACING
