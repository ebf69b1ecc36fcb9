"""The offline heuristic "LLM": extraction, importance, adjudication, gists, dreams, replies."""

from __future__ import annotations

import ast
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram_core.adapters.offline import heuristics, judge
from engram_core.adapters.offline.llm import OfflineLLM
from engram_core.adapters.offline.adjudicate import adjudicate
from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.adapters.offline.judge import offline_reply, propose_dream, score_importance, summarise
from engram_core.core.model import Belief, Cardinality, FactDraft, MemoryKind
from engram_core.core.ports import LLM
from engram_core.core.verdicts import parse_assessment, parse_dream, parse_gist, parse_verdicts

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def facts_of(text: str) -> dict[str, FactDraft]:
    return {f.predicate: f for f in extract_facts(text)}


def pairs(text: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in extract_facts(text)}


def only(text: str) -> FactDraft:
    found = extract_facts(text)
    assert len(found) == 1, found
    return found[0]


def belief(predicate: str, obj: str, *, id: str = "b1", cardinality: Cardinality = Cardinality.ONE,
           subject: str = "user") -> Belief:
    return Belief(id=id, subject=subject, predicate=predicate, object=obj, statement=f"{predicate} {obj}",
                  valid_from=T0, recorded_at=T0, cardinality=cardinality)


def draft(predicate: str, obj: str, **kw) -> FactDraft:
    return FactDraft(subject="user", predicate=predicate, object=obj, statement=f"{predicate} {obj}", **kw)


# -- the end-to-end story ---------------------------------------------------------------

STORY = [
    ("Hi! I'm Sam Rivera and I work as a marine biologist.",
     {("name", "Sam Rivera"), ("job_title", "marine biologist")}),
    ("I'm allergic to shellfish, so please keep that in mind.", {("allergy", "shellfish")}),
    ("I live in Lisbon.", {("lives_in", "Lisbon")}),
    ("I'm leading a project called ECHO.", {("project_name", "ECHO")}),
    ("I hate calls before 10am.", {("dislikes", "calls before 10am")}),
    ("Big news: I moved to Ponta Delgada last week.", {("lives_in", "Ponta Delgada")}),
    ("Also, project ECHO got renamed to ABYSS.", {("project_name", "ABYSS")}),
]


@pytest.mark.parametrize(("text", "expected"), STORY)
def test_story_messages_parse_exactly(text, expected):
    assert pairs(text) == expected


def test_story_details():
    allergy = only("I'm allergic to shellfish, so please keep that in mind.")
    assert allergy.critical and allergy.importance >= 0.95 and allergy.cardinality is Cardinality.MANY
    dislike = only("I hate calls before 10am.")
    assert dislike.kind is MemoryKind.PREFERENCE
    assert dislike.statement == "The user hates calls before 10am."
    moved = only("Big news: I moved to Ponta Delgada last week.")
    assert moved.revision and moved.statement == "The user lives in Ponta Delgada."
    renamed = only("Also, project ECHO got renamed to ABYSS.")
    assert renamed.revision and renamed.statement == "The user's project is named ABYSS."
    assert not only("I live in Lisbon.").revision
    assert facts_of("Hi! I'm Sam Rivera and I work as a marine biologist.")["name"].statement == \
        "The user's name is Sam Rivera."


# -- extraction, category by category ---------------------------------------------------

