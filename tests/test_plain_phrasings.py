"""Ordinary ways of saying a fact or its change, read by the offline bookkeeper: words that only announce
("I want to inform you ..."), a request that ends in "?", a role's employer said without the article, an older
home said as "I'm in Austin", and the precision that keeps another person's news and the past out of the
speaker's current beliefs."""

from __future__ import annotations

import pytest
from conftest import told

from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.core.chattext import normalise_chat
from engram_core.core.slots import slots_changed, slots_named
from engram_core.core.stopping import clause_stops

pytestmark = pytest.mark.both_stores


def _read(text: str) -> set[tuple[str, str, str]]:
    return {(d.subject, d.predicate, d.object) for d in extract_facts(text)}


# -- the pure rules ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "read"), [
    ("I want to inform you I have relocated to Mombasa, life near the sea is calm.",
     "I have relocated to Mombasa, life near the sea is calm."),
    ("Been meaning to tell you, I left the corporate world.", "I left the corporate world."),
    ("hey, small thing, I've been going by Sasha lately, could you use that from now on?",
     "hey, small thing, I've been going by Sasha lately, could you use that from now on."),
    ("I want to move to Oslo.", "I want to move to Oslo."),  # a wish stays a wish
    ("Where do I live?", "Where do I live?"),  # a question stays a question
])
def test_words_that_only_announce_or_request(text, read):
    assert normalise_chat(text) == read


@pytest.mark.parametrize(("text", "facts"), [
    ("I am journalist for Le Monde, I write about economy.",
     {("user", "job_title", "journalist"), ("user", "works_at", "Le Monde")}),
    ("I'm a reporter for Reuters.", {("user", "job_title", "reporter"), ("user", "works_at", "Reuters")}),
    ("I drive for Uber most nights.", {("user", "works_at", "Uber")}),
    ("got hired as sous chef at Dishoom, pinch me",
     {("user", "job_title", "sous chef"), ("user", "works_at", "Dishoom")}),
    ("we are vegetarians now", {("user", "diet", "vegetarian")}),
    ("ramen's my favourite now", {("user", "prefers_food", "ramen")}),
    ("I'm a nurse at Mercy hospital.", {("user", "job_title", "nurse"), ("user", "works_at", "Mercy hospital")}),
    ("I do QA at Spotify.", {("user", "works_at", "Spotify")}),
    ("I only drink water now", {("user", "prefers_drink", "water")}),
    ("I stopped the Coca-Cola, too much sugar. Now only mineral water.",
     {("user", "likes", "the Coca-Cola"), ("user", "prefers_drink", "mineral water")}),
    ("I'm all about jazz now", {("user", "likes", "jazz")}),
    ("Arjun surprised me, he's gone vegetarian.", {("arjun", "diet", "vegetarian")}),  # "he" is who surprised
    # the value alone, not what is said of it next
    ("first week at klarna done, the onboarding is endless lol", {("user", "works_at", "klarna")}),
    ("first day at Oakwood Academy went great", {("user", "works_at", "Oakwood Academy")}),
    ("dont laugh but im all about jazz now, the heavy stuff doesnt do it for me anymore", {("user", "likes", "jazz")}),
    ("Since last week my address is in Florianópolis, finally the island life for me haha",
     {("user", "lives_in", "Florianópolis")}),
    ("Bought salmon today, my doctor talked me into going pescatarian.", {("user", "diet", "pescatarian")}),
])
def test_a_fact_in_plain_words(text, facts):
    assert _read(text) == facts


@pytest.mark.parametrize("text", [
    "this month im on a secondment at Rolls-Royce in Derby",  # a stay, not a trade at an employer
    "I follow the intermittent fasting, I eat only between 12 and 8.",  # when one eats, not what
    "we're vegan recipes fans",
    "I'm grateful for Sarah.",
    "I do yoga at Equinox.",  # a pastime somewhere, no job
])
def test_no_fact_of_those_words(text):
    assert not {f for f in _read(text) if f[1] in {"works_at", "eats", "diet", "job_title"}}


@pytest.mark.parametrize("text", [
    "In university I was in the chess club, but I stopped playing long time ago.",  # when, not what stopped
    "My friend Yusuf told me he became a father last week, a baby girl!",  # a father is no job
    "I became a mother last year.",
    "I'm in Paris now for a conference.",  # a stay
    "im in Lisbon now for work, back friday",
])
def test_no_fact_at_all(text):
    assert _read(text) == set()


def test_how_often_one_plays_is_no_pastime():
    assert _read("My favourite sport to play is tennis, I play two times each week.") == {
        ("user", "prefers_sport_to_play", "tennis")}


