"""Renames said across a whole sentence (pure): "Quill is dead, long live Inkwell: same product, new name."

Read per sentence rather than per clause, since a rename's two names often sit in different
clauses. A rename that names the old value ("Abacus's official name is now Ledgerly") becomes a
correction of whichever current belief holds that value (settled against the ledger, see
``engram_core.core.people``), so it can only retire a name actually held. One that names the thing
instead ("rebranded the podcast, it's Early Birds from now on") sets that thing's name.
"""

from __future__ import annotations

import re
from dataclasses import replace

from engram_core.adapters.offline.checks import could_be_a_name
from engram_core.core.model import Cardinality, FactDraft

_CAP = r"(?-i:[A-Z0-9][\w&'.-]*(?:\s+(?:&\s+|of\s+|the\s+)?[A-Z0-9][\w&'.-]*){0,4})"
_ANY = r"[\w&'.-]+(?:\s+[\w&'.-]+){0,3}?"
_THINGS = (r"(?P<thing>project|side project|podcast|newsletter|band|app|shop|store|product|channel|server|blog|"
           r"restaurant|team|group|lab|company|startup|business|brand|club|book club|org|website|site|tool|cafe|show)")
_END = r"(?=\s*(?:$|[,.!;:)]|\s(?:now|from now on|lol|haha|because|since|after|which|and|but|so)\b))"


