"""Who a memory is about, and whom a query names (pure): the entity links of recall.

A message observed with a speaker is stored as ``speaker: text``; an extracted fact keeps its
subject. A question that names a person ("What books has Melanie read?") then prefers what that
person said or what is known about them: in LoCoMo 97% of the evidence of a question naming one
speaker was said by that speaker, while a name shared by every one of their turns earns almost
nothing in BM25 and only a little in cosine.
"""

from __future__ import annotations

import re

from engram_core.core.model import Memory, MemoryKind
from engram_core.core.words import STOP_WORDS

_WORD = re.compile(r"\w+", re.UNICODE)
_LONGEST_NAME_WORDS = 3  # "Dr Ana Silva": a longer prefix before ": " is a sentence, not a speaker
_NOT_ENTITIES = STOP_WORDS | {"user", "assistant", "system", "note", "part"}


def entity_key(name: str) -> str | None:
    """The normalised form a name is matched by: its lower-cased words, or None for no usable name."""
    words = [w.lower() for w in _WORD.findall(name)]
    if not words or len(words) > _LONGEST_NAME_WORDS or " ".join(words) in _NOT_ENTITIES:
        return None
    return " ".join(words)


_LONGEST_SPEAKER = 64  # characters before ": "; a longer head is a sentence
SPEAKER_PREFIX = _LONGEST_SPEAKER + 2  # the start of an episode's text that decides its speaker


def speaker_entity(text: str) -> str | None:
    """The speaker an episode's text names (its ``speaker: `` prefix); its first SPEAKER_PREFIX characters
    decide it."""
    head, sep, _ = text.partition(": ")
    return entity_key(head) if sep and len(head) <= _LONGEST_SPEAKER else None


def memory_entity(memory: Memory) -> str | None:
    """The speaker of an episode (its ``speaker: `` prefix) or the subject of a fact."""
    if memory.kind is MemoryKind.EPISODE:
        return speaker_entity(memory.text)
    return entity_key(memory.subject) if memory.subject else None


def named_entities(query: str, known: dict[str, int]) -> list[int]:
    """Ids of the known entities the query names as whole words (a name of up to three words)."""
    words = [w.lower() for w in _WORD.findall(query)]
    found = []
    for size in range(1, _LONGEST_NAME_WORDS + 1):
        for start in range(len(words) - size + 1):
            entity = known.get(" ".join(words[start:start + size]))
            if entity is not None and entity not in found:
                found.append(entity)
    return found
