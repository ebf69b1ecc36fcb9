"""Messages longer than the stored-text limit: one message, stored as linked parts.

A pasted document or a long report is kept whole as the message, and its text is
cut into parts (at paragraph, then sentence, then word boundaries) that are each
assessed, embedded and stored as an episode of that one message: every part's
provenance is the message, its text says which part it is, and recall packs the
parts that match like any other episode (a whole 300 KB text never fits a
budget, and an embedder reads only its first few hundred words).
"""

from __future__ import annotations

import re

import numpy as np

from engram_core.core.model import Assessment, EventKind, MemoryKind, Message, WriteResult
from engram_core.usecases.runtime import Runtime
from engram_core.usecases.writepath import Observation, apply_fact, assess, write_planned
from engram_core.usecases.writes import WriteLog, new_memory, store_memory
from engram_core.usecases.writeplan import FactPlan

_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"(?<=[.!?])\s+"), re.compile(r"\s+"))


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _hard_cut(text: str, limit: int) -> list[str]:
    """No boundary left: cut by bytes, never inside a character."""
    pieces, data = [], text.encode("utf-8")
    while data:
        head = data[:limit].decode("utf-8", errors="ignore")
        pieces.append(head)
        data = data[len(head.encode("utf-8")):]
    return pieces


def _pieces(text: str, limit: int, level: int) -> list[str]:
    """``text`` as pieces of at most ``limit`` bytes, cut at the coarsest boundary that works."""
    if _size(text) <= limit:
        return [text]
    if level == len(_BREAKS):
        return _hard_cut(text, limit)
    out: list[str] = []
    for part in _BREAKS[level].split(text):
        out += _pieces(part, limit, level + 1) if _size(part) > limit else [part]
    return out


def split_text(text: str, limit: int) -> list[str]:
    """Consecutive parts of ``text``, each at most ``limit`` UTF-8 bytes and as full as its boundaries allow."""
    parts: list[str] = []
    for piece in (p.strip() for p in _pieces(text, limit, 0)):
        if not piece:
            continue
        if parts and _size(parts[-1]) + 1 + _size(piece) <= limit:
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return parts


def part_label(number: int, total: int) -> str:
    return f"(part {number} of {total}) "


def observe_long(rt: Runtime, obs: Observation, part_bytes: int) -> WriteResult:
    """Store one long message whole, and its parts as linked episodes: assessed and planned with no
    transaction open, then applied in one."""
    if obs.external_id:
        existing = rt.store.message_by_external_id(obs.external_id)
        if existing is not None:
            return WriteResult(existing, (), (), ())
    now = rt.now()
    at, speaker, user = obs.occurred_at or now, obs.speaker or obs.role, obs.role == "user"
    pieces = split_text(obs.text, part_bytes - _size(part_label(999_999, 999_999)))
    texts = [part_label(i, len(pieces)) + p for i, p in enumerate(pieces, start=1)]
    assessments = [assess(rt, t, speaker, at) if user else Assessment(importance=0.0) for t in texts]
    episodes = [f"{obs.speaker}: {t}" if obs.speaker else t for t in texts]
    facts = [f for a in assessments for f in a.facts]
    vectors = rt.embed(episodes + [f.statement for f in facts]) if user else None
    message = Message(rt.new_id("msg"), obs.role, obs.session_id, obs.text, at, now, obs.external_id, obs.speaker)
    raced: list[Message] = []

    def apply(plans: tuple[FactPlan, ...], log: WriteLog) -> None:
        if obs.external_id and (other := rt.store.message_by_external_id(obs.external_id)) is not None:
            raced.append(other)  # the same message, written meanwhile
            return
        rt.claim_embedder()
        rt.store.insert_message(message)
        if vectors is None:  # only a user message is embedded
            log.events.append(rt.event(EventKind.NOT_STORED, message_id=message.id, reason="not a user message"))
            return
        _store_parts(rt, obs, message, episodes, assessments, vectors, log)
        for plan in plans:
            apply_fact(rt, plan, log)

    fact_vectors: np.ndarray | list[np.ndarray] = vectors[len(episodes):] if vectors is not None else []
    log = write_planned(rt, [(f, v, message) for f, v in zip(facts, fact_vectors, strict=True)], apply)
    return WriteResult(raced[0], (), (), ()) if raced else log.result(message)


def _store_parts(rt: Runtime, obs: Observation, message: Message, episodes: list[str],
                 assessments: list[Assessment], vectors: np.ndarray, log: WriteLog) -> None:
    """Each part that clears the importance gate becomes an episode of the message."""
    # ``vectors`` goes on past the parts with the facts' vectors: zip stops at the last part
    for number, (text, assessment, vector) in enumerate(zip(episodes, assessments, vectors, strict=False), start=1):
        importance = obs.importance if obs.importance is not None else assessment.importance
        if obs.importance is None and importance < rt.config.store_threshold:
            log.events.append(rt.event(EventKind.NOT_STORED, message_id=message.id, part=number,
                                       importance=round(importance, 4), threshold=rt.config.store_threshold))
            continue
        memory = new_memory(rt, kind=obs.kind or MemoryKind.EPISODE, text=text, importance=importance,
                            at=message.occurred_at, vector=vector, provenance=(message.id,), session_id=obs.session_id)
        store_memory(rt, memory, log, part=number, parts=len(episodes))