def _patterns(name: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    old, new = name.replace("(?-i:", "(?P<old>(?-i:", 1) + ")", name.replace("(?-i:", "(?P<new>(?-i:", 1) + ")"
    if not name.startswith("(?-i:"):
        old, new = f"(?P<old>{name})", f"(?P<new>{name})"

    def rename(text: str) -> re.Pattern[str]:
        return re.compile(text, re.I)

    return (
        (rename(old + r"(?:'s)?\s+(?:official\s+|new\s+)?name\s+is\s+now\s+" + new + _END), "corrects"),
        (rename(old + r"(?:\s+" + _THINGS + r")?\s+(?:is|has been|got|was)\s+(?:now\s+)?(?:officially\s+)?"
                r"(?:re)?(?:named|called|branded)\s+(?:to\s+|as\s+)?" + new + _END), "corrects"),
        (rename(r"\b(?:renamed|rebranded)\s+" + old + r"\s+(?:to|as)\s+" + new + _END), "corrects"),
        (rename(old + r"\s+is\s+dead,?\s+long\s+live\s+" + new + _END), "corrects"),
        (rename(r"\b(?:no\s+longer|not)\s+" + old + r"\b.*?\b(?:rebranded|renamed|called)\s+(?:it\s+)?" + new + _END),
         "corrects"),
        (rename(old + r"\s+got\s+a\s+new\s+name:?\s+(?:it'?s\s+)?" + new + _END), "corrects"),
        (rename(r"\b(?:renamed|rebranded)\s+(?:the|my|our)\s+" + _THINGS + r"\b.*?\b(?:it'?s|it\s+is|now)\s+"
                + new + _END), "{thing}_name"),
        (rename(r"\b(?:my|our)\s+" + _THINGS
                + r"\s+has\s+(?:now\s+)?(?:a\s+|another\s+|a\s+new\s+)?(?:new\s+)?name:?\s+" + new + _END),
         "{thing}_name"),
        (rename(r"\bnew\s+name\s+for\s+(?:the|my|our)\s+" + _THINGS + r":?\s+" + new + _END), "{thing}_name"),
        (rename(r"\b(?:an?|my|our)\s+" + _THINGS + r"\s+(?:with|under|by)\s+(?:the\s+)?name\s+" + new + _END),
         "{thing}_name"),
    )


# "Our project ECHO is now ABYSS": only between capitalised names ("Madrid is now home" renames nothing).
_IS_NOW = (re.compile(r"(?P<old>" + _CAP + r")\s+is\s+now\s+(?:officially\s+)?(?P<new>" + _CAP + r")" + _END),
           "corrects")
_CAPITALISED, _LOWERCASE = (*_patterns(_CAP), _IS_NOW), _patterns(_ANY)


def _bare(name: str) -> str:
    return re.sub(r"^the\s+", "", re.sub(r"'s$", "", name.strip(" .,'")), flags=re.I)


def _draft(m: re.Match[str], predicate: str, subject: str, display: str) -> FactDraft:
    new = m.group("new").strip(" .,'")
    if predicate == "corrects":
        old = _bare(m.group("old"))
        return FactDraft(subject=subject, predicate=predicate, object=new, statement=f"{old} is now called {new}.",
                         importance=0.75, revision=True, replaces=old)
    thing = re.sub(r"\W+", "_", m.group("thing").lower())
    possessive = display + ("'" if display.endswith("s") else "'s")
    return FactDraft(subject=subject, predicate=f"{thing}_name", object=new, importance=0.75, revision=True,
                     statement=f"{possessive} {m.group('thing').lower()} is called {new}.")


# "I can't eat shellfish, I'm allergic": the allergy names its object in another clause.
_ALLERGIC_TO_IT = re.compile(r"\b(?:can't|cannot|can\s+not|don't|never)\s+(?:eat|have|touch|drink|take)\s+"
                             r"(?P<obj>[\w -]+?),?\s+(?:because\s+|as\s+|since\s+)?I(?:'m|\s+am)\s+"
                             r"(?:severely\s+|very\s+|deathly\s+)?allergic\b(?!\s+to\b)", re.I)


def _allergy(sentence: str, subject: str, display: str) -> list[FactDraft]:
    m = _ALLERGIC_TO_IT.search(sentence)
    if m is None:
        return []
    obj = m.group("obj").strip()
    return [FactDraft(subject=subject, predicate="allergy", object=obj, statement=f"{display} is allergic to {obj}.",
                      importance=0.97, cardinality=Cardinality.MANY, critical=True)]


# "took my husband's name, so I'm Ana Novak now", "back to my maiden name, so it's Ms. Okafor now": a new
# surname, which replaces the one held (settled against the ledger as a bare correction of the "surname").
_NEW_SURNAME_CUE = re.compile(r"\b(?:took|take|taking|taken)\s+(?:my|his|her|their)\s+(?:husband|wife|partner|spouse)"
                              r"'s\s+(?:last\s+|family\s+|sur)?name\b|\bback\s+to\s+my\s+maiden\s+name\b", re.I)
_NOW_CALLED = re.compile(r"\b(?:I'm|I\s+am|it's|its|it\s+is)\s+(?:(?-i:Mrs|Ms|Miss|Mr|Mx|Dr)\.?\s+)?"
                         r"(?:(?-i:[A-Z][\w'-]+)\s+)?(?P<surname>(?-i:[A-Z][\w'-]+))\s+now\b")


def _new_surname(sentence: str, subject: str, display: str) -> list[FactDraft]:
    m = _NOW_CALLED.search(sentence) if _NEW_SURNAME_CUE.search(sentence) else None
    if m is None:
        return []
    surname = m.group("surname")
    return [FactDraft(subject=subject, predicate="corrects", object=surname, importance=0.75, revision=True,
                      statement=f"{display}'s surname is {surname} now.", slot="surname")]


# "Got married on Saturday!! I'm officially Sarah Okafor", "hyphenated after the wedding, so it's Emma
# Fitzgerald-Brooks on everything": a full name said after what changes one. "my maiden name, Desai": a surname.
_NAME_CHANGE_CUE = re.compile(r"\b(?:married|wedding|honeymoon|newlywed\w*|hitched|divorce\w*|hyphenated|deed\s+poll|"
                              r"changed\s+my\s+name|(?:legal|new)\s+name|legally)\b", re.I)
_FULL_NAME_NOW = re.compile(r"\b(?:I'm|I\s+am|it's|its|it\s+is)\s+(?:now\s+)?(?:all\s+|just\s+)?(?:officially\s+)?"
                            r"(?P<name>(?-i:[A-Z][\w'-]+)\s+(?-i:[A-Z][\w'-]+))(?=\s*(?:$|[,.!;)]|(?:now|these\s+days|"
                            r"officially|on\s+(?:everything|paper|my\s+\w+)|from\s+now\s+on)\b))")
_MAIDEN_NAME = re.compile(r"\bback\s+to\s+my\s+maiden\s+name,?\s+(?:which\s+is\s+)?(?P<surname>(?-i:[A-Z][\w'-]+))"
                          r"(?=\s*(?:$|[,.!;)]))")


_SOMEONE_ELSE = re.compile(r"\b(?:she|he|they|her|his|their|sister|brother|friend|cousin|mum|mom|dad|son|daughter|"
                          r"niece|nephew|aunt|uncle|colleague|coworker|boss)\b", re.I)


def _new_full_name(sentence: str, subject: str, display: str, message: str) -> list[FactDraft]:
    """A full name or a maiden name taken, in a message that says what changed it (``_NAME_CHANGE_CUE``)."""
    if _SOMEONE_ELSE.search(sentence) is not None or _NAME_CHANGE_CUE.search(message or sentence) is None:
        return []
    m = _FULL_NAME_NOW.search(sentence)
    if m is not None and all(could_be_a_name(word) for word in m.group("name").split()):
        return [FactDraft(subject=subject, predicate="name", object=m.group("name"), importance=0.85, revision=True,
                          statement=f"{display}'s name is {m.group('name')}.")]
    if (m := _MAIDEN_NAME.search(sentence)) is not None:
        return [FactDraft(subject=subject, predicate="corrects", object=m.group("surname"), importance=0.75,
                          revision=True, statement=f"{display}'s surname is {m.group('surname')} now.",
                          slot="surname")]
    return []


def rename_facts(sentence: str, subject: str, display: str, lowercase: bool, message: str = "") -> list[FactDraft]:
    """The renames (and an allergy named in another clause) a sentence of ``message`` states, each once."""
    found = _allergy(sentence, subject, display) + _new_surname(sentence, subject, display) \
        + _new_full_name(sentence, subject, display, message)
    for pattern, predicate in _LOWERCASE if lowercase else _CAPITALISED:
        m = pattern.search(sentence)
        if m and m.group("new").strip(" .,'").lower() not in ("it", "now", "a", "the"):
            found.append(_draft(m, predicate, subject, display))
    return found


def both_names(drafts: tuple[FactDraft, ...]) -> tuple[FactDraft, ...]:
    """"my name is Nguyen Van An but please call me Andy": a full name and the one used, said together, are
    one name held (the second would otherwise replace the first in the single name slot)."""
    names = [d for d in drafts if d.predicate == "name" and not d.negated and not d.revision]
    if len(names) != 2 or names[0].subject != names[1].subject:
        return drafts
    full, used = names
    if used.tentative or used.object.lower() in full.object.lower() or full.object.lower() in used.object.lower():
        return drafts  # a name others use ("everyone calls me Dave") never replaced the name held anyway
    display = full.statement.split("'s name is ", 1)[0]
    held = replace(full, object=f"{full.object} (goes by {used.object})",
                   statement=f"{display}'s name is {full.object}, and they go by {used.object}.")
    return tuple(held if d is full else d for d in drafts if d is not used)
