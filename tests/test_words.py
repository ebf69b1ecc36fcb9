"""Content words, the light stem, and when a fact may stand in for the sentence it came from."""

from __future__ import annotations

from engram_core.core.words import STOP_WORDS, carries, content_words, meaning, stem


def test_stop_words_are_not_content() -> None:
    assert content_words("Book a team dinner for Friday".split()) == ["book", "team", "dinner", "friday"]
    assert content_words(["What", "is", "it"]) == []
    assert {"a", "the", "my", "i"} <= STOP_WORDS


def test_stem_meets_restatements() -> None:
    assert stem("lives") == stem("live") == stem("lived") == stem("living")
    assert meaning("I live in Lisbon now") <= meaning("The user lives in Lisbon.")
    assert stem("bands") == "band" and stem("glass") == "glass"


def test_stem_undoubles_a_consonant_doubled_before_ing_and_ed() -> None:
    assert stem("running") == stem("run") and stem("shopped") == stem("shop") and stem("planning") == stem("plan")
    assert stem("falling") == stem("fall") and stem("added") == stem("add") and stem("stuffing") == stem("stuff")


def test_a_fact_that_restates_its_source_carries_it() -> None:
    assert carries("The user's name is Dana.", "My name is Dana.")
    assert carries("The user lives in Lisbon.", "I live in Lisbon now.")


def test_a_fact_that_leaves_part_out_does_not() -> None:
    source = "My name is Dana and I work as a night nurse at St Mary's."
    assert not carries("The user's name is Dana.", source)
    assert not carries("The user's cat is named Mochi.", "My cat Mochi is a Siamese.")  # the breed
    assert not carries("The user's daughter studies in UBA.", "My daughter Sofía studies medicine at UBA.")


def test_a_retired_value_needs_no_restating() -> None:
    """A rename's old name lives in the ledger's history; the new fact carries the rest of the sentence."""
    source = "Also, project ECHO got renamed to ABYSS."
    assert not carries("The user's project is named ABYSS.", source)
    assert carries("The user's project is named ABYSS.", source, history=meaning("ECHO"))
