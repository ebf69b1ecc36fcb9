"""A question about the asker's own home or work leaves out an older memory that only mentioned the old value in
passing ("coffee on the balcony here in Valencia", "another all-hands at Deloitte") once a newer one states the
slot; a trade said in a figure of speech ("I'm such a chef tonight") or a relative's relative ("Callum's wife
Jess got promoted") states nothing of the slot asked."""

from __future__ import annotations

import pytest
from conftest import recalled

from engram_core.core.asked import states
from engram_core.core.broad_slots import slots_named_broadly

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("query", "old", "new", "gone", "kept"), [
    ("Which city am I living in?", "Morning! Coffee on the balcony here in Valencia, best part of the day.",
     "Ok update: signed the lease, we're in Lyon now.", "Valencia", "Lyon"),
    ("Who do I work for?", "Another all-hands at Deloitte today, three hours I'll never get back.",
     "I work at Shopify now, onboarding is intense but fun.", "Deloitte", "Shopify"),
    ("where do i work", "ugh amazon warehouse shift was 10hrs today my feet r dead",
     "i work at fedex now, driving instead of picking. way better", "amazon", "fedex"),
    ("what do i want to be called", "hi its bobby again, remember me? need help w my resume",
     "btw pls call me robert from now on, new job new me lol", "bobby", "robert"),
    ("what do i do for work", "being a receptionist at a dental office = answering the same 5 questions all day",
     "im a dental hygienist now!! finaly done w school n got licensed", "receptionist", "hygienist"),
    ("Where am I based now?", "So the farmers market here in Hobart is amazing in autumn, the apples are unreal.",
     "The move finally happened - we drove the van up the coast for two days and now we're settled in Brisbane.",
     "Hobart", "Brisbane"),  # a stay in another clause leaves the statement whole
    ("Which city do I live in?", "Another grey morning in Glasgow. Can you give me a quick porridge recipe?",
     "Finally unpacked the last box in our flat in Valencia!", "Glasgow", "Valencia"),
    ("Where do I work?", "Quarterly town hall at Siemens today, three hours of slides.",
     "First week at Bosch done! New badge, new laptop, same coffee.", "Siemens", "Bosch"),
    ("where do i work these days", "ok another sprint planning at shopify, kill me",
     "so i quit my job lol, freelancing now, mostly react contracts", "shopify", "freelancing"),
    ("What's my job title?", "Still a junior designer, still making banners nobody clicks.",
     "Got promoted to senior designer today!!", "junior", "senior designer"),
    ("Where do I live?", "Heading home to Tucson after the gym, it's 40 degrees out.",
     "We're in Denver now! Still unpacking the kitchen.", "Tucson", "Denver"),
    ("wats my name", "heyy its maddie, need help w my essay intro", "pls call me madison from now on, new uni new me",
     "maddie", "madison"),
    ("What food restrictions do I have?", "I eat pork every day, in my country is normal, the best is pork belly.",
     "Since I marry my wife I become Muslim, so now I eat only halal food.", "pork belly", "halal"),
    ("What's my diet like?", "Made my usual bacon sandwich, best breakfast ever.",
     "Three weeks vegetarian now and I feel great.", "bacon", "vegetarian"),
    ("does my mom still work", "my mom works nights at the walmart in tulsa, i worry bout her driving home at 3am",
     "mom retired!! finaly. shes doing pottery classes now n making us ugly mugs lol", "walmart", "retired"),
])
def test_with_minilm_an_older_passing_mention_leaves_once_the_slot_is_stated(clock, minilm, query, old, new, gone,
                                                                            kept):
    block = recalled(clock, minilm, query, old, new)
    assert kept in block and gone not in block, block


@pytest.mark.parametrize(("query", "old", "new"), [
    ("Who do I work for?", "My sister works nights at the Tesco in Leeds, poor thing.",
     "I'm with Shopify now, onboarding is intense."),  # someone else's work: no mention of mine
    ("Where do I live?", "I live in Valencia, right by the old town.",
     "Coffee on the balcony here in Valencia again, the best part of the day."),  # names the same value
    ("Who do I work for?", "I work at Deloitte in the audit team.", "Another all-hands at Deloitte today, so long."),
])
def test_with_minilm_a_passing_mention_never_retires_a_statement(clock, minilm, query, old, new):
    block = recalled(clock, minilm, query, old, new)
    assert old in block, block


@pytest.mark.parametrize(("text", "slot"), [
    ("I'm at the dentist, stuck in the waiting room and bored out of my mind.", "occupation"),  # a visit
    ("I've been asked to cover as acting site manager for two weeks while my colleague is on leave.", "occupation"),
    ("ok so i did a logo gig for a coffee shop this wk, so i guess im a brand designer now jk", "occupation"),
    ("I'm basically a professional referee at this point. The kids fought over glue sticks.", "occupation"),
    ("I'm such a chef tonight though, made lasagne from scratch to recover.", "occupation"),
    ("my brother's wife Jess just got promoted to fire captain, so proud of her!", "occupation:brother"),
])
def test_a_figure_of_speech_or_a_relatives_relative_states_no_slot(text, slot):
    assert not states(text, slot)


def test_a_relatives_relative_is_whose_slot_it_is():
    assert slots_named_broadly("My brother's wife Jess is a nurse now") == frozenset({"occupation:wife"})
    assert slots_named_broadly("my brother is a nurse now") == frozenset({"occupation:brother"})
    assert states("I'm a nurse now", "occupation")  # said plainly, it still states the trade


def test_with_minilm_a_job_asked_keeps_the_plain_statement_beside_chatter(clock, minilm):
    block = recalled(clock, minilm, "What's my job?", "I'm a primary school teacher in Bristol, Year 3 this year.",
                     "I'm basically a professional referee at this point. The kids fought over glue sticks.",
                     "I'm such a chef tonight though, made lasagne from scratch to recover.")
    assert "teacher" in block, block


@pytest.mark.parametrize(("text", "slot"), [
    ("The company make me developer now, I write code for the same bank app, I am very happy.", "occupation"),
    ("ok so i quit lol. im with a tiny agency called pixelfox now, 12 ppl, no travel!!", "employer"),
    ("I finally jumped ship. I've been at a small fintech called Brightpath for three weeks now.", "employer"),
    ("I've moved up to management accountant in the same company, so now I build the forecasts.", "occupation"),
    ("Right, so I left London. I'm writing from the kitchen table of my new cottage just outside Shrewsbury.", "home"),
    ("We drove the van up the coast for two days and now we're settled in Brisbane.", "home"),
])
def test_a_slot_stated_in_plain_chat(text, slot):
    assert states(text, slot)


@pytest.mark.parametrize("text", [
    "i'm in Rotterdam for two weeks",  # a stay in the same clause
    "Thank you! I buy a good coat at the shop on Saint-Denis, near my apartment.",  # a street, not a home
    "My dream is to live in New Zealand, very quiet and green.",  # a dream
])
def test_no_home_stated(text):
    assert not states(text, "home")


def test_with_minilm_a_dream_leaves_the_home_told_in_passing(clock, minilm):
    block = recalled(clock, minilm, "Where do I live?",
                     "I am Chen Wei, I live and work in Shenzhen, I am hardware engineer for drone company.",
                     "My dream is to live in New Zealand, very quiet and green. Maybe one day when I am old.")
    assert "Shenzhen" in block, block
