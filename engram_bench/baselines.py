"""The systems every suite compares, on the same data, embedder, token counter and rendering.

B0 no memory; B1 full history, most recent first, cut at the budget; B2 top-k by
cosine; B2L top-k by BM25 (SQLite FTS5); B2H the reciprocal-rank fusion of those two
rankings; B3 Engram with its defaults; and Engram with forgetting switched off. Every system
renders its context exactly like Engram (``engram_core.core.render``) and counts tokens with the same counter, so the
token figures are comparable.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from engram_core.adapters.clock import FixedClock
from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.adapters.sqlite_store import SqliteStore
from engram_core.adapters.tokens import default_token_counter
from engram_core.core.config import EngineConfig
from engram_core.usecases.engine import Engine
from engram_core.core.model import MemoryKind
from engram_core.core.packing import Packable, pack_under_budget
from engram_core.core.ports import Embedder, TokenCounter
from engram_core.core.render import (
    BlockForm, block_form, day_heading, fit_block, frame_text, heading_cost, line_cost, render_block, render_line,
)

CANDIDATE_POOL = 400  # as many candidates as Engram's recall considers
RRF_K = 60  # reciprocal-rank fusion's usual constant (Cormack et al., 2009)
FULL_FROM = EngineConfig().full_block_from_tokens  # the same block form as Engram's at every budget
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, as every system receives it."""

    id: str
    session_id: str
    speaker: str | None
    text: str
    at: datetime

    @property
    def line_text(self) -> str:
        """What a raw-turn system stores and shows: the same text Engram's episodes hold."""
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


@dataclass(frozen=True)
class ContextItem:
    line: str
    sources: tuple[str, ...]  # the turns whose own text this item carries; a gist carries none
    tokens: int


@dataclass(frozen=True)
class Context:
    items: tuple[ContextItem, ...]
    tokens_used: int
    block: str

    def source_turns(self) -> set[str]:
        return {s for item in self.items for s in item.sources}


EMPTY = Context((), 0, "")


class System(Protocol):
    name: str

    def add(self, turn: Turn) -> None: ...

    def recall(self, query: str, budget: int, at: datetime) -> Context: ...

    def close(self) -> None: ...


# -- raw-turn baselines ------------------------------------------------------------------

class _TurnLog:
    """Turns with their rendered lines and token costs, per block form, each computed once."""

    def __init__(self, tokens: TokenCounter, full_from: int) -> None:
        self.tokens = tokens
        self.full_from = full_from
        self.turns: list[Turn] = []
        self._rendered: dict[BlockForm, tuple[list[str], list[int]]] = {}
        self._headings: dict[str, int] = {}

    def append(self, turn: Turn) -> None:
        self.turns.append(turn)

    def form(self, budget: int) -> BlockForm:
        return block_form(budget, self.full_from)

    def frame(self, form: BlockForm) -> int:
        return self.tokens.count(frame_text(form))

    def rendered(self, form: BlockForm) -> tuple[list[str], list[int]]:
        """Lines and costs of every turn so far in ``form``, extended as turns arrive."""
        lines, costs = self._rendered.setdefault(form, ([], []))
        for turn in self.turns[len(lines):]:
            lines.append(render_line(MemoryKind.EPISODE, turn.line_text, turn.at, form))
            costs.append(line_cost(self.tokens, form, lines[-1]))
        return lines, costs

    def heading(self, form: BlockForm, pos: int) -> tuple[str, int]:
        """The day turn ``pos`` sits under in ``form`` and its heading's tokens (none in the compact form)."""
        if form is not BlockForm.FULL:
            return "", 0
        day = day_heading(self.turns[pos].at)
        if day not in self._headings:
            self._headings[day] = heading_cost(self.tokens, form, self.turns[pos].at)
        return day, self._headings[day]

    def context(self, positions: Sequence[int], form: BlockForm, budget: int) -> Context:
        lines, costs = self.rendered(form)
        times = [self.turns[p].at for p in positions]
        kept, used = fit_block(self.tokens, form, [lines[p] for p in positions], budget, times)
        if not kept:
            return EMPTY
        items = tuple(ContextItem(lines[p], (self.turns[p].id,), costs[p]) for p in positions[:kept])
        return Context(items, used, render_block([i.line for i in items], form, times[:kept]))

    def pack_ranked(self, ranked: Sequence[tuple[int, float]], budget: int) -> Context:
        """Greedy by score with smaller items backfilling: Engram's own packer."""
        form = self.form(budget)
        frame = self.frame(form)
        if budget <= frame:
            return EMPTY
        costs = self.rendered(form)[1]
        packables = [Packable(str(p), score, costs[p], (), *self.heading(form, p)) for p, score in ranked]
        return self.context([int(p.key) for p in pack_under_budget(packables, budget - frame)], form, budget)


