"""The time a question names, and recall preferring what was recorded then."""

from __future__ import annotations

from datetime import datetime

import pytest

from engram_core.core.config import EngineConfig
from engram_core.core.timeframes import named_window

from conftest import make_engine
from fakes import ScriptedLLM, assessment

NOW = datetime(2023, 11, 1)


@pytest.mark.parametrize(("query", "start", "end"), [
    ("What painting did Melanie show on October 13, 2023?", datetime(2023, 10, 13), datetime(2023, 10, 14)),
    ("What did Gina find on 1 February, 2023?", datetime(2023, 2, 1), datetime(2023, 2, 2)),
    ("What did Maria donate in December 2022?", datetime(2022, 12, 1), datetime(2023, 1, 1)),
    ("How often did she go to the beach in 2023?", datetime(2023, 1, 1), datetime(2024, 1, 1)),
    ("When did Melanie go camping in June?", datetime(2023, 6, 1), datetime(2023, 7, 1)),
    ("What happened in December?", datetime(2022, 12, 1), datetime(2023, 1, 1)),  # the latest December
])
def test_a_named_time_is_a_window(query: str, start: datetime, end: datetime) -> None:
    assert named_window(query, NOW) == (start, end)


@pytest.mark.parametrize("query", ["May I ask what you did?", "What did he do last week?", "On February 30, 2023?",
                                   "What is my job?"])
def test_no_time_named_no_window(query: str) -> None:
    assert named_window(query, NOW) is None


def test_recall_prefers_what_was_recorded_in_the_named_month(clock) -> None:
    config = EngineConfig(weights=EngineConfig().weights.model_copy(update={"timeframe": 0.2}))
    engine = make_engine(clock, ScriptedLLM(assess=lambda t: assessment(0.6)), config=config)
    engine.observe("We went camping by the lake with the kids, lovely trip", occurred_at=datetime(2025, 6, 10))
    engine.observe("We went camping in the mountains", occurred_at=datetime(2025, 8, 3))
    dated = engine.recall("Where did we go camping in June?", 1000, reinforce=False)
    assert "mountains" not in dated.items[0].text
    undated = engine.recall("Where did we go camping in the mountains?", 1000, reinforce=False)
    assert "mountains" in undated.items[0].text