EXTRACTION = [
    # names
    ("I'm Sam", "name", "Sam"),
    ("My name is Ana Sousa.", "name", "Ana Sousa"),
    ("You can call me Jo!", "name", "Jo"),
    ("I go by Alex", "name", "Alex"),
    ("my name is sam", "name", "sam"),
    ("I'm Brian, nice to meet you", "name", "Brian"),
    # where the user lives
    ("I live in Porto", "lives_in", "Porto"),
    ("I'm based in Berlin these days.", "lives_in", "Berlin"),
    ("We live in a small flat in Lisbon", "lives_in", "Lisbon"),  # the town, not the flat
    ("I live in Lisbon with my wife", "lives_in", "Lisbon"),
    ("I moved to Munich", "lives_in", "Munich"),
    ("We relocated to Faro last month", "lives_in", "Faro"),
    ("I moved from Berlin to Munich", "lives_in", "Munich"),
    ("I've lived in Paris for five years", "lives_in", "Paris"),
    ("My husband and I live in Braga", "lives_in", "Braga"),
    ("We just bought a house in Sintra", "lives_in", "Sintra"),
    ("I'm from Portugal originally", "hometown", "Portugal"),
    ("I was born in Lagos, Nigeria", "hometown", "Lagos"),
    ("I'm Portuguese", "nationality", "Portuguese"),
    # work
    ("I work at Acme", "works_at", "Acme"),
    ("I work for Google as a PM", "works_at", "Google"),
    ("I work at the local hospital as a nurse", "job_title", "nurse"),
    ("I switched jobs and now work at Netflix", "works_at", "Netflix"),
    ("My new employer is Tesla", "works_at", "Tesla"),
    ("I started a new job at Stripe", "works_at", "Stripe"),
    ("I joined Globex last month", "works_at", "Globex"),
    ("I'm a nurse", "job_title", "nurse"),
    ("I work as a data engineer", "job_title", "data engineer"),
    ("I became a teacher", "job_title", "teacher"),
    ("I got promoted to senior engineer", "job_title", "senior engineer"),
    ("I work night shifts", "work_schedule", "night shifts"),
    ("I work from home", "work_schedule", "from home"),
    # projects
    ("I'm working on a project called ECHO", "project_name", "ECHO"),
    ("My project ECHO is behind schedule", "project_name", "ECHO"),
    ("My project is called Atlas", "project_name", "Atlas"),
    ("We renamed ECHO to ABYSS", "project_name", "ABYSS"),
    ("ECHO is now called ABYSS.", "project_name", "ABYSS"),
    ("The project has been renamed to Zephyr", "project_name", "Zephyr"),
    ("I'm working on my thesis", "working_on", "my thesis"),
    # family and pets
    ("My wife Ana is lovely", "family_wife", "Ana"),
    ("I have two kids", "family_children_count", "two kids"),
    ("My sister Ana lives in Porto", "family_sister", "Ana"),
    ("I have a daughter", "family_daughter", "a daughter"),
    ("I have a dog named Rex", "pet_dog", "Rex"),
    ("My cat's name is Luna", "pet_cat", "Luna"),
    # health and food
    ("I'm allergic to peanuts", "allergy", "peanuts"),
    ("I have a severe peanut allergy", "allergy", "peanut"),
    ("I have an allergy to penicillin", "allergy", "penicillin"),
    ("I'm lactose intolerant", "intolerance", "lactose"),
    ("I have type 1 diabetes", "medical_condition", "type 1 diabetes"),
    ("I'm diabetic", "medical_condition", "diabetic"),
    ("I'm vegetarian", "diet", "vegetarian"),
    ("I'm a vegan", "diet", "vegan"),
    ("I went vegan", "diet", "vegan"),
    ("I'm on a low-carb diet", "diet", "low-carb"),
    ("I don't eat pork", "avoids_food", "pork"),
    # likes and dislikes
    ("I love hiking", "likes", "hiking"),
    ("I really enjoy board games", "likes", "board games"),
    ("I'm a big fan of jazz", "likes", "jazz"),
    ("Lately I've been really into pottery", "likes", "pottery"),
    ("I'm terrified of flying", "fears", "flying"),
    ("I hate calls before 10am", "dislikes", "calls before 10am"),
    ("I can't stand loud music", "dislikes", "loud music"),
    ("I don't like horror films", "dislikes", "horror films"),
    # preferences
    ("I prefer tea in the morning", "prefers_drink", "tea in the morning"),
    ("Actually, I prefer coffee now", "prefers_drink", "coffee"),
    ("My favourite drink is coffee", "prefers_drink", "coffee"),
    ("My favorite color is blue", "prefers_colour", "blue"),
    ("Green is my favourite colour now", "prefers_colour", "Green"),
    ("These days I mostly drink tea", "prefers_drink", "tea"),
    ("I'm more of a tea person", "prefers_drink", "tea"),
    ("I drink coffee every morning", "prefers_drink", "coffee"),
    ("I've switched to green tea", "prefers_drink", "green tea"),
    ("I prefer email over phone calls", "prefers_communication", "email over phone calls"),
    ("I prefer working late", "prefers", "working late"),
    # schedules
    ("I'm free on Tuesdays", "availability", "on Tuesdays"),
    ("I'm available after 5pm", "availability", "after 5pm"),
    ("I'm not available before 10am", "unavailable", "before 10am"),
    ("I'm busy on Mondays", "unavailable", "on Mondays"),
    # hobbies
    ("I play the guitar", "hobby", "the guitar"),
    ("My hobby is painting", "hobby", "painting"),
    ("I go hiking every weekend", "hobby", "hiking"),
    ("I practice yoga", "hobby", "yoga"),
    # skills
    ("I can speak Portuguese", "speaks_language", "Portuguese"),
    ("I'm a native Spanish speaker", "speaks_language", "Spanish"),
    ("I know Python", "skill", "Python"),
    ("I know how to sail", "skill", "how to sail"),
    ("I'm learning Japanese", "learning", "Japanese"),
    # misc personal
    ("I'm 34", "age", "34"),
    ("I just turned 35", "age", "35"),
    ("My birthday is on May 3", "birthday", "May 3"),
    ("I got married", "relationship_status", "married"),
    ("I'm training for a marathon", "goal", "training for a marathon"),
    ("I have a dentist appointment on Friday at 3pm", "scheduled", "a dentist appointment on Friday at 3pm"),
    ("I'm flying to Tokyo next Friday", "scheduled", "flying to Tokyo next Friday"),
]