class NoMemory:
    name = "B0 no memory"

    def add(self, turn: Turn) -> None:
        return None

    def recall(self, query: str, budget: int, at: datetime) -> Context:
        return EMPTY

    def close(self) -> None:
        return None


class FullHistory:
    """The whole transcript, newest first, cut where the next turn no longer fits."""

    name = "B1 full history"

    def __init__(self, tokens: TokenCounter, full_from: int = FULL_FROM) -> None:
        self.log = _TurnLog(tokens, full_from)

    def add(self, turn: Turn) -> None:
        self.log.append(turn)

    def recall(self, query: str, budget: int, at: datetime) -> Context:
        form = self.log.form(budget)
        costs = self.log.rendered(form)[1]
        room, chosen, days = budget - self.log.frame(form), [], set()
        for pos in range(len(self.log.turns) - 1, -1, -1):
            if self.log.turns[pos].at > at:
                continue
            day, heading = self.log.heading(form, pos)
            cost = costs[pos] + (heading if day not in days else 0)
            if cost > room:
                break
            chosen.append(pos)
            days.add(day)
            room -= cost
        return self.log.context(chosen, form, budget)

    def close(self) -> None:
        return None


class CosineTopK:
    """Naive RAG: turns ranked by cosine with the question, same embedder as Engram."""

    name = "B2 top-k cosine"

    def __init__(self, tokens: TokenCounter, embedder: Embedder, full_from: int = FULL_FROM) -> None:
        self.log = _TurnLog(tokens, full_from)
        self.embedder = embedder
        self.vectors: list[np.ndarray] = []
        self._matrix: np.ndarray | None = None

    def add(self, turn: Turn) -> None:
        self.log.append(turn)
        self.vectors.append(self.embedder.embed([turn.line_text])[0])
        self._matrix = None

    def ranked(self, query: str, at: datetime) -> list[tuple[int, float]]:
        """The best ``CANDIDATE_POOL`` turns said by ``at``, as (position, cosine), best first."""
        if not self.vectors:
            return []
        if self._matrix is None:
            self._matrix = np.stack(self.vectors)
        scores = self._matrix @ self.embedder.embed([query])[0]
        pool = min(CANDIDATE_POOL, len(scores))
        top = np.argpartition(-scores, pool - 1)[:pool]
        top = top[np.lexsort((top, -scores[top]))]
        return [(int(p), float(scores[p])) for p in top if self.log.turns[p].at <= at]

    def recall(self, query: str, budget: int, at: datetime) -> Context:
        ranked = self.ranked(query, at)
        return self.log.pack_ranked(ranked, budget) if ranked else EMPTY

    def close(self) -> None:
        return None


class LexicalTopK:
    """Turns ranked by BM25 (SQLite FTS5, the tokenizer Engram's lexical index uses)."""

    name = "B2L top-k BM25"

    def __init__(self, tokens: TokenCounter, full_from: int = FULL_FROM) -> None:
        self.log = _TurnLog(tokens, full_from)
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE turns USING fts5 (text, tokenize = 'porter unicode61')")

    def add(self, turn: Turn) -> None:
        self.conn.execute("INSERT INTO turns (rowid, text) VALUES (?, ?)", (len(self.log.turns), turn.line_text))
        self.log.append(turn)

    def ranked(self, query: str, at: datetime) -> list[tuple[int, float]]:
        """The best ``CANDIDATE_POOL`` turns said by ``at``, as (position, BM25), best first."""
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))[:64]
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.conn.execute("SELECT rowid, -bm25(turns) FROM turns WHERE turns MATCH ? "
                                 "ORDER BY bm25(turns) LIMIT ?", (match, CANDIDATE_POOL)).fetchall()
        return [(int(p), float(s)) for p, s in rows if self.log.turns[p].at <= at]

    def recall(self, query: str, budget: int, at: datetime) -> Context:
        ranked = self.ranked(query, at)
        return self.log.pack_ranked(ranked, budget) if ranked else EMPTY

    def close(self) -> None:
        self.conn.close()


