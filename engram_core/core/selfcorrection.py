"""Setting one's own words right with no value named as replaced (pure): "oops I meant three kids", "I got
that wrong, it's tree nuts", "realized I told you the wrong thing earlier, it's a 2017 Honda Accord".

``restatements.corrected_episode`` handles a correction that names the old value ("the 13th, not the
3rd"). These name only the new one, so what they correct is the closest older episode of the same speaker
that stated one fact: the write path (``usecases/retractions``) retires it and ends that fact. Only the
words below count; "sorry" or "I mean" alone fill real chats, and "I meant to ..." is a plan.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram_core.core.model import Belief, Memory

SELF_CORRECTION = re.compile(
    r"\b(?:I\s+meant(?!\s+(?:to|it|that|what|well|no|nothing|every|as|for|in|when|by)\b)|typo|autocorrect\w*|"
    r"got\s+(?:that|it|this)\s+wrong|(?:made|make|makes)\s+(?:a|one)\s+mistake|mixed\s+(?:\w+\s+)?up|"
    r"told\s+you\s+(?:the\s+)?wrong|wrong\s+(?:thing|name|date|number|day|one|year|age)|misspel\w*|misspoke|"
    r"scratch\s+that)\b", re.I)
CORRECTED_SIMILARITY = 0.45  # how close the older episode must be to the message that sets it right
# A health fact is never set right by a guess at what was meant: the person says so in words that name it.
_NEVER_CORRECTED = re.compile(r"^(?:not:|allergy|intolerance|medical_condition)")


def sets_right(text: str) -> bool:
    """Whether the text says the speaker's own earlier words were wrong; not a question."""
    return SELF_CORRECTION.search(text) is not None and not text.rstrip().endswith("?")


def corrected(older: Sequence[tuple[Memory, float, Sequence[Belief]]]) -> tuple[Memory, Belief] | None:
    """The closest older episode (with its cosine to the correction, and the current beliefs read from it)
    at least ``CORRECTED_SIMILARITY`` close that stated exactly one fact, and that fact; None otherwise,
    so a message of several facts is never set right by a guess at which one was meant."""
    close = sorted(((cosine, memory.id, memory, beliefs) for memory, cosine, beliefs in older
                    if cosine >= CORRECTED_SIMILARITY and not memory.critical), key=lambda c: c[:2], reverse=True)
    for _, _, memory, beliefs in close[:1]:
        if len(beliefs) == 1 and not _NEVER_CORRECTED.match(beliefs[0].predicate):
            return memory, beliefs[0]
    return None
