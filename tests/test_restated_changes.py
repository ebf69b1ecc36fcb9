"""Changes said with no new value read: a taste turned sour, a thing "done" or "history", a fact held only
as a fact that a stop names, someone retired, a job or home in words the rules did not read before."""

from __future__ import annotations

import pytest
from conftest import make_engine, say
from test_heuristics import pairs

from engram_core.core.model import MemoryKind, MemoryStatus
from engram_core.core.restatements import replaced_values, restating_sentences
from engram_core.core.stopping import ended_values, stopping_sentences
from engram_core.core.words import meaning

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("text", "stops"), [
    ("horror movies just stress me out these days, I watch comedies instead", True),
    ("Sushi grosses me out now.", True),
    ("Running bores me now, so I swim.", True),
    ("Keto's done, back to normal eating but less sugar", True),
    ("My morning runs are history since the knee surgery", True),
    ("thai food is off the menu for me now", True),
    ("I don't bother with the cinema these days, streaming is easier", True),
    ("My cousin dropped out of architecture, she's doing a plumbing apprenticeship", True),
    ("I uninstalled chess, it was eating my evenings", True),
    ("My boss stresses me out lately", False),  # a person, not a taste
    ("You stress me out these days", False),  # said to someone
    ("Work stresses me out.", False),  # no when: a mood, not a change
    ("What's the funniest thing Oliver's done? Veggies are his fave!", False),  # a question without its mark
    ("It's a reminder of London's history and grace.", False),
    ("Your shift is done, go home.", False),
    ("I deleted the photo.", False),
    ("I'm in awe of your courage. Have you made any more art lately? [shares a photo]", False),  # a question inside
])
def test_what_else_says_a_thing_stopped(text, stops):
    assert bool(stopping_sentences(text)) is stops


@pytest.mark.parametrize(("text", "things"), [
    ("My cousin dropped out of architecture, she's doing a plumbing apprenticeship", [{"architectur"}]),
    ("I uninstalled chess, it was eating my evenings", [{"chess"}]),
    ("I deleted Instagram last week", [{"instagram"}]),
])
def test_the_thing_these_endings_name(text, things):
    assert [set(t) for t in ended_values(stopping_sentences(text))] == things


def test_traded_in_names_the_value_replaced():
    assert replaced_values("Traded in the Civic for a Tesla Model 3.") == (meaning("Civic"),)
    assert replaced_values("replaced the sofa with a corner couch") == (meaning("sofa"),)
    assert replaced_values("Traded in the Civic for a Tesla?") == ()


@pytest.mark.parametrize(("text", "restates"), [
    ("horror movies just stress me out these days, I watch comedies instead", True),
    ("I've switched to supporting Spurs, don't judge me", True),
    ("I'm so happy now!", False),  # "now" alone fills real chats
    ("They help me appreciate the little things in life - especially these days.", False),
    ("horror movies just stress me out these days", False),  # a stop (``stopping``), not a restatement
    ("I had tea instead of coffee.", False),  # "instead of" names the old value (``replaced_values``)
    ("We got a new sofa.", False),
    ("Do you watch comedies instead?", False),
])
def test_only_narrow_cues_restate_with_no_value_read(text, restates):
    assert bool(restating_sentences(text)) is restates


