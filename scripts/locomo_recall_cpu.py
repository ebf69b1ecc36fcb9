"""Recall CPU time of B3 Engram on one LoCoMo conversation's store (docs/benchmarks.md, section 4).

    .venv/bin/python scripts/locomo_recall_cpu.py ../shared/data/locomo-dev.json

The conversation's turns go in as in ``engram bench retrieval``; each question is asked once to fill the
caches, then asked again and timed at 1,024 tokens (wall and process CPU time), its vector from the cache.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from engram_bench import conversations as data
from engram_bench.baselines import ENGRAM, EngramSystem
from engram_bench.common import bench_embedder, current_embedder_name
from engram_bench.retrieval import conversation_turns
from engram_core.adapters.tokens import default_token_counter
from engram_core.core.config import EngineConfig


def main(path: str, budget: int = 1024) -> None:
    conv = data.load_dataset(Path(path)).conversations[0]
    turns = conversation_turns(conv)
    embedder = bench_embedder(current_embedder_name())
    embedder.warm([t.line_text for t in turns] + [q.text for q in conv.questions])
    system = EngramSystem(ENGRAM, embedder, default_token_counter(), EngineConfig(), turns[0].at, False)
    for turn in turns:
        system.add(turn)
    asked = [(q.text, data.question_time(conv, q)) for q in conv.questions if q.evidence]
    wall, cpu = [], []
    with threadpool_limits(1):
        for text, at in asked:
            system.recall(text, budget, at)
        for text, at in asked:
            started, used = time.perf_counter(), time.process_time()
            system.recall(text, budget, at)
            wall.append((time.perf_counter() - started) * 1000.0)
            cpu.append((time.process_time() - used) * 1000.0)
    p = np.percentile
    print(f"{conv.id}: {len(turns)} turns, {len(asked)} recalls at {budget} tokens: wall p50 {p(wall, 50):.1f} "
          f"p95 {p(wall, 95):.1f} ms, CPU p50 {p(cpu, 50):.1f} p95 {p(cpu, 95):.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1])
