"""Negations the offline extractor reads (pure): a change that ends a belief ("no longer", "not ...
anymore", "stopped smoking") and a plain denial that corrects one ("I don't live in Berlin")."""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

_GERUND_BASE = {"living": "live", "smoking": "smoke", "using": "use", "dating": "date", "taking": "take",
                "running": "run", "swimming": "swim", "making": "make", "riding": "ride", "having": "have",
                "coding": "code", "baking": "bake", "dancing": "dance", "skating": "skate", "driving": "drive"}
Rewrite = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]
CHANGE_NEGATIONS: tuple[Rewrite, ...] = (
    (re.compile(r"\bno\s+longer\s+", re.I), ""),
    (re.compile(r"\b(?:don't|do not|didn't)\s+(.*?)\s*\b(?:anymore|any more|any longer)\b", re.I), r"\1"),
    # "I don't play chess more": "anymore" in many learners' English, at the end of its clause.
    (re.compile(r"\b(?:don't|do not)\s+(.*?)\s+more(?=\s*(?:[,.;!]|$))", re.I), r"\1"),
    (re.compile(r"\b(I(?:'m|\s+am|m))\s+not\s+(.*?)\s*\b(?:anymore|any more|any longer)\b", re.I), r"\1 \2"),
    (re.compile(r"\b(?:have\s+|'ve\s+)?(?:stopped|quit|gave up)\s+(\w+ing)\b", re.I),
     lambda m: _GERUND_BASE.get(m.group(1).lower(), m.group(1).lower()[:-3])),
)
PLAIN_NEGATIONS: tuple[Rewrite, ...] = (
    (re.compile(r"\b(?:don't|do not)\s+", re.I), ""),
    (re.compile(r"\b(I(?:'m|\s+am|m))\s+not\s+", re.I), r"\1 "),
)


class Negation(Enum):
    NONE = "none"
    CHANGE = "change"  # "no longer", "not ... anymore", "stopped": a belief ends
    PLAIN = "plain"  # "I don't live in Berlin": a correction


def without_negation(clause: str, rewrites: tuple[Rewrite, ...]) -> str | None:
    """The clause with its first negation removed, or None when it has none."""
    for pattern, replacement in rewrites:
        changed = pattern.sub(replacement, clause, count=1)
        if changed != clause:
            return changed
    return None