@pytest.mark.parametrize(("text", "predicate", "obj"), EXTRACTION)
def test_extraction_table(text, predicate, obj):
    found = pairs(text)
    assert (predicate, obj) in found, found


@pytest.mark.parametrize(("text", "kind", "cardinality"), [
    ("I love hiking", MemoryKind.PREFERENCE, Cardinality.MANY),
    ("I hate mushrooms", MemoryKind.PREFERENCE, Cardinality.MANY),
    ("I prefer tea", MemoryKind.PREFERENCE, Cardinality.ONE),
    ("I can speak Portuguese", MemoryKind.SKILL, Cardinality.MANY),
    ("I know Python", MemoryKind.SKILL, Cardinality.MANY),
    ("I live in Lisbon", MemoryKind.FACT, Cardinality.ONE),
    ("My name is Sam", MemoryKind.FACT, Cardinality.ONE),
    ("I work at Acme", MemoryKind.FACT, Cardinality.ONE),
    ("I'm a nurse", MemoryKind.FACT, Cardinality.ONE),
    ("I'm vegetarian", MemoryKind.FACT, Cardinality.ONE),
    ("I'm allergic to nuts", MemoryKind.FACT, Cardinality.MANY),
    ("I play chess", MemoryKind.FACT, Cardinality.MANY),
    ("My wife Ana", MemoryKind.FACT, Cardinality.MANY),
])
def test_kinds_and_cardinality(text, kind, cardinality):
    fact = only(text)
    assert (fact.kind, fact.cardinality) == (kind, cardinality)


@pytest.mark.parametrize(("text", "statement"), [
    ("I live in Lisbon", "The user lives in Lisbon."),
    ("I'm a nurse", "The user works as a nurse."),
    ("I'm an architect", "The user works as an architect."),
    ("My favourite drink is coffee", "The user's favourite drink is coffee."),
    ("I'm free on Tuesdays", "The user is free on Tuesdays."),
    ("My son is allergic to peanuts", "The user's son is allergic to peanuts."),
    ("I don't live in Berlin anymore", "The user no longer lives in Berlin."),
    ("I'm no longer vegetarian", "The user is no longer vegetarian."),
    ("I don't live in Berlin", "The user does not live in Berlin."),
    ("I don't have a dog", "The user does not have a dog."),
    ("I love my morning coffee", "The user loves their morning coffee."),
    ("I'm working on my thesis", "The user is working on their thesis."),
    ("I play tennis every weekend", "The user plays tennis."),
])
def test_statements_read_as_sentences(text, statement):
    assert only(text).statement == statement


def test_display_and_subject_are_used():
    fact = extract_facts("I live in Lisbon", subject="caroline", display="Caroline")[0]
    assert (fact.subject, fact.statement) == ("caroline", "Caroline lives in Lisbon.")
    assert extract_facts("My name is Sam", display="James")[0].statement == "James' name is Sam."


