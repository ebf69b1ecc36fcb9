"""Plan, then apply: no model call while the write transaction is open; a stale plan is made again."""

from __future__ import annotations

import itertools
import sqlite3
from datetime import timedelta

import pytest
from conftest import make_engine
from fakes import ScriptedLLM, assessment, fact

from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.core.errors import BusyError
from engram_core.core.model import EventKind

pytestmark = pytest.mark.both_stores  # the use cases here need no SQL

WORKS_AT_ACME = fact("user", "works_at", "Acme", "The user works at Acme.")
# Another predicate and many-valued, so neither the exact nor the semantic rule decides: the model is asked.
EMPLOYED_BY_GLOBEX = fact("user", "employer_of_record", "Globex", "The user works at Globex now.", cardinality="many")


def _supersede_all(new_fact, candidates):
    import json

    return json.dumps({"verdicts": [{"id": b.id, "verdict": "supersede"} for b in candidates]})


def _script(extra: dict | None = None) -> dict[str, str]:
    return {"I work at Acme.": assessment(0.8, WORKS_AT_ACME),
            "I'm at Globex now.": assessment(0.8, EMPLOYED_BY_GLOBEX), **(extra or {})}


def test_no_model_call_happens_inside_the_write_transaction(clock):
    holder = {}

    def outside_any_transaction(method: str) -> None:
        assert not holder["engine"].store.in_transaction, f"{method} called inside the write transaction"

    llm = ScriptedLLM(assess=_script(), adjudicate=_supersede_all, on_call=outside_any_transaction)
    engine = holder["engine"] = make_engine(clock, llm=llm)
    engine.observe("I work at Acme.")
    clock.advance(timedelta(days=1))
    written = engine.observe("I'm at Globex now.")
    assert [c[0] for c in llm.calls] == ["assess", "assess", "adjudicate"]
    assert [b.object for b in engine.beliefs()] == ["Globex"]
    assert any(e.kind is EventKind.SUPERSEDED for e in written.events)
    engine.consolidate(written.message.session_id)  # the consolidation path plans first too
    engine.close()


def test_a_plan_is_made_again_when_another_writer_changed_its_beliefs(clock, tmp_path):
    path = str(tmp_path / "tenant.sqlite")
    counter = itertools.count()
    other = make_engine(clock, llm=ScriptedLLM(assess=_script({"I work at Initech.": assessment(
        0.8, fact("user", "works_at", "Initech", "The user works at Initech."))})), path=path,
        new_id=lambda prefix: f"{prefix}_other_{next(counter)}")
    other.observe("I work at Acme.")
    raced = []

    def adjudicate(new_fact, candidates):
        if not raced:  # while this engine decides, the other one commits a change to the same subject
            raced.append(True)
            other.observe("I work at Initech.")
        return _supersede_all(new_fact, candidates)

    llm = ScriptedLLM(assess=_script(), adjudicate=adjudicate)
    engine = make_engine(clock, llm=llm, path=path)
    clock.advance(timedelta(days=1))
    engine.observe("I'm at Globex now.")
    judged = [c[1] for c in llm.calls if c[0] == "adjudicate"]
    assert len(judged) == 2  # the first plan judged Acme; Initech replaced it meanwhile, so it was planned again
    assert [b.object for b in judged[0][1]] == ["Acme"] and [b.object for b in judged[1][1]] == ["Initech"]
    history = {b.object: b for b in engine.history("user")}
    assert {b.object for b in engine.beliefs()} == {"Globex"}
    assert history["Initech"].superseded_by == history["Globex"].id
    assert history["Acme"].superseded_by == history["Initech"].id  # nothing from the outdated plan was applied
    engine.close()
    other.close()


def test_a_write_gives_up_with_a_clear_error_when_the_beliefs_never_settle(clock, tmp_path):
    path = str(tmp_path / "tenant.sqlite")
    counter = itertools.count()
    other = make_engine(clock, path=path, llm=OfflineLLM(), new_id=lambda p: f"{p}_other_{next(counter)}")
    other.observe("I work at Acme.")
    cities = iter(["Porto", "Braga", "Faro", "Lagos", "Evora"])

    def adjudicate(new_fact, candidates):
        other.observe(f"I work at {next(cities)} Labs.")  # a competing writer wins every race
        return _supersede_all(new_fact, candidates)

    engine = make_engine(clock, llm=ScriptedLLM(assess=_script(), adjudicate=adjudicate), path=path)
    with pytest.raises(BusyError, match="nothing was written"):
        engine.observe("I'm at Globex now.")
    assert not any(b.object == "Globex" for b in engine.store.all_beliefs())
    assert not any(m.text == "I'm at Globex now." for m in engine.store.messages())
    engine.close()
    other.close()


class WriteLockProbe:
    """An LLM port that, at every call, proves no write transaction is open on the tenant's database:
    the engine's own connection is not in a transaction, and a second connection takes the write lock
    at once. Answers come from the wrapped port."""

    def __init__(self, path: str, inner) -> None:
        self.inner = inner
        self.model_id = self.inner.model_id
        self.path = path
        self.engine = None
        self.probed: list[str] = []

    def _probe(self, method: str) -> None:
        assert not self.engine.store.in_transaction, f"{method} called inside the write transaction"
        other = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # fails with "database is locked" while a writer holds it
            other.execute("ROLLBACK")
        finally:
            other.close()
        self.probed.append(method)

    def assess(self, text, speaker, occurred_at, earlier=""):
        self._probe("assess")
        return self.inner.assess(text, speaker, occurred_at, earlier)

    def adjudicate(self, new_fact, candidates):
        self._probe("adjudicate")
        return self.inner.adjudicate(new_fact, candidates)

    def summarise(self, texts):
        self._probe("summarise")
        return self.inner.summarise(texts)

    def propose_dream(self, memories):
        self._probe("dream")
        return self.inner.propose_dream(memories)

    def reply(self, message, memory_block):
        return self.inner.reply(message, memory_block)



def test_no_bookkeeper_call_holds_the_tenants_write_lock(clock, tmp_path):
    path = str(tmp_path / "tenant.sqlite")
    llm = WriteLockProbe(path, ScriptedLLM(assess=_script(), adjudicate=_supersede_all))
    engine = llm.engine = make_engine(clock, llm=llm, path=path)
    for text in ("I work at Acme.", "I'm at Globex now."):
        clock.advance(timedelta(days=1))
        engine.observe(text, session_id="s1")
    engine.consolidate("s1")
    engine.consolidate("s1")
    assert [b.object for b in engine.beliefs()] == ["Globex"]
    assert {"assess", "adjudicate"} <= set(llm.probed)
    engine.close()


def test_a_long_message_is_assessed_with_the_write_lock_free(clock, tmp_path):
    path = str(tmp_path / "tenant.sqlite")
    llm = WriteLockProbe(path, OfflineLLM())
    engine = llm.engine = make_engine(clock, llm=llm, path=path)
    engine.observe("I live in Lisbon.")
    clock.advance(timedelta(days=1))
    report = "I moved to Madrid last week. " + "The quarterly numbers look fine overall. " * 1200
    written = engine.observe(report)
    assert len([m for m in engine.memories() if m.text.startswith("(part ")]) > 1
    assert [b.object for b in engine.beliefs()] == ["Madrid"]
    assert any(e.kind is EventKind.SUPERSEDED for e in written.events)
    assert llm.probed.count("assess") > 2