@pytest.mark.parametrize(("text", "found"), [
    ("sister got poached by HSBC last month, better pay", ("works_at", "HSBC")),
    ("I moved over to the tax team at PwC.", ("works_at", "PwC")),
    ("We packed up and went to Johannesburg, new chapter", ("lives_in", "Johannesburg")),
    ("my brother is living now in Sevilla, he moved for work", ("lives_in", "Sevilla")),
    ("I am living now in Braga since summer", ("lives_in", "Braga")),
    ("ok so the movers finally dropped the last boxes at my place in Tucson, cats are hiding", ("lives_in", "Tucson")),
    ("we bought a little cottage outside Norwich", ("lives_in", "Norwich")),
    ("Actually I have shifted to Bangalore only for good", ("lives_in", "Bangalore")),
    ("handed in my badge at the old place friday, starting at Riverside Clinic on monday",
     ("works_at", "Riverside Clinic")),
    ("Good news, they hired me in Santander bank as analyst", ("works_at", "Santander")),
    ("Since first of March I am working by Bosch in the team for electric bikes", ("works_at", "Bosch")),
    ("I am eating only vegetarian food since some weeks", ("diet", "vegetarian")),
    ("I'm on keto right now.", ("diet", "keto")),
    ("had my first burger in eight years, I'm eating meat again", ("eats", "meat")),
    ("Just a heads up, after the wedding I'm going by Jennifer Okafor on everything", ("name", "Jennifer Okafor")),
    ("gave up on the low carb thing, I missed pasta way too much, back to normal eating",
     ("diet", "normal eating")),
    ("my brother just closed on a house in Nashville, he's already complaining", ("lives_in", "Nashville")),
    ("I started as art director at a small studio called Fold, it's only eight people", ("works_at", "Fold")),
    ("ok so the new apartment in Oakland has a real kitchen", ("lives_in", "Oakland")),
    ("Since I don relocate to Abuja for this new posting, life is calmer small.", ("lives_in", "Abuja")),
    ("Hi!! So I am in Lisbon since last month, my company make my transfer", ("lives_in", "Lisbon")),
    ("alhamdulillah I got offer from Aramco and I accept it", ("works_at", "Aramco")),
    ("handed in my laptop on friday, monday I start at Stripe, nervous lol", ("works_at", "Stripe")),
    ("going fully vegan starting this week", ("diet", "vegan")),
    ("I try to be flexitarian, meat only two times in the week", ("diet", "flexitarian")),
    ("wait I typed that wrong before, my birthday's the 21st of March, not the twelfth",
     ("birthday", "the 21st of March")),  # the denied value closing the clause does not negate the rest
])
def test_a_job_or_home_in_these_words_is_read(text, found):
    assert found in pairs(text)


@pytest.mark.parametrize("text", [
    "we packed up and went to the beach for the day",  # an outing
    "vegan didn't work for me",  # the diet is what the sentence is about, not the speaker's
    "keto was too hard so I quit",
    "we stayed at a cottage outside Norwich for the weekend, the keys were under the mat",  # a stay
    "The show is starting at Wembley on Friday",  # not the speaker starting work
    "I'm on vegan recipes lately",
    "I'm going by train tomorrow",  # no name
    "I'm going by Rome on the way",
    "the new place in Soho is great",  # a restaurant, not a home
    "we settled into our seats at the Rome opera",
    "my company relocated to Leeds",  # the company moved, not the speaker
    "I'm settling into the new role nicely",
])
def test_these_make_no_job_home_or_diet(text):
    assert not {p for p, _ in pairs(text)} & {"works_at", "lives_in", "diet"}


@pytest.mark.parametrize(("text", "liked"), [
    ("I've been a teacher for nine years and I love my class, but lately I've been burning out.", None),
    ("I love my job but I'm tired", None),  # affection for one's own lot, not a taste
    ("I love my dog Max", None),  # the dog is named; no "likes: my dog Max" beside it
    ("I love my morning runs", "my morning runs"),  # a habit is a taste
    ("I really like my new bike", "my new bike"),
])
def test_loving_ones_own_people_is_no_taste(text, liked):
    assert {o for p, o in pairs(text) if p == "likes"} == ({liked} if liked else set())


def test_a_diet_said_alone_is_still_read():
    assert ("diet", "vegan") in pairs("vegan now, since January")


def test_a_correction_that_names_the_old_value_is_still_one():
    assert {p for p, _ in pairs("The meeting is Tuesday, not Monday")} == {"corrects"}