def reciprocal_rank_fusion(rankings: Sequence[Sequence[tuple[int, float]]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Each item scores the sum of 1 / (k + rank) over the rankings it is in (rank 1 is the best)."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, (position, _) in enumerate(ranking, start=1):
            fused[position] = fused.get(position, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda pair: (-pair[1], pair[0]))


class HybridTopK:
    """What a user would pick instead: the BM25 and cosine rankings above, fused by reciprocal rank,
    packed the same way."""

    name = "B2H top-k hybrid (RRF)"

    def __init__(self, tokens: TokenCounter, embedder: Embedder, full_from: int = FULL_FROM) -> None:
        self.dense = CosineTopK(tokens, embedder, full_from)
        self.lexical = LexicalTopK(tokens, full_from)

    def add(self, turn: Turn) -> None:
        self.dense.add(turn)
        self.lexical.add(turn)

    def recall(self, query: str, budget: int, at: datetime) -> Context:
        fused = reciprocal_rank_fusion([self.dense.ranked(query, at), self.lexical.ranked(query, at)])
        return self.dense.log.pack_ranked(fused[:CANDIDATE_POOL], budget) if fused else EMPTY

    def close(self) -> None:
        self.lexical.close()


# -- Engram ------------------------------------------------------------------------------

class EngramSystem:
    """Engram through its public API: observe each turn at its time, recall at the question's."""

    def __init__(self, name: str, embedder: Embedder, tokens: TokenCounter, config: EngineConfig,
                 start: datetime, reinforce: bool = False, nightly_sleep: bool = False) -> None:
        self.name = name
        self.clock = FixedClock(start)
        self.engine = Engine(SqliteStore(":memory:"), embedder=embedder, llm=OfflineLLM(), tokens=tokens,
                             clock=self.clock, config=config)
        self.reinforce = reinforce
        self.nightly_sleep, self.slept_on = nightly_sleep, start.date()
        self.turn_of_message: dict[str, str] = {}

    def advance_to(self, moment: datetime) -> None:
        """The engine's clock only moves forward; with ``nightly_sleep``, the first moment of a
        new day runs the sleep cycle first, as the timed consolidation would have overnight."""
        if moment > self.clock.now():
            self.clock.set(moment)
        if self.nightly_sleep and moment.date() > self.slept_on:
            self.engine.sleep()
            self.slept_on = moment.date()

    def add(self, turn: Turn) -> None:
        self.advance_to(turn.at)
        result = self.engine.observe(turn.text, session_id=turn.session_id, message_id=turn.id,
                                     occurred_at=turn.at, speaker=turn.speaker)
        if result.message is not None:
            self.turn_of_message[result.message.id] = turn.id

    def recall(self, query: str, budget: int, at: datetime) -> Context:
        self.advance_to(at)
        result = self.engine.recall(query, budget, reinforce=self.reinforce)
        items = tuple(ContextItem(i.line, self._sources(i.kind, i.source_message_ids), i.tokens) for i in result.items)
        return Context(items, result.tokens_used, result.block)

    def _sources(self, kind: MemoryKind, message_ids: Sequence[str]) -> tuple[str, ...]:
        """A gist summarises many turns; it retrieves none of them."""
        if kind is MemoryKind.GIST:
            return ()
        return tuple(self.turn_of_message[m] for m in message_ids if m in self.turn_of_message)

    def close(self) -> None:
        self.engine.close()


PLAIN_RETRIEVERS = (CosineTopK.name, LexicalTopK.name, HybridTopK.name)  # what Engram is measured against
ENGRAM = "B3 Engram"
ENGRAM_NO_FORGETTING = "B3 Engram, no forgetting"
ENGRAM_SLEEP = "B3 Engram, nightly sleep"


def all_systems(embedder: Embedder, start: datetime, config: EngineConfig | None = None,
                reinforce: bool = False, nightly_sleep: bool = False) -> list[System]:
    """A fresh set of every system, sharing one embedder and one token counter; with
    ``nightly_sleep``, also Engram running its sleep cycle once a day."""
    tokens = default_token_counter()
    config = config or EngineConfig()
    full_from = config.full_block_from_tokens
    sleeper = [EngramSystem(ENGRAM_SLEEP, embedder, tokens, config, start, reinforce, nightly_sleep=True)]
    return [
        NoMemory(), FullHistory(tokens, full_from), CosineTopK(tokens, embedder, full_from),
        LexicalTopK(tokens, full_from), HybridTopK(tokens, embedder, full_from),
        EngramSystem(ENGRAM, embedder, tokens, config, start, reinforce),
        EngramSystem(ENGRAM_NO_FORGETTING, embedder, tokens, config.model_copy(update={"forgetting": False}),
                     start, reinforce),
        *(sleeper if nightly_sleep else []),
    ]