def test_a_favourite_is_new_only_when_said_so():
    plain, = extract_facts("Blue's my fave, it makes me feel relaxed.")
    new, = extract_facts("ramen's my favourite now")
    assert not plain.revision and new.revision


@pytest.mark.parametrize(("clause", "stops"), [
    ("the fantasy is not for me anymore", True),
    ("so the chai days are finish", True),
    ("the series is not for me", True),
    ("your shift is finished", False),  # someone else's
])
def test_a_taste_ended_in_other_words(clause, stops):
    assert clause_stops(clause) is stops


@pytest.mark.parametrize(("text", "slots"), [
    ("im in austin tx btw", {"home"}),
    ("we're in stockholm, södermalm to be exact", {"home"}),
    ("I am software developer in Infosys since 2019.", {"employer"}),
    ("I eat pretty much everything, no restrictions at all.", {"diet"}),
    ("I'm living in Denver with my partner.", {"home"}),
    ("I'm in love with this song", set()),
    ("I'm in the kitchen", set()),
])
def test_what_an_older_message_speaks_of(text, slots):
    assert slots_named(text) == frozenset(slots)


def test_an_older_home_is_named_not_changed():
    assert slots_changed("I'm in Paris now, the flight was late") == frozenset()  # may be a trip


# -- on the write path -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("old", "new", "gone", "held"), [
    ("My home is in Nairobi, in Westlands area.",
     "I want to inform you I have relocated to Mombasa, life near the sea is more calm for me and my kids.",
     "user lives_in: Nairobi", "user lives_in: Mombasa"),
    ("Please call me Alex.", "hey, small thing, I've been going by Sasha lately, could you use that from now on?",
     "user name: Alex", "user name: Sasha"),
    ("My favourite food is sushi.", "honestly can't face raw fish anymore, ramen's my favourite now",
     "user prefers_food: sushi", "user prefers_food: ramen"),
    ("I like very much to read fantasy books.", "Now I read only crime novels, the fantasy is not for me anymore.",
     "user likes: to read fantasy books", None),
    ("I'm a line cook at Nando's.", "got hired as sous chef at Dishoom, pinch me", "user works_at: Nando's",
     "user works_at: Dishoom"),
])
def test_with_minilm_a_change_in_plain_words(clock, minilm, old, new, gone, held):
    with told(clock, minilm, old, new) as (_, beliefs):
        assert beliefs[gone] is False
        assert held is None or beliefs[held] is True


@pytest.mark.parametrize(("old", "new", "query", "hidden"), [
    ("im in austin tx btw", "ok so i live in denver now, drove up last week w all my stuff", "Where do I live?",
     "austin"),
    ("I am software developer in Infosys since 2019.",
     "Good news, I joined Zoho as senior developer, first day was yesterday.", "Where do I work?", "Infosys"),
    ("I eat pretty much everything, no restrictions at all.",
     "my doctor put me on a gluten-free diet after the celiac diagnosis", "What do I eat?", "everything"),
])
def test_with_minilm_an_older_word_of_the_slot_leaves_answers_about_now(clock, minilm, old, new, query, hidden):
    with told(clock, minilm, old, new) as (engine, _):
        assert hidden not in engine.recall(query, 256, reinforce=False).block
        assert hidden in engine.recall(query.replace("do I", "did I") + " before", 256, reinforce=False).block


@pytest.mark.parametrize(("old", "new", "held"), [
    ("My partner is a chef.", "My partner's sister just became a lawyer, we're throwing her a party on Saturday",
     "partner job_title: chef"),  # the sister's news
    ("I live in Stockholm.", "Last year we lived six months in Gothenburg for my wife's project, now we are happy "
     "to be home.", "user lives_in: Stockholm"),  # the past
    ("We're in Phoenix.", "hubby and i keep talking about moving to Portland once the kids finish school, like 6 "
     "yrs from now, who knows", None),  # a plan talked about
    ("I work at Airbus in Toulouse.", "this month im on a secondment at Rolls-Royce in Derby, back in France in June",
     "user works_at: Airbus"),  # a stay
    ("I live in Boston.", "I'm in Paris now for a conference.", "user lives_in: Boston"),  # a stay
])
def test_with_minilm_what_changes_nothing(clock, minilm, old, new, held):
    with told(clock, minilm, old, new) as (engine, beliefs):
        assert held is None or beliefs[held] is True
        assert all(current for fact, current in beliefs.items() if fact.startswith(("user", "partner")))
        assert not engine.store.possibly_stale()