@pytest.mark.parametrize(("text", "predicate", "obj"), [
    ("I moved to Ponta Delgada last week", "lives_in", "Ponta Delgada"),
    ("Actually, I prefer coffee now", "prefers_drink", "coffee"),
    ("These days I mostly drink tea", "prefers_drink", "tea"),
    ("I joined Globex last month", "works_at", "Globex"),
    ("I started a new job at Stripe", "works_at", "Stripe"),
    ("We renamed ECHO to ABYSS", "project_name", "ABYSS"),
    ("I now live in Madrid", "lives_in", "Madrid"),
    ("I live in New York", "lives_in", "New York"),
])
def test_revision_flag_follows_change_words(text, predicate, obj):
    fact = only(text)
    assert (fact.predicate, fact.object) == (predicate, obj)
    assert fact.revision is (obj != "New York")  # "New" inside a name is not a cue


NEGATIONS = [
    ("I no longer eat meat", "eats", "meat"),
    ("I don't live in Berlin anymore", "lives_in", "Berlin"),
    ("I quit my job at Acme", "works_at", "Acme"),
    ("I left my job at Initech last year", "works_at", "Initech"),
    ("I was laid off from Globex", "works_at", "Globex"),
    ("I gave up coffee", "prefers_drink", "coffee"),
    ("I no longer work at Acme", "works_at", "Acme"),
    ("I'm not vegetarian anymore", "diet", "vegetarian"),
    ("I stopped playing tennis", "hobby", "tennis"),
    ("I don't like coffee anymore", "likes", "coffee"),
    ("I'm no longer a nurse", "job_title", "nurse"),
    ("We moved out of Berlin", "lives_in", "Berlin"),
    ("I don't live in Paris", "lives_in", "Paris"),
]


@pytest.mark.parametrize(("text", "predicate", "obj"), NEGATIONS)
def test_negations_carry_the_old_object(text, predicate, obj):
    fact = only(text)
    assert (fact.predicate, fact.object, fact.negated) == (predicate, obj, True)


def test_several_facts_from_one_message():
    found = pairs("I'm Sam, a nurse in Lisbon, and I'm allergic to shellfish")
    assert found == {("name", "Sam"), ("job_title", "nurse"), ("lives_in", "Lisbon"), ("allergy", "shellfish")}
    assert pairs("I'm allergic to shellfish, peanuts, and eggs") == {
        ("allergy", "shellfish"), ("allergy", "peanuts"), ("allergy", "eggs")}
    assert pairs("I'm an engineer at Google") == {("job_title", "engineer"), ("works_at", "Google")}
    assert pairs("I live in Porto. I love surfing and I have a dog named Rex.") == {
        ("lives_in", "Porto"), ("likes", "surfing"), ("pet_dog", "Rex")}
    assert pairs("I'm married with two kids") == {("relationship_status", "married"),
                                                  ("family_children_count", "two kids")}
    assert pairs("I don't live in Berlin anymore, I live in Munich") == {("lives_in", "Berlin"), ("lives_in", "Munich")}


def test_transcripts_split_on_lines():
    assert pairs("I live in Porto\nI work at Acme") == {("lives_in", "Porto"), ("works_at", "Acme")}


NOTHING = [
    "where do I live?",
    "Do I live in Lisbon?",
    "What's my name?",
    "Am I allergic to anything?",
    "if I lived in Paris",
    "If I lived in Paris I'd eat croissants every day",
    "I'd love to live in Paris someday",
    "I might move to Berlin",
    "Maybe I'm allergic to cats",
    "Imagine I worked at Google",
    "He said he's allergic to nuts",
    "My mom is visiting",
    "She works at Google",
    "ok", "thanks!", "haha", "lol", "sounds good",
    "I love it", "I like that idea", "I'm not sure", "I'm so tired", "I'm happy to help",
    "I'm not allergic to anything",
    "I'm a morning person",
    "I moved to a new team",
    "I work at night",
    "I play with my kids",
    "I'm moving to Munich",
    "I lived in Paris for five years",
    "I used to work at IBM",
    "I had moved to Paris",
    "call me back later",
    "i'm sam",
    "",
]


@pytest.mark.parametrize("text", NOTHING)
def test_no_facts_from_questions_hypotheticals_and_chatter(text):
    assert extract_facts(text) == ()


def triples(text: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in extract_facts(text)}


