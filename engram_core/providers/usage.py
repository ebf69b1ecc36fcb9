"""Usage metering: one record per provider call, with an estimated cost from the price table."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from engram_core.core.model import CallOutcome, CallPurpose, ModelCall
from engram_core.providers.settings import ModelPrice

PER_MILLION = 1_000_000


def estimate_cost(price: ModelPrice | None, prompt_tokens: int, completion_tokens: int,
                  thinking: bool = False) -> float:
    """USD for one call; unpriced models cost 0 (and show as such in stats)."""
    if price is None:
        return 0.0
    output = price.thinking_output if thinking and price.thinking_output is not None else price.output
    return (prompt_tokens * price.input + completion_tokens * output) / PER_MILLION


class UsageMeter:
    """Calls recorded by the Qwen adapters, drained by the engine into the store (a ``UsageSource``)."""

    def __init__(self, prices: Mapping[str, ModelPrice]) -> None:
        self._prices = dict(prices)
        self._calls: list[ModelCall] = []
        self._lock = threading.Lock()

    def record(self, purpose: CallPurpose, model: str, *, latency_ms: float, attempts: int = 1,
               outcome: CallOutcome = CallOutcome.OK, prompt_tokens: int = 0, completion_tokens: int = 0,
               reasoning_tokens: int = 0, thinking: bool = False) -> ModelCall:
        call = ModelCall(
            purpose=purpose, model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
            reasoning_tokens=reasoning_tokens, latency_ms=round(latency_ms, 3), attempts=attempts, outcome=outcome,
            cost_usd=estimate_cost(self._prices.get(model), prompt_tokens, completion_tokens, thinking),
        )
        with self._lock:
            self._calls.append(call)
        return call

    def drain_usage(self) -> list[ModelCall]:
        with self._lock:
            calls, self._calls = self._calls, []
        return calls

    def pending(self) -> tuple[ModelCall, ...]:
        with self._lock:
            return tuple(self._calls)
