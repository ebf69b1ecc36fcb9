"""A message that states a change retires the older episodes of the same person that it names (write path)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import START, make_engine

from engram_core.core.config import EngineConfig
from engram_core.core.words import meaning
from engram_core.core.model import EventKind, Memory, MemoryKind, MemoryStatus
from engram_core.core.stopping import stopping_sentences
from engram_core.core.restatements import (
    CLOSE_SIMILARITY, people_of, speaker_of, changing_sentences, new_values, replaced_values, retired_by,
    same_people, updating_sentences,
)

pytestmark = pytest.mark.both_stores

# The hashing embedder's cosines run lower than MiniLM's: the threshold is set for it here.
LOOSE = EngineConfig(retire_similarity=0.1)


def _say(engine, clock, *messages: str, speaker: str | None = None) -> None:
    for text in messages:
        clock.advance(timedelta(days=1))
        engine.observe(text, speaker=speaker)


def _episodes(engine) -> dict[str, MemoryStatus]:
    return {m.text: m.status for m in engine.store.memories() if m.kind is MemoryKind.EPISODE}


def _memory(mid: str, text: str, hours: float = 0.0) -> Memory:
    at = START + timedelta(hours=hours)
    return Memory(id=mid, kind=MemoryKind.EPISODE, text=text, importance=0.5, stability_hours=100, created_at=at,
                  last_accessed_at=at)


@pytest.mark.parametrize(("text", "stops"), [
    ("Stopped the intermittent fasting, it made me cranky.", True),  # the "I" left out
    ("I'm no longer a morning person, night shifts changed that.", True),
    ("I don't eat meat anymore.", True),
    ("New budget: I make coffee at home, no more caramel macchiatos.", True),
    ("Jon: I quit my job at the bank.", True),
    ("Don't quit, remember, failures lead you closer to success!", False),  # said to someone else
    ("Gina: Thanks! I won't quit, even when it's hard.", False),  # a resolve, not a change
    ("Did you stop running?", False),
    ("anyone else would quit and you're not going to", False),
    ("Not gluten-free anymore, the test was wrong.", True),  # "not" opening the clause: the speaker's
    ("The juice cleanse is over, thank god.", True),
    ("Ditched the standing desk, my back hated it.", True),
    ("I dropped off the kids at school.", False),  # "dropped off" is an errand
    ("cant do spicy anymore, my stomach gave up on me", True),  # "can't ... anymore", the "I" left out
    ("ok bubble tea is dead to me, way too sweet", True),
    ("clubbing isnt for me anymore, prefer a quiet pub tbh", True),
    ("I've gone right off fantasy this year.", True),
    ("The milk has gone off.", False),  # nothing of the speaker's
    ("Is it dead to you now?", False),
])
def test_what_says_that_something_of_the_speakers_stopped(text, stops):
    assert bool(stopping_sentences(text)) is stops


@pytest.mark.parametrize(("text", "values"), [
    ("Wait, I mean Thursday, not Tuesday.", [{"tuesday"}]),
    ("Left Accenture for Capgemini, better team.", [{"accentur"}]),
    ("I've moved from the NHS to Bupa, the private side pays better.", [{"nhs"}]),
    ("Northgate Primary became Northgate Academy over the summer.", [{"northgat", "primary"}]),
    ("oops 94110 not 94107", [{"94107"}]),
    ("not bad at all, thanks", []),  # after "not", only a value-like word names a value
    ("I'm not sure yet", []),
    ("Is it Thursday, not Tuesday?", []),  # a question replaces nothing
])
def test_the_values_a_message_says_it_replaces(text, values):
    assert [set(v) for v in replaced_values(text)] == values


@pytest.mark.parametrize(("text", "update"), [
    ("Our book club meets on Fridays now.", True),  # a value said to hold now, at the end of its clause
    ("Sorry, Mr. Okoro, not Okonkwo.", True),  # "Mr." ends no sentence
    ("We renamed the hamster Noodle last night.", True),
    ("My last day at Ocado was Friday.", True),
    ("I left Brighton in the spring, now I'm in Hove.", True),
    ("Sorry to hear about the flood, Jon.", False),  # sympathy, not a correction
    ("I'm so sorry, that sounds awful.", False),
    ("I also go climbing now.", False),  # a value added beside the old one
    ("Are you at Globex now?", False),  # a question updates nothing
])
def test_what_says_a_value_was_updated(text, update):
    assert bool(updating_sentences(text)) is update


def test_the_values_an_update_states_are_its_names_and_numbers():
    assert set(new_values(updating_sentences("ugh, typo: the code ends in 3390"))) == {"3390"}
    assert set(new_values(updating_sentences("The band is called Low Tide now."))) == meaning("Low Tide")


def test_a_clause_before_a_colon_is_not_a_speaker():
    assert speaker_of("The school wrote to me: the trip is on the 9th.") == "user"
    assert speaker_of("Caroline: the trip is on the 9th.") == "caroline"


def test_an_update_retires_the_older_episode_that_names_its_slot_with_another_value():
    older = [(_memory("old", "Our book club meets on Tuesdays."), 0.6),
             (_memory("same", "The book club meets on Fridays, I think."), 0.6),  # already says the new value
             (_memory("sister", "My sister's book club meets on Mondays."), 0.6)]  # someone else's
    said = "Our book club meets on Fridays now."
    update = updating_sentences(said)
    assert retired_by(said, update, older, 0.4, fresh=new_values(update)) == ["old"]


def test_someone_introduced_by_name_is_the_same_person_when_named_again():
    older = [(_memory("cousin", "My cousin Priya studies law in Leeds."), 0.6)]
    said = "Priya moved to Bristol for her training contract."
    update = updating_sentences(said)
    assert retired_by(said, update, older, 0.4, fresh=new_values(update)) == ["cousin"]
    other = "Moved to Bristol for my training contract."  # the user, not the cousin
    assert retired_by(other, updating_sentences(other), older, 0.4, fresh=new_values(updating_sentences(other))) == []


def test_only_the_sentences_that_state_a_change_are_read_for_what_they_name():
    text = "Went hiking on a great trail today. I moved to Porto now!"
    assert changing_sentences(text) == "I moved to Porto now"  # sentences joined without their stops


def test_an_older_episode_is_retired_only_when_named_close_and_of_the_same_person():
    older = [(_memory("fast", "I'm doing intermittent fasting."), 0.6),
             (_memory("far", "I'm doing intermittent fasting."), 0.1),  # named, but not close in meaning
             (_memory("other", "Gina: I'm doing intermittent fasting."), 0.6),  # someone else said it
             (_memory("sister", "My sister is doing intermittent fasting."), 0.6),  # about someone else
             (_memory("unnamed", "I had eggs for breakfast."), 0.6)]
    said = "Stopped the intermittent fasting, it made me cranky."
    assert retired_by(said, said, older, 0.4) == ["fast"]


def test_a_speakers_name_does_not_name_an_older_turn():
    older = [(_memory("turn", "Gina: Jon, I love dancing so much, here's a photo."), 0.7)]
    said = "Gina: Jon, I stopped the salsa classes."
    assert retired_by(said, stopping_sentences(said), older, 0.4) == []


def test_at_most_the_closest_few_are_retired():
    older = [(_memory(f"m{i}", "I'm doing intermittent fasting again."), 0.5 + i / 100) for i in range(5)]
    said = "Stopped the intermittent fasting."
    assert retired_by(said, said, older, 0.4) == ["m4", "m3"]


def test_a_stopped_habit_leaves_recall_and_stays_in_history(clock):
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "I'm doing intermittent fasting.", "My favourite band is Queen.",
         "Stopped the intermittent fasting, it made me cranky.")
    episodes = _episodes(engine)
    assert episodes["I'm doing intermittent fasting."] is MemoryStatus.SUPERSEDED
    assert episodes["My favourite band is Queen."] is MemoryStatus.ACTIVE
    assert episodes["Stopped the intermittent fasting, it made me cranky."] is MemoryStatus.ACTIVE
    block = engine.recall("Am I still fasting?", 256).block
    assert "Stopped the intermittent fasting" in block and "I'm doing intermittent fasting." not in block
    events = [e for e in engine.store.events() if e.kind is EventKind.SUPERSEDED]
    assert [e.detail_dict()["reason"] for e in events] == ["a newer message states a change to it"]
    engine.close()


def test_a_correction_that_names_the_old_value_retires_the_message_that_gave_it(clock):
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "My flight to Athens is on Tuesday.", "Wait, I mean Thursday, not Tuesday.")
    assert _episodes(engine)["My flight to Athens is on Tuesday."] is MemoryStatus.SUPERSEDED
    engine.close()


def test_a_rename_retires_the_episode_with_the_old_name(clock):
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "Our rabbit is called Clover.", "We renamed the rabbit Mochi, Clover never fit him.")
    assert _episodes(engine)["Our rabbit is called Clover."] is MemoryStatus.SUPERSEDED
    engine.close()


def test_sympathy_retires_nothing(clock):
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "Maria: How did the shelter fundraiser go, John?",
         "Maria: Sorry to hear the shelter fundraiser went badly, John. Is Max okay now?")
    assert set(_episodes(engine).values()) == {MemoryStatus.ACTIVE}
    engine.close()


def test_encouragement_between_two_people_retires_nothing(clock):
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "Jon, I know you can do it, don't quit the dance studio!", speaker="Gina")
    _say(engine, clock, "Way to go, Jon! Don't quit the dance studio, it is your dream.", speaker="Gina")
    assert set(_episodes(engine).values()) == {MemoryStatus.ACTIVE}
    engine.close()


def test_above_one_the_write_path_retires_nothing(clock):
    engine = make_engine(clock, config=EngineConfig(retire_similarity=1.01))
    _say(engine, clock, "I'm doing intermittent fasting.", "Stopped the intermittent fasting, it made me cranky.")
    assert set(_episodes(engine).values()) == {MemoryStatus.ACTIVE}
    engine.close()


def test_by_default_with_minilm_the_old_habit_is_retired_when_written(clock):
    from engram_core.adapters.minilm import MiniLMEmbedder

    engine = make_engine(clock, embedder=MiniLMEmbedder())  # the shipped threshold, the shipped embedder
    _say(engine, clock, "I'm a morning person.", "I'm no longer a morning person, night shifts changed that.")
    block = engine.recall("Am I a morning person?", 256, reinforce=False).block
    assert "no longer" in block and block.count("morning person") == 1
    assert _episodes(engine)["I'm a morning person."] is MemoryStatus.SUPERSEDED
    engine.close()


def test_one_shared_word_names_an_older_episode_only_when_very_close_in_meaning():
    said = "Whole30's over, eating normally again."
    close = [(_memory("close", "I'm doing Whole30."), CLOSE_SIMILARITY + 0.05)]
    loose = [(_memory("loose", "I'm doing Whole30."), CLOSE_SIMILARITY - 0.05)]
    assert retired_by(said, stopping_sentences(said), close, 0.4) == ["close"]
    assert retired_by(said, stopping_sentences(said), loose, 0.4) == []  # two words needed at this distance


def test_a_value_named_as_replaced_retires_the_older_episode_about_other_people_too():
    older = [(_memory("party", "My mum's party is at the Red Lion, my brother does the slides."), 0.5)]
    said = "Ugh, it's the White Hart, not the Red Lion, the Red Lion was my cousin's wedding."
    assert retired_by(said, said, older, 0.4, values=replaced_values(said)) == ["party"]


def _current(engine) -> set[str]:
    return {b.object for b in engine.store.current_beliefs()}


def test_what_a_message_says_stopped_ends_the_beliefs_it_names_and_only_those(clock):
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "I love horror films and jazz.",
         "Can't watch horror films anymore since the baby, I jump at everything. Jazz is still my thing though.")
    assert _current(engine) == {"jazz"}
    ended = next(b for b in engine.store.all_beliefs() if b.object == "horror films")
    assert ended.valid_to is not None and ended.superseded_by is None  # history, not erased
    block = engine.recall("What films do I like?", 256, reinforce=False).block
    assert "loves horror films" not in block
    engine.close()


def test_a_value_the_message_says_still_holds_is_not_ended(clock):
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "Raw vegan here.", "Not raw anymore, still vegan though.")
    assert "Raw vegan" in _current(engine)  # "vegan" still holds: no false retirement
    engine.close()


def test_a_critical_fact_is_never_ended_by_a_stop_in_passing(clock):
    """A critical episode is never retired, so the facts read from it never end on a stop in passing."""
    engine = make_engine(clock, config=LOOSE)
    _say(engine, clock, "I'm allergic to peanuts and I love peanut-free brownies.",
         "Stopped the peanuts brownie thing, too much sugar.")
    assert "peanuts" in _current(engine)
    engine.close()


@pytest.mark.parametrize(("older", "newer", "same"), [
    ("My mum works as a nurse.", "Mum retired at last, no more night shifts for her.", True),
    ("my gran lives in a care home in derby", "gran moved in with us last week", True),
    ("My mother loves gardening.", "Mum gave up the allotment.", True),
    ("My sister lives in Rome.", "Dad moved to Rome.", False),
])
def test_a_relation_opening_a_sentence_is_the_speakers_own(older, newer, same):
    assert same_people(people_of(older), people_of(newer)) is same