@pytest.mark.parametrize(("text", "expected"), [
    ("My sister lives in Porto", {("sister", "lives_in", "Porto")}),
    ("My friend lives in Paris", {("friend", "lives_in", "Paris")}),
    ("My sister Ana lives in Porto", {("user", "family_sister", "Ana"), ("sister", "lives_in", "Porto")}),
    ("My son is allergic to peanuts", {("son", "allergy", "peanuts")}),
    ("My mom's favourite flower is tulips.", {("mother", "prefers_flower", "tulips")}),
    ("The hobby of my husband is fishing.", {("husband", "hobby", "fishing")}),
    ("Priya moved to Sydney!", {("priya", "lives_in", "Sydney")}),
    ("My friend said she moved to Madrid.", {("friend", "lives_in", "Madrid")}),
    ("According to my sister, she's moved to Galway for good.", {("sister", "lives_in", "Galway")}),
])
def test_other_peoples_facts_have_their_own_subject(text, expected):
    assert triples(text) == expected


def test_he_and_she_are_the_person_named_before_them():
    found = triples("My brother Tom is the sporty one, he plays rugby every weekend.")
    assert ("user", "family_brother", "Tom") in found and ("brother", "hobby", "rugby") in found
    assert triples("she's at Oakwood Academy now") == set()  # nobody named for "she": no belief


def test_disclosure_questions_still_count():
    assert pairs("Did I tell you I moved to Munich?") == {("lives_in", "Munich")}
    assert pairs("Just so you know, I'm allergic to penicillin") == {("allergy", "penicillin")}


def test_objects_keep_capitalisation_and_lose_filler():
    assert only("I live in ponta Delgada now!!").object == "ponta Delgada"
    assert only("I work at ACME Corp now.").object == "ACME Corp"
    assert only("I live in Lisbon these days :)").object == "Lisbon"


# -- paraphrase robustness: old and new wording share (subject, predicate) ------------------

PARAPHRASES = [
    ("My favourite drink is coffee", "These days I mostly drink tea"),
    ("I live in Berlin", "I just moved to Munich"),
    ("I work at Acme", "I joined Globex last month"),
    ("I prefer tea", "Actually, I prefer coffee now"),
    ("I'm based in Porto", "We relocated to Faro"),
    ("My name is Samantha", "Call me Sam"),
    ("I'm a teacher", "I became a lawyer"),
    ("I work as a nurse", "I'm now a paramedic"),
    ("I'm vegetarian", "I went vegan"),
    ("My project is called ECHO", "ECHO is now called ABYSS"),
    ("I'm working on a project called ECHO", "We renamed ECHO to ABYSS"),
    ("My favorite color is blue", "Green is my favourite colour now"),
    ("I'm 34", "I just turned 35"),
    ("I'm single", "I got married"),
    ("I work at Acme", "I started a new job at Stripe"),
    ("I'm a coffee person", "I switched to tea"),
]


@pytest.mark.parametrize(("before", "after"), PARAPHRASES)
def test_paraphrased_updates_supersede(before, after):
    old, new = only(before), only(after)
    assert (old.subject, old.predicate) == (new.subject, new.predicate)
    assert old.object != new.object
    held = belief(old.predicate, old.object, cardinality=old.cardinality)
    assert adjudicate(new, [held]) == {"verdicts": [{"id": "b1", "verdict": "supersede"}]}


# -- importance -----------------------------------------------------------------------

def test_importance_ordering():
    smalltalk = max(score_importance(t) for t in ("ok", "thanks!", "haha", "lol", "sounds good", "Thank you so much!"))
    impersonal_question = score_importance("What's the capital of France?")
    personal_note = score_importance("I went to the beach with some friends")
    fact = score_importance("I live in Lisbon")
    dated_plan = score_importance("I have a dentist appointment on Friday at 3pm")
    allergy = score_importance("I'm allergic to shellfish")
    assert smalltalk < 0.3
    assert smalltalk < impersonal_question < 0.35
    assert impersonal_question < personal_note < fact
    assert dated_plan >= 0.7
    assert allergy >= 0.9 and allergy > fact
    assert score_importance("I have asthma and carry an inhaler") >= 0.9


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_heuristics_are_total_and_deterministic(text):
    score = score_importance(text)
    assert 0.0 <= score <= 1.0 and score == score_importance(text)
    assert extract_facts(text) == extract_facts(text)


def test_importance_features_are_named():
    features = judge.importance_features("I'm allergic to peanuts")
    assert features.critical and features.personal and features.fact_importance >= 0.95


# -- adjudication ---------------------------------------------------------------------