def _current(engine) -> set[tuple[str, str, str]]:
    return {(b.subject, b.predicate, b.object) for b in engine.store.current_beliefs()}


@pytest.mark.parametrize(("old", "new", "ended"), [
    ("I work at Shell as an engineer.", "I retired last month, finally free", ("user", "works_at", "Shell")),
    ("My mum works at Tesco.", "Mum retired in March.", ("mother", "works_at", "Tesco")),
])
def test_retiring_ends_the_employer(clock, old, new, ended):
    engine = make_engine(clock)
    say(engine, clock, old)
    assert ended in _current(engine)
    say(engine, clock, new)
    assert ended not in _current(engine)
    assert ended in {(b.subject, b.predicate, b.object) for b in engine.store.all_beliefs()}  # history kept
    engine.close()


@pytest.mark.parametrize(("old", "new", "ended"), [
    ("I eat everything, pork included.", "Since I converted to Islam last month I eat only halal food",
     ("user", "eats", "pork included")),  # a diet taken up ends eating what it leaves out
    ("I'm dairy free because of lactose stuff.", "so cheese is back, I eat cheese again",
     ("user", "diet", "dairy free")),
    ("I'm on keto right now.", "back to normal eating, I missed pasta", ("user", "diet", "keto")),
])
def test_a_diet_taken_up_or_left(clock, old, new, ended):
    engine = make_engine(clock)
    say(engine, clock, old)
    assert ended in _current(engine)
    say(engine, clock, new)
    assert ended not in _current(engine)
    engine.close()


def test_a_new_title_ends_no_employer(clock):
    engine = make_engine(clock)
    say(engine, clock, "I work at Shell.", "I'm a senior engineer now.")
    assert ("user", "works_at", "Shell") in _current(engine)
    engine.close()



def _statuses(engine) -> dict[str, MemoryStatus]:
    return {m.text: m.status for m in engine.store.memories() if m.kind is MemoryKind.EPISODE}


@pytest.mark.parametrize(("old", "new", "belief", "query"), [
    ("I love sushi.", "Sushi grosses me out now.", ("user", "likes", "sushi"), "What food do I like?"),
    ("I love horror movies.", "horror movies just stress me out these days, I watch comedies instead",
     ("user", "likes", "horror movies"), "What movies do I like?"),
])
def test_with_minilm_a_stop_ends_a_fact_and_the_words_it_came_from(clock, minilm, old, new, belief, query):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, old)
    assert belief in _current(engine)
    say(engine, clock, new)
    assert belief not in _current(engine)
    assert _statuses(engine)[old] is MemoryStatus.SUPERSEDED
    block = engine.recall(query, 256, reinforce=False).block
    assert old not in block and new in block
    engine.close()


def test_with_minilm_a_stop_ends_only_the_speakers_own_fact(clock, minilm):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, "My sister loves sushi.", "Sushi grosses me out now.")
    assert any(s == "sister" and o == "sushi" for s, _, o in _current(engine))
    engine.close()


def test_with_minilm_a_restatement_that_keeps_the_taste_ends_no_belief(clock, minilm):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, "I love horror movies.", "I watch horror movies with my kids these days.")
    assert ("user", "likes", "horror movies") in _current(engine)
    engine.close()


def test_with_minilm_a_move_read_without_a_change_word_retires_the_old_home(clock, minilm):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, "We have a house in Brighton.",
         "we bought a little cottage outside Norwich, a smaller house but what a garden")
    assert ("user", "lives_in", "Norwich") in _current(engine)
    block = engine.recall("Where is our home?", 256, reinforce=False).block
    assert "Brighton" not in block
    engine.close()


def test_with_minilm_eating_meat_again_ends_the_diet(clock, minilm):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, "I'm vegan.", "I eat meat again, vegan didn't work for me")
    assert not any(p == "diet" for _, p, _ in _current(engine))
    engine.close()
