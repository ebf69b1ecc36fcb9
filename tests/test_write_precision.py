"""The offline bookkeeper keeps a value when a later message only seems to change it: a relative's relative
("her cousin ... she is a lawyer"), a stay ("for three weeks"), a jest, a name someone gets wrong, a word
opening a sentence ("Right now he's ...") and a title that starts with "Love"."""

from __future__ import annotations

import pytest
from conftest import told

from engram_core.adapters.offline.heuristics import extract_facts
from engram_core.core.kin import kin_changed, own_changed
from engram_core.core.selfcorrection import swapped_values

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("old", "new", "kept"), [
    ("My wife Marta works as a nurse in the children's ward.",
     "Yesterday her cousin stopped by, she is a lawyer, very loud.", "wife job_title: nurse"),
    ("My dad lives in York, in a terraced house.",
     "Dad's staying with us here in Leeds for three weeks, first time he's come up since we moved",
     "father lives_in: York"),
])
def test_with_minilm_a_later_message_that_only_seems_to_change_it_keeps_the_value(clock, minilm, old, new, kept):
    with told(clock, minilm, old, new) as (_, beliefs):
        assert beliefs.get(kept) is True, beliefs


@pytest.mark.parametrize("text", [
    "my brother joked he's quitting to become a surf instructor in Bali",
    "Dad's staying with us here in Leeds for three weeks, first time he's come up since we moved",
    "haha my new coach keeps calling me Seamus in emails, ive given up correcting him",
])
def test_a_jest_a_stay_or_a_wrong_name_changes_no_ones_slot(text):
    assert kin_changed(text) == frozenset()
    assert own_changed(text) == {}


@pytest.mark.parametrize(("text", "wrong"), [
    ("Right now he's in Oslo for a match, and his sister Ida lives in Bergen.", "right"),
    ("Love Boat reruns are my guilty pleasure, don't judge me", "likes"),
])
def test_no_fact_from_a_word_that_only_looks_like_one(text, wrong):
    drafts = extract_facts(text)
    assert not [d for d in drafts if wrong in (d.subject, d.predicate)], drafts


@pytest.mark.parametrize(("text", "wrong"), [
    ("My aunt adopted an old greyhound, his name is Bruno. He is 11 and sleeps all day.", "aunt"),  # his, he: the dog
    ("My brother got engaged last week, her name is Mireille.", "brother name"),  # her: the fiancée
])
def test_a_he_or_she_that_cannot_mean_the_relative_is_not_theirs(text, wrong):
    said = [f"{d.subject} {d.predicate}" for d in extract_facts(text)]
    assert not [s for s in said if s.startswith(wrong) and (s.endswith(" name") or s.endswith(" age"))], said


def test_a_faith_is_no_nationality():
    assert [d.object for d in extract_facts("I am Hindu, so no beef for me.") if d.predicate == "nationality"] == []
    assert [d.object for d in extract_facts("I am Polish, from Gdansk.") if d.predicate == "nationality"] == ["Polish"]


@pytest.mark.parametrize(("text", "wrong"), [
    ("I stopped at the café for a coffee on the way in and ran into my old boss, so awkward.", "likes"),  # a visit
    ("Update: I stopped eating at Green Fork, the service got awful and they forgot my order twice.", "eats"),
    ("I do the intermittent fasting, I eat only between 12 and 8 in evening.", "eats"),  # when, not what
    ("I eat no sugar since last year, no sweets, no juice.", "eats"),
    ("I love spicy food, the hotter the better.", "the hotter the better"),  # a saying
    ("i love hiking and bouldering, basically live at the climbing gym", "basically live at the climbing gym"),
    ("I'm writing from the break room, as a paralegal I live on pretzels.", "working_on"),
    ("I moved over to the ML team and love it.", "works_at"),  # a team is no employer
    ("I'm officially an associate attorney at the same firm.", "the same firm"),
    ("tips for first week w real patients", "works_at"),
    ("got an offer from target but im stayin at walmart", "target"),  # an offer got is no job
    ("My son, Sadly he moved to Perth last year.", "Sadly"),  # a new thought, no name
    ("I'm going by train now, the car is in the garage.", "name"),  # a means, no name
    ("I've been a nurse for nine years now, the last four on the cardiac ward.", "works_at"),  # a duration
    ("As a paralegal I basically live in document review these days.", "lives_in"),  # no place named
    ("I dropped the keto thing, and now I just eat normally, bread, pasta, the lot, with lots of veg.", "eats"),
    ("I eat pescatarian (fish yes, meat no), and I run twice a week.", "meat no"),
    ("He's now lecturing ME about cheese, the absolute cheek.", "job_title"),
    ("I like very much to play chess, every evening I play online.", "online"),
    ("My hobby is photography, mostly birds.", "birds"),  # a remark on the list
])
def test_no_belief_from_a_place_a_time_a_saying_or_an_offer(text, wrong):
    said = [(d.predicate, d.object) for d in extract_facts(text)]
    assert not [s for s in said if wrong in s], said