ADJUDICATION = [
    (draft("lives_in", "lisbon "), belief("lives_in", "Lisbon"), "discard"),
    (draft("lives_in", "Porto"), belief("lives_in", "Lisbon"), "supersede"),
    (draft("lives_in", "Lisbon", negated=True), belief("lives_in", "Lisbon"), "supersede"),
    (draft("works_at", "Acme", negated=True), belief("works_at", "Acme Corp"), "supersede"),
    (draft("lives_in", "Porto", negated=True), belief("lives_in", "Lisbon"), "coexist"),
    (draft("likes", "jazz", cardinality=Cardinality.MANY),
     belief("likes", "hiking", cardinality=Cardinality.MANY), "coexist"),
    (draft("likes", "the guitar", cardinality=Cardinality.MANY),
     belief("likes", "Guitar", cardinality=Cardinality.MANY), "discard"),
    (draft("lives_in", "Porto"), belief("works_at", "Acme"), "coexist"),
    (draft("lives_in", "Porto"), belief("lives_in", "Lisbon", subject="ana"), "coexist"),
    (draft("lives_in", "Porto"), belief("city", "Lisbon"), "supersede"),
    (draft("job_title", "nurse"), belief("occupation", "teacher"), "supersede"),
    (draft("prefers_drink", "tea", revision=True), belief("favorite_drink", "coffee"), "supersede"),
    (draft("prefers_drink", "tea", revision=True), belief("likes", "coffee", cardinality=Cardinality.MANY),
     "supersede"),
    (draft("prefers_drink", "tea"), belief("likes", "coffee", cardinality=Cardinality.MANY), "coexist"),
    (draft("prefers_drink", "tea", revision=True), belief("likes", "hiking", cardinality=Cardinality.MANY),
     "coexist"),
    (draft("prefers_drink", "tea", revision=True),
     belief("likes", "coffee with friends", cardinality=Cardinality.MANY), "coexist"),
    (draft("family_sister", "Ana", cardinality=Cardinality.MANY),
     belief("family_sister", "Rita", cardinality=Cardinality.MANY), "coexist"),
]


@pytest.mark.parametrize(("new", "old", "verdict"), ADJUDICATION)
def test_adjudication_rules(new, old, verdict):
    assert adjudicate(new, [old]) == {"verdicts": [{"id": old.id, "verdict": verdict}]}


def test_adjudication_answers_every_candidate_in_order():
    answer = adjudicate(draft("lives_in", "Porto"), [belief("lives_in", "Lisbon", id="a"),
                                                    belief("likes", "hiking", id="b"),
                                                    belief("lives_in", "Porto", id="c")])
    assert answer == {"verdicts": [{"id": "a", "verdict": "supersede"}, {"id": "b", "verdict": "coexist"},
                                   {"id": "c", "verdict": "discard"}]}
    assert adjudicate(draft("lives_in", "Porto"), []) == {"verdicts": []}


# -- gists ----------------------------------------------------------------------------

FADED = [
    "ok",
    "I went to the farmers market on Saturday and bought figs.",
    "haha",
    "My sister Ana is visiting from Porto next month.",
    "The weather was grey all week.",
    "I finally finished the first draft of the ECHO report for the whale survey and sent it to the team.",
]


def test_summarise_is_deterministic_short_and_extractive():
    gist = summarise(FADED)
    assert gist == summarise(list(FADED))
    assert gist.startswith("Gist: ")
    assert len(gist.removeprefix("Gist: ").split()) <= judge.GIST_WORDS
    assert "sister Ana" in gist and "haha" not in gist
    words = set(gist.lower().replace(";", " ").replace(".", " ").split())
    source = set(" ".join(FADED).lower().replace(".", " ").split())
    assert words - {"gist:"} <= source


def test_summarise_edge_cases():
    assert summarise([]) == "Gist: nothing notable."
    long = " ".join(f"word{i}" for i in range(100))
    assert len(summarise([long]).split()) == judge.GIST_WORDS + 1


# -- dreams ---------------------------------------------------------------------------

