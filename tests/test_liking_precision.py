"""What a chat partner praises, wishes or wonders is not what they like: no belief comes of it.

Long conversations between two people (the retrieval suite's) are full of "Love the colours!",
"Enjoy your day!" and "I love how you ...": each used to become a `likes` belief of the speaker.
"""

from __future__ import annotations

import pytest

from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.adapters.offline.objects import list_items

pytestmark = pytest.mark.both_stores


def liked(text: str) -> set[str]:
    return {f.object for f in extract_facts(text) if f.predicate.startswith(("likes", "prefers"))}


@pytest.mark.parametrize("text", [
    "Love the red and blue. What gave you the idea?",  # praise of what is shown
    "Wow, that's gorgeous! Love all the details and how you got the horse's grace.",
    "No worries! Your friendship means so much to me. Enjoy your day!",  # a wish for the listener
    "Enjoy the good feels tomorrow, you earned it!",
    "Art can be in the most unlikely places. Love and acceptance really can be found everywhere.",  # a noun
    "Glad you like it. Yeah, I love to.",  # no object
    "Nice one! Love how you never give up.",
    "I love how you use it to tell your stories and teach people about your culture.",
    "I love how it's both a creative outlet and a form of therapy.",  # a thought, not a list
    "Love seeing your dedication to helping others.",
    "Thanks! I love having you in my corner.",
    "I love that idea, let's do it.",  # agreement, then the next thought
    "I like the second option better.",  # a choice among things shown
    "I prefer the first one.",
    "I like the blue one.",
    "I like to think I'm a patient person.",  # a hedge
    "Honestly I like neither of them.",
    "I like them both.",
    "I'm not sure I like sushi.",  # a doubt
    "Not sure if I like jazz, tbh.",
    "I don't know whether I enjoy running.",
])
def test_praise_wishes_and_thoughts_are_no_liking(text):
    assert liked(text) == set()


@pytest.mark.parametrize("text, expected", [
    ("Love sushi.", {"sushi"}),  # an elided "I" still says what the speaker likes
    ("I love sushi, ramen and tacos.", {"sushi", "ramen", "tacos"}),
    ("I love hiking with my dog and reading.", {"hiking", "reading"}),
    # the reason after the list is not an item of it
    ("I love camping trips with my fam, 'cause nature brings such peace and serenity.", {"camping trips"}),
    ("I'm passionate about dance and fashion so combining them lets me show my creativity.", {"dance", "fashion"}),
    ("I also enjoy aerial yoga, it's a great way to focus on my body and relax.", {"aerial yoga"}),
    ("I'm a fan of both jazz and blues, as well as modern pop.", {"jazz", "blues", "modern pop"}),
    ("I love the one-pot pasta.", {"the one-pot pasta"}),
    ("I love creating a safe, inviting place for people.", {"creating a safe inviting place for people"}),
    ("I like a beer, wine and cheese.", {"a beer", "wine", "cheese"}),
    ("I like cooking and love baking.", {"cooking"}),  # a liking verb opens the next clause
])
def test_what_is_liked_is_still_read_and_its_list_ends_where_the_thought_does(text, expected):
    assert liked(text) == expected


def test_a_list_opening_with_a_clause_gives_no_items():
    assert list_items("how you tell your stories and teach people") == []
    assert list_items("how to cook and how to swim") == ["how to cook", "how to swim"]


def test_a_relative_named_in_the_possessive_is_named_without_it():
    found = {(f.predicate, f.object) for f in extract_facts("That trip was for my daughter Sara's birthday.")}
    assert ("family_daughter", "Sara") in found


def test_a_learnt_amount_is_not_a_subject():
    assert [f for f in extract_facts("It's all a process and I'm learning a ton.") if f.predicate == "learning"] == []
    assert [f.object for f in extract_facts("I'm learning to code.") if f.predicate == "learning"] == ["to code"]


def test_a_conversation_of_praise_keeps_its_episodes_and_makes_no_liking(engine, clock):
    for text in ("Wow, that's stunning! Love the colours and the chilled-out sunset vibe.",
                 "Thanks! I love how art lets us get our emotions out.", "Enjoy your day!"):
        engine.observe(text, speaker="Mel")
    assert [b for b in engine.beliefs() if b.predicate == "likes"] == []
    assert len(engine.memories()) == 3
    engine.observe("I love camping trips with my family, 'cause nature brings peace.", speaker="Mel")
    assert {b.object for b in engine.beliefs() if b.predicate == "likes"} == {"camping trips"}


def test_working_for_oneself_names_no_employer():
    assert [f for f in extract_facts("I work for myself.") if f.predicate == "works_at"] == []


@pytest.mark.parametrize("text", [
    "Write it like I'm a lawyer.",
    "Let's say I work at Google, how would I negotiate?",
    "Suppose I moved to Denver.",
    "Explain it as if I were five.",
])
def test_a_request_framed_as_someone_else_states_nothing(text):
    assert extract_facts(text) == ()


def test_looks_like_is_still_news():
    assert {(f.predicate, f.object) for f in extract_facts("Looks like I'm vegan now, who knew.")} \
        == {("diet", "vegan")}


def test_a_hypothetical_employer_never_replaces_the_real_one(engine, clock):
    engine.observe("I work at Acme.")
    engine.observe("Let's say I work at Google, how would I negotiate a raise?")
    assert [b.object for b in engine.beliefs() if b.predicate == "works_at"] == ["Acme"]
