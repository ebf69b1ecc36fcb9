"""An older message set right in place: the value a correction replaces is swapped in a copy that keeps the
rest of what the message said, and the original stays in history."""

from __future__ import annotations

import pytest
from conftest import make_engine, say

from engram_core.core.amend import Swap, amended, named_swaps
from engram_core.core.model import MemoryKind, MemoryStatus
from engram_core.core.selfcorrection import said_swap

pytestmark = pytest.mark.both_stores


@pytest.mark.parametrize(("text", "swaps"), [
    ("my birthday is the 12th of June, not the 2nd", [Swap("2nd", "12th")]),
    ("it's the Golden Fleece, not the Black Horse, the Black Horse was last year",
     [Swap("Black Horse", "Golden Fleece")]),
    ("the card expires in 2030, not 2028", [Swap("2028", "2030")]),
    ("We land at 9:40, not 7:15.", [Swap("7:15", "9:40")]),
    ("it's the fourth floor, not the third", [Swap("third", "fourth")]),
    ("his favourite fruit is pear, not apple", [Swap("apple", "pear")]),
    ("I'm not sure, not bad really", []),  # "not" closing no value
    ("the film was fun not boring", []),  # a plain word is named as replaced only after a comma
    ("Is it the 12th, not the 2nd?", [Swap("2nd", "12th")]),  # read here; the write path asks for a correction
])
def test_the_values_a_message_names_as_replaced(text, swaps):
    assert named_swaps(text) == swaps


def test_a_copy_is_set_right_only_when_it_says_more_than_the_value():
    form = "Booking details: guest Ana Ruiz, arriving the 2nd of June, two adults, sea view room."
    correction = "Sorry, arriving the 12th of June, not the 2nd."
    assert amended(form, correction, named_swaps(correction)) == form.replace("2nd", "12th")
    assert amended("Arriving the 2nd of June.", correction, named_swaps(correction)) is None  # nothing else said
    assert amended("The 2nd and the 2nd again, June.", correction, named_swaps(correction)) is None  # which one?


@pytest.mark.parametrize(("old", "new", "swap"), [
    ("My train leaves at 6:40 pm, coach C, seat 41.", "oops, it leaves at 8:15 pm", Swap("6:40 pm", "8:15 pm")),
    ("The wedding is in Sintra, at the old palace.", "sorry, the wedding is in Cascais", Swap("Sintra", "Cascais")),
    ("My train leaves at 6:40 pm.", "oops, the coach is C", None),  # no value of that shape said anew
])
def test_the_swap_a_correction_naming_only_the_new_value_makes(old, new, swap):
    assert said_swap(old, new) == swap


@pytest.mark.parametrize(("old", "new", "query", "right"), [
    ("Booking details for the hotel: guest Ana Ruiz, arriving the 2nd of June, two adults, sea view room.",
     "Sorry, my mistake: we arrive on the 12th of June, not the 2nd.", "When do we arrive at the hotel?",
     "arriving the 12th of June"),
    ("Planning the reunion: it's at the Black Horse on Friday, about thirty people, and Tom is bringing the photos.",
     "Ugh, wrong pub in my last message, it's the Golden Fleece, not the Black Horse.", "Where is the reunion?",
     "it's at the Golden Fleece on Friday"),
])
def test_with_minilm_the_older_message_is_set_right_in_place(clock, minilm, old, new, query, right):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, old, new)
    memories = engine.store.memories()
    assert {m.text: m.status for m in memories}[old] is MemoryStatus.SUPERSEDED  # kept in history
    copies = [m for m in memories if m.kind is MemoryKind.GIST]
    assert len(copies) == 1 and right in copies[0].text
    block = engine.recall(query, 256, reinforce=False).block
    assert old not in block and right in block
    engine.close()


@pytest.mark.parametrize(("old", "new"), [
    ("I'm a project manager at Balfour Beatty, and my colleague Priya just left for Skanska.",
     "As of this month I've joined Laing O'Rourke, not Skanska, bigger projects and a proper pension."),  # a contrast
    ("Planning the reunion: it's at the Black Horse on Friday.", "it's at the Black Horse, not the pub by the station"),
])
def test_with_minilm_a_contrast_sets_nothing_right(clock, minilm, old, new):
    engine = make_engine(clock, embedder=minilm)
    say(engine, clock, old, new)
    assert not [m for m in engine.store.memories() if m.kind is MemoryKind.GIST]
    engine.close()