@pytest.mark.parametrize(("text", "fact"), [
    ("I have one son, Mateo, he is seven years and crazy for dinosaurs.", ("family_son", "Mateo")),
    ("I have one parrot, name is Kiwi, he speak three words.", ("pet_parrot", "Kiwi")),
    ("I work at Google on the Maps team, mostly backend stuff.", ("works_at", "Google")),
    ("I moved over to the ML team and my title is machine learning engineer now.",
     ("job_title", "machine learning engineer")),
    ("got an offer from KPMG advisory & took it, start 1st of the month!!", ("works_at", "KPMG advisory")),
    ("Bigger news: I came out to my family and I'm using the name Mila now.", ("name", "Mila")),
    ("ok so im going by rae now (my middle name), the old one feels so middle school", ("name", "rae")),
    ("Started eating fish again on doctor's advice, B12 was way too low.", ("eats", "fish")),
    ("Hi, so some news first: I've started going by Theo. It feels right.", ("name", "Theo")),
    ("hey so im goin by stevie now not my old name", ("name", "stevie")),
    ("no i still live in brooklyn lol my mom keeps askin me to move back", ("lives_in", "brooklyn")),
    ("Lots of news: my parents finally moved to Spain, they bought a little place near Málaga.",
     ("lives_in", "Málaga")),
])
def test_the_value_a_message_names_is_read_whole(text, fact):
    said = [(d.predicate, d.object) for d in extract_facts(text)]
    assert said.count(fact) == 1 and len({p for p, _ in said if p == fact[0]}) == 1, said
    if fact[1] == "Málaga":  # the parents' home, not the speaker's
        assert [d.subject for d in extract_facts(text) if d.object == "Málaga"] == ["parents"]


@pytest.mark.parametrize(("old", "new", "kept"), [
    ("Hi! Took my dog Luna to the beach, she dug a hole the size of a car.",
     "So my neighbour got a puppy and also called it Luna, which was chaos at the dog park, so they renamed theirs "
     "Stella.", "user pet_dog: Luna"),
    ("Hey, I'm Magnus. Need help with a cover letter.", "My mates call me Mags, don't ask.", "user name: Magnus"),
    ("Hello, my name is Yuki and I am living in Osaka since five years.",
     "I am in Kyoto now for my friend's wedding, very beautiful.", "user lives_in: Osaka"),  # a stay
    ("Hello, I am Olena, now I live in Kraków and I work as a cleaner in hotel.",
     "Today I am translator for my neighbour at the doctor, because she don't speak Polish well.",
     "user job_title: cleaner"),  # a favour for someone, no trade
    ("my gf Tasha works at the hospital downtown",
     "oops i mean she works at the VA clinic, not the hospital lol", "user family_girlfriend: Tasha"),
])
def test_someone_elses_rename_a_nickname_or_another_correction_keeps_the_value(clock, minilm, old, new, kept):
    with told(clock, minilm, old, new) as (_, beliefs):
        assert beliefs.get(kept) is True, beliefs


def test_with_minilm_a_name_others_use_now_and_asked_for_is_taken(clock, minilm):
    with told(clock, minilm, "Hi, I'm Alexandra, nice to meet you.",
              "Small thing: everyone calls me Sasha now, please do too.") as (_, beliefs):
        assert beliefs.get("user name: Sasha") is True and beliefs.get("user name: Alexandra") is False, beliefs


@pytest.mark.parametrize(("earlier", "text", "fact"), [
    # a "he" after someone named by name is them, as whose the words so far say, not whom was named before
    ("Long day. My husband Marcus is still at the fire station. Our son started piano lessons.",
     "On the family front, Marcus left the fire service and he's now teaching first aid courses.",
     ("husband", "job_title", "teaching")),
    ("Our son started piano lessons.", "On the family front, Marcus left the fire service and he's now teaching.",
     ("marcus", "job_title", "teaching")),
    ("My husband Tariq is working as engineer in oil company in Abu Dhabi.",
     "Tariq's cousin is coming from Karachi to stay with us, he is doctor and he want to find job here.", None),
])
def test_a_he_after_someone_named_is_them(earlier, text, fact):
    said = [(d.subject, d.predicate, d.object) for d in extract_facts(text, earlier=earlier)]
    assert said == ([fact] if fact else []), said


def test_a_correction_naming_something_else_keeps_the_name():
    old = "Hello again! For context, I'm Yuki, a physiotherapist in Sapporo, and I have a shiba inu named Daifuku."
    new = "Oops, correction on something I said about my trip: the resort is Niseko, not Furano. I mixed them up."
    assert swapped_values(old, new) == frozenset()


def test_a_full_name_and_the_name_used_said_together_are_one_name_held(clock, minilm):
    with told(clock, minilm, "hello, my name is Tran Thi Mai but please call me Molly",
              "Can you recommend a book about gardening?") as (_, beliefs):
        assert beliefs == {"user name: Tran Thi Mai (goes by Molly)": True}, beliefs
    said = [(d.predicate, d.object) for d in extract_facts("I'm Tom, everyone calls me Tommy.")]
    assert ("name", "Tom (goes by Tommy)") not in said, said  # one name inside the other: nothing joined