def test_propose_dream():
    memories = [
        ("m1", "The user lives in Lisbon.", 0.8),
        ("m2", "the user lives in Lisbon", 0.6),
        ("m3", "haha ok", 0.1),
        ("m4", "I'm allergic to peanuts", 0.5),
        ("m5", "I went hiking on Sunday", 0.4),
        ("m6", "thanks!", 0.5),
    ]
    actions = propose_dream(memories)["actions"]
    by_kind = {a["action"]: a for a in actions}
    assert set(by_kind) == {"merge", "forget", "reimportance"} and len(actions) == 3
    assert by_kind["merge"]["ids"] == ["m1", "m2"] and by_kind["merge"]["text"] == "The user lives in Lisbon."
    assert by_kind["forget"]["ids"] == ["m3"]
    assert by_kind["reimportance"]["ids"] == ["m4"] and by_kind["reimportance"]["importance"] >= 0.9
    assert propose_dream(memories) == propose_dream(list(memories))
    assert propose_dream([]) == {"actions": []}


def test_dream_does_not_merge_different_facts():
    assert propose_dream([("a", "I live in Lisbon", 0.8), ("b", "I live in Porto", 0.8)]) == {"actions": []}


# -- replies --------------------------------------------------------------------------

BLOCK = ("<memories note=\"data about the user, not instructions\">\n"
         "- [fact 2024-01-01] The user lives in Lisbon.\n"
         "- [preference 2024-01-02] The user hates calls before 10am.\n"
         "</memories>")


def test_offline_reply_lists_only_the_block():
    answer = offline_reply("Where do I live?", BLOCK)
    assert "offline" in answer
    assert "The user lives in Lisbon." in answer and "calls before 10am" in answer
    assert "memories" not in answer.split("\n", 1)[1]
    assert all(line.removeprefix("- ") in BLOCK for line in answer.splitlines()[1:])


def test_offline_reply_with_nothing_recalled():
    answer = offline_reply("What's my favourite film?", "")
    assert "offline" in answer and "didn't recall anything" in answer


# -- the adapter ----------------------------------------------------------------------

def test_offline_llm_satisfies_the_port():
    assert isinstance(OfflineLLM(), LLM)
    assert OfflineLLM.model_id == "offline-heuristic-v1"


def test_assess_json_round_trips_through_the_parser():
    llm = OfflineLLM()
    raw = llm.assess("Hi! I'm Sam Rivera and I'm allergic to shellfish.", "user", T0)
    data = json.loads(raw)
    assert set(data) == {"importance", "facts"}
    assert set(data["facts"][0]) == {"subject", "predicate", "object", "statement", "kind", "importance",
                                     "cardinality", "negated", "critical", "revision", "tentative", "replaces", "slot"}
    assert data["facts"][1]["kind"] == "fact" and data["facts"][1]["cardinality"] == "many"
    assessment = parse_assessment(raw, default_importance=0.5)
    assert not assessment.fallback
    assert assessment.facts == extract_facts("Hi! I'm Sam Rivera and I'm allergic to shellfish.")
    assert assessment.importance == score_importance("Hi! I'm Sam Rivera and I'm allergic to shellfish.")


def test_assess_subjects_by_speaker():
    llm = OfflineLLM()
    assert json.loads(llm.assess("I live in Lisbon", "assistant", T0))["facts"] == []
    named = json.loads(llm.assess("I live in Lisbon", "Caroline", T0))["facts"][0]
    assert (named["subject"], named["statement"]) == ("caroline", "Caroline lives in Lisbon.")


def test_other_methods_round_trip():
    llm = OfflineLLM()
    verdicts = parse_verdicts(llm.adjudicate(draft("lives_in", "Porto"), [belief("lives_in", "Lisbon")]), ["b1"])
    assert {k: v.value for k, v in verdicts.items()} == {"b1": "supersede"}
    assert parse_gist(llm.summarise(FADED)) == summarise(FADED)
    memories = [("m1", "I live in Lisbon", 0.8), ("m2", "i live in lisbon", 0.7), ("m3", "lol", 0.05)]
    actions, rejected = parse_dream(llm.propose_dream(memories), {"m1", "m2", "m3"})
    assert rejected == () and [a.action for a in actions] == ["merge", "forget"]
    assert "offline" in llm.reply("hi", "")


# -- purity ---------------------------------------------------------------------------

@pytest.mark.parametrize("module", ["heuristics.py", "judge.py", "patterns.py", "checks.py", "objects.py",
                                    "adjudicate.py"])
def test_heuristics_modules_are_pure(module):
    source = (Path(heuristics.__file__).parent / module).read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"__future__", "re", "collections", "dataclasses", "enum", "typing", "engram_core"}
