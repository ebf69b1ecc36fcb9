"""The offline "LLM": deterministic heuristics for importance, extraction, adjudication,
gists, dream proposals and a templated reply (pure: no I/O, no clock, no randomness).

Extraction is rule-based (see ``patterns``): a message is split into sentences and clauses; questions,
hypotheticals and reported speech are skipped; each clause runs through the rule table, and a clause that
only matches once its negation is removed yields a negated fact ("I no longer eat meat").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engram_core.adapters.offline import lexicon
from engram_core.adapters.offline import patterns as hp
from engram_core.adapters.offline import everyday
from engram_core.adapters.offline import updates as hu
from engram_core.adapters.offline.everyday import as_school
from engram_core.adapters.offline.adjudicate import normalise
from engram_core.adapters.offline.followons import firm_when_changed, follow_on
from engram_core.adapters.offline.negation import CHANGE_NEGATIONS, PLAIN_NEGATIONS, Negation, without_negation
from engram_core.adapters.offline.clauses import clauses, named_subject
from engram_core.adapters.offline.attributes import attribute_fact, bare_correction, left_for_later, renamed_value
from engram_core.adapters.offline.switches import correction_of, switch
from engram_core.adapters.offline.objects import clean_object, list_items, names_no_value, usable_object
from engram_core.adapters.offline.renames import both_names, rename_facts
from engram_core.adapters.offline.scope import (
    NOBODY_NAMED, Person, Placed, Scope, called_me, opens_with_third_party, place, skip_reason, with_subject,
)
from engram_core.core.chattext import normalise_chat, without_quotes
from engram_core.core.model import FactDraft

# -- text preparation ----------------------------------------------------------------

_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": "", "”": "", '"': "", "…": "...", "–": "-", "—": "-"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# "Did I tell you ..." and "just so you know ..." introduce a statement, not a question.
_DISCLOSURE = re.compile(
    r"^(?:(?:did|have)\s+I\s+(?:ever\s+)?(?:tell|told|mention(?:ed)?)\s+you|do\s+you\s+(?:know|remember)|"
    r"(?:I\s+)?(?:already\s+)?told\s+you|you\s+know|(?:please\s+)?remember|(?:please\s+)?note|keep in mind|"
    r"just so you know|fyi|for the record|I'd like you to know|I want you to know)\s*(?:that\s+|,\s*)?", re.I)
QUESTION_START = re.compile(
    r"^(?:where|what|what's|whats|who|whom|whose|when|why|how|which|do|does|did|is|are|am|was|were|can|could|"
    r"would|will|should|shall|have|has|may)\b", re.I)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|suppose|supposing|imagine|hypothetically|pretend|wish|wished|unless|whether|would|wouldn't|"
    r"could|couldn't|might|maybe|perhaps|probably)\b|\b(?:I|we|you)'d\b", re.I)
_REPORTED = re.compile(r"\b(?:(?:he|she|they|someone|somebody)\s+(?:said|says|told|tells|thinks|claims)|you\s+(?:wrote|"
                       r"put|listed|said|thought|assumed|have\s+me\s+(?:as|at|in))\s+(?:that\s+)?I)\b", re.I)
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|Im|me|my|mine|we|we're|our|us)\b", re.I)

# -- drafting ------------------------------------------------------------------------

_REVISION_CUE = re.compile(
    r"\b(?:actually|now|nowadays|these days|lately|anymore|any more|no longer|switched|changed|instead|moved|"
    r"relocated|renamed|joined|started|became|got promoted|since then|from now on|recently|update)\b"
    r"|\b(?-i:new)\b", re.I)
_VERB_3RD = {"love": "loves", "like": "likes", "enjoy": "enjoys", "adore": "adores", "dig": "digs",
             "hate": "hates", "dislike": "dislikes", "detest": "detests", "loathe": "loathes",
             "despise": "despises", "don't like": "doesn't like", "do not like": "doesn't like",
             "don't enjoy": "doesn't enjoy"}
_FIRST_PERSON_WORDS = re.compile(r"\b(?:my|our|me|us|mine|ours|myself|ourselves)\b", re.I)
_THIRD_PERSON = {"my": "their", "our": "their", "me": "them", "us": "them", "mine": "theirs", "ours": "theirs",
                 "myself": "themselves", "ourselves": "themselves"}
CRITICAL = re.compile(
    r"\b(?:allerg\w*|anaphyla\w*|epi-?pens?|intoleran\w*|c[o]?eliac|diabet\w*|insulin|asthma\w*|epilep\w*|"
    r"seizures?|pacemaker|blood thinners?|warfarin|pregnan\w*|heart condition|emergency contact|suicid\w*|"
    r"self[- ]harm|overdose|medication)\b", re.I)


@dataclass(frozen=True)
class _Context:
    subject: str
    display: str
    cue_text: str  # clause plus what precedes it in the sentence, for revision cues
    lowercase: bool = False  # the message has no capitals at all


def _possessive(display: str) -> str:
    return display + ("'" if display.endswith("s") else "'s")


def _with_article(obj: str) -> str:
    if re.match(r"(?:a|an|the|my)\s", obj, re.I):
        return obj
    return ("an " if obj[:1].lower() in "aeiou" else "a ") + obj


def _negated_statement(positive: str, display: str, plain: bool) -> str:
    """"The user lives in X." becomes "The user no longer lives in X." (or "does not live in X")."""
    if positive.startswith(_possessive(display)) or re.match(re.escape(display) + r" (?:is|can) ", positive):
        word = "not" if plain else "no longer"
        negated = re.sub(r" (is|can) ", lambda m: f" {m.group(1)} {word} ", positive, count=1)
        return negated if negated != positive else f"{'Not' if plain else 'No longer'} true: {positive}"
    rest = positive[len(display) + 1:]
    if not plain:
        return f"{display} no longer {rest}"
    verb, _, tail = rest.partition(" ")
    base = {"has": "have", "does": "do", "goes": "go"}.get(verb, re.sub(r"(?:(?<=[^aeiou])ies$)", "y", verb))
    base = base[:-2] if re.search(r"(?:ch|sh|ss|x)es$", base) else base.removesuffix("s")
    return f"{display} does not {base} {tail}"


def _predicate_for(rule: hp.Rule, m: re.Match[str], obj: str) -> str:
    groups = m.groupdict()
    if rule.predicate == "prefers_?":
        topic = lexicon.topic_of(obj)
        return f"prefers_{topic}" if topic else "prefers"
    if "{topic}" in rule.predicate:
        return "prefers_" + lexicon.topic_slug(groups["topic"])
    if "{rel}" in rule.predicate:
        return rule.predicate.replace("{rel}", lexicon.relation_predicate(groups["rel"]))
    if "{thing}" in rule.predicate:
        return rule.predicate.replace("{thing}", re.sub(r"\W+", "_", groups["thing"].lower()))
    return rule.predicate


def spec_for(predicate: str) -> hp.PredicateSpec:
    if predicate in hp.PREDICATES:
        return hp.PREDICATES[predicate]
    if predicate in hu.SPECS:
        return hu.SPECS[predicate]
    if predicate in everyday.SPECS:
        return everyday.SPECS[predicate]
    if predicate.endswith("_name") and not predicate.startswith(("family_", "pet_")):
        return hu.THING_NAME
    if predicate.startswith("prefers_"):
        return hp.TOPIC_PREFERENCE
    return hp.RELATION_COUNT if predicate.endswith("_count") else hp.RELATION


def _third_person(obj: str) -> str:
    """"my thesis" reads "their thesis" in a statement about the user."""
    return _FIRST_PERSON_WORDS.sub(lambda m: _THIRD_PERSON[m.group(0).lower()], obj)


def _spoken_topic(groups: dict[str, str | None], predicate: str) -> str:
    """The topic as said ("dish"), or as inferred from the object ("drink" for "black coffee")."""
    said = groups.get("topic") or predicate.removeprefix("prefers_").replace("_", " ")
    return " ".join(lexicon.TOPIC_HEDGES.sub(" ", said.lower()).split())


def _statement(rule: hp.Rule, spec: hp.PredicateSpec, m: re.Match[str], obj: str, predicate: str,
               ctx: _Context) -> str:
    groups = m.groupdict()
    verb = (groups.get("verb") or "").lower()
    spoken = _third_person(obj)
    return (rule.template or spec.template).format(
        d=ctx.display, p=_possessive(ctx.display), o=spoken, ao=_with_article(spoken),
        rel=(groups.get("rel") or "").lower(), topic=_spoken_topic(groups, predicate),
        thing=(groups.get("thing") or "").lower(), v=_VERB_3RD.get(verb, verb or rule.predicate))


def _draft(rule: hp.Rule, m: re.Match[str], obj: str, ctx: _Context, negation: Negation) -> FactDraft:
    predicate = as_school(_predicate_for(rule, m, obj), obj, ctx.subject)
    spec = spec_for(predicate)
    statement = _statement(rule, spec, m, obj, predicate, ctx)
    negated = rule.negated or negation is not Negation.NONE
    if negated:
        statement = _negated_statement(statement, ctx.display, plain=negation is Negation.PLAIN)
    critical = spec.critical or (predicate.startswith("family_") and CRITICAL.search(obj) is not None)
    cue = _REVISION_CUE.search(ctx.cue_text.replace(obj, " ")) is not None
    return FactDraft(
        subject=ctx.subject, predicate=predicate, object=obj, statement=statement, kind=spec.kind,
        importance=max(spec.importance, 0.95 if critical else 0.0), cardinality=spec.cardinality,
        negated=negated, critical=critical, revision=rule.revision or negation is Negation.CHANGE or cue,
        tentative=rule.tentative)


def _raw_objects(rule: hp.Rule, m: re.Match[str]) -> list[str]:
    raw, who = m.group("obj"), m.groupdict().get("who")
    if names_no_value(raw, rule.predicate):
        return []
    if who and rule.predicate == "{rel}":
        raw = f"{who} {raw}"  # "my sister Ana lives in Porto": the name belongs to the object
    if rule.listy and not raw.lower().startswith("how to "):
        return list_items(raw)
    return [raw]


def _drafts_from_match(rule: hp.Rule, m: re.Match[str], ctx: _Context, negation: Negation) -> Iterable[FactDraft]:
    single = not rule.listy
    for raw in _raw_objects(rule, m):
        obj = clean_object(raw, rule.predicate, single=single, keep_time=rule.keep_time)
        checked = obj if rule.check_group == "obj" else m.group(rule.check_group)
        # A user who writes all in lower case names places in lower case too ("moved to hamburg").
        if ctx.lowercase:
            checked = checked[:1].upper() + checked[1:]
        if usable_object(obj) and (rule.check is None or rule.check(checked)):
            yield _draft(rule, m, obj, ctx, negation)


ALL_RULES: tuple[hp.Rule, ...] = hp.RULES + hu.RULES + everyday.RULES


def _apply_rules(clause: str, ctx: _Context, negation: Negation,
                 rules: tuple[hp.Rule, ...] = ALL_RULES) -> list[FactDraft]:
    """Every rule that matches the clause; a later rule never repeats an earlier rule's object."""
    first_person = FIRST_PERSON.search(clause) is not None
    found: dict[str, FactDraft] = {}
    for rule in rules:
        if (rule.first_person and not first_person) or (negation is not Negation.NONE and not rule.negatable):
            continue
        m = rule.pattern.search(clause)
        for draft in _drafts_from_match(rule, m, ctx, negation) if m else ():
            key = normalise(draft.object)
            if key not in found or (found[key].tentative and not draft.tentative):  # a firmer reading wins
                found[key] = draft
    return list(found.values())


_GRADUATED = re.compile(r"\bI\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)?(?:graduated|finished\s+(?:the\s+|my\s+)?"
                        r"(?:university|uni|college|degree|studies|master'?s|phd))\b", re.I)


_LONG_AGO = re.compile(r"\b(?:in\s+\d{4}|ago|back\s+in|back\s+then)\b", re.I)


# ", not the twelfth" closing a clause: the value it denies, which the clause's rules must not read as negated.
_CORRECTED_TAIL = re.compile(r",\s*not\s+(?!(?:sure|really|bad|yet|now|ever|always|too|so|that|much|very|even|only|"
                             r"just|quite|like|at\s+all)\b)(?:(?:the|a|an|at|on|in)\s+)?[\w' -]{1,40}$", re.I)


def _is_question(clause: str) -> bool:
    return clause.rstrip().endswith("?") or QUESTION_START.match(clause) is not None


def _clause_facts(clause: str, ctx: _Context) -> list[FactDraft]:
    statement = _DISCLOSURE.sub("", clause, count=1)
    disclosed = statement != clause
    if (_is_question(statement) and not disclosed) or _HYPOTHETICAL.search(statement) or _REPORTED.search(statement):
        return []
    statement = statement.rstrip("?")
    if _CORRECTED_TAIL.search(statement) and correction_of(statement, ctx.subject, ctx.display) is None:
        statement = _CORRECTED_TAIL.sub("", statement)  # "the 21st, not the twelfth": the value said, not the denied
    if (switched := switch(statement, ctx.subject, ctx.display)) is not None:
        draft, rest = switched
        return [draft, *(_apply_rules(rest, ctx, Negation.NONE) if rest else [])]
    changed = without_negation(statement, CHANGE_NEGATIONS)
    found = _apply_rules(changed, ctx, Negation.CHANGE) if changed else []
    found = found or _apply_rules(statement, ctx, Negation.NONE)
    if not found and not changed and (correction := correction_of(statement, ctx.subject, ctx.display)):
        return [correction]
    plain = None if found or changed else without_negation(statement, PLAIN_NEGATIONS)
    found = found or (_apply_rules(plain, ctx, Negation.PLAIN) if plain else [])
    # "Ravi graduated": no longer a student, whatever comes next (tentative: it ends only a held "student").
    if _GRADUATED.search(statement) and not _LONG_AGO.search(statement):
        found.append(FactDraft(subject=ctx.subject, predicate="job_title", object="student",
                               statement=f"{ctx.display} is no longer a student.", negated=True, revision=True,
                               tentative=True))
    if not found and not changed and not plain and (attribute := attribute_fact(statement, ctx.subject, ctx.display)):
        return [attribute]
    return found


def _disclosure_removed(clause: str) -> str:
    """"Did I tell you I moved to Munich?" states "I moved to Munich"."""
    stripped = _DISCLOSURE.sub("", clause, count=1)
    return stripped.rstrip("?").rstrip() if stripped != clause else clause


def _person_context(person: Person, ctx: _Context) -> _Context:
    """Another person's facts, relative to whoever speaks: "The user's sister", "Caroline's sister"."""
    if ctx.subject == "user" or not person.display.startswith("The user's "):
        return _Context(person.subject, person.display, ctx.cue_text, ctx.lowercase)
    relation = person.display.removeprefix("The user's ")
    return _Context(f"{ctx.subject} {relation}", f"{_possessive(ctx.display)} {relation}", ctx.cue_text,
                    ctx.lowercase)


def _placed_facts(clause: str, placed: Placed, ctx: _Context) -> list[FactDraft]:
    """The facts of a placed clause: the user's, another person's (their naming stays the user's), or none."""
    if _is_question(clause.lstrip()):
        return []
    if placed.scope is Scope.USER:
        return _clause_facts(placed.text, ctx)
    naming = _apply_rules(clause, ctx, Negation.NONE, hp.NAMING_RULES) if placed.person else []
    if placed.scope is Scope.SKIP or placed.person is None:  # a clause about someone else always names them
        return naming
    facts = naming + _unnamed(_clause_facts(placed.text, _person_context(placed.person, ctx)), naming)
    called = {normalise(word) for word in called_me(clause)}  # "my dad calls me kiddo": no name of his
    return [d for d in facts if not (d.predicate == "name" and normalise(d.object) in called)]


def _unnamed(facts: list[FactDraft], naming: list[FactDraft]) -> list[FactDraft]:
    """"My niece is called Sofia" names the niece once (the user's niece is Sofia), not again as her own
    name: a later "my niece is Sophie, not Sofia" then corrects the one belief that holds it."""
    names = {normalise(d.object) for d in naming}
    return [d for d in facts if not (d.predicate == "name" and normalise(d.object) in names)]


_ABBREVIATION = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Jr|Sr|Mt|vs|etc|approx|no)\.$", re.I)


def sentences(text: str) -> list[str]:
    """Sentences of chat text, with other people's quoted words left out and chat shorthand expanded."""
    cleaned = normalise_chat(without_quotes(text.translate(_QUOTES)))
    cleaned = re.sub(r"(?<!\w)'|'(?!\w)", "", cleaned)
    merged: list[str] = []
    for piece in (s.strip() for s in _SENTENCE_END.split(cleaned) if s and s.strip()):
        if merged and _ABBREVIATION.search(merged[-1]):  # "Call me Dr. Sam." is one sentence
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged


def _renames(sentence: str, subject: str, display: str, lowercase: bool, text: str) -> list[FactDraft]:
    if _is_question(sentence) or _HYPOTHETICAL.search(sentence) or skip_reason(sentence):
        return []
    return rename_facts(sentence, subject, display, lowercase, text)


def _carried_subject(clause: str, before: Placed | None) -> Placed | None:
    """"sis qualified as a pharmacist n moved to Lloyds": a clause with its subject left out goes on
    about whoever the sentence's previous clause was about."""
    if before is None or (before.scope is not Scope.OTHER and before.reason != NOBODY_NAMED):
        return None
    text = with_subject(clause)
    if text == clause:
        return None
    if before.person is None:  # "she quit violin and started cello", nobody named: not the user's either
        return Placed(Scope.SKIP, text, reason=NOBODY_NAMED)
    why = skip_reason(text)
    return Placed(Scope.SKIP, text, before.person, why) if why else Placed(Scope.OTHER, text, before.person)


def last_person(text: str) -> Person | None:
    """The person the text names last: whom a "she" opening the next message means (no fact is read)."""
    last: Person | None = None
    for sentence in sentences(text):
        before: Placed | None = None
        for _, said in clauses(sentence):
            clause = _disclosure_removed(said)
            placed = _carried_subject(clause, before) or place(clause, last)
            last, before = placed.person or last, placed
    return last


def extract_facts(text: str, subject: str = "user", display: str = "The user",
                  earlier: str = "") -> tuple[FactDraft, ...]:
    """Personal facts stated in ``text``, in order, one per (subject, predicate, object); ``earlier``, the
    speaker's previous message, only says whom a "he" or "she" before any name in ``text`` means."""
    drafts: dict[tuple[str, str, str], FactDraft] = {}
    last: Person | None = last_person(earlier) if earlier else None  # the person "he" or "she" refers to
    lowercase = text == text.lower()
    unclaimed: list[str] = []  # the user's own clauses that stated nothing
    told = f"{earlier} {text}"
    for sentence in sentences(text):
        said_values = {normalise(d.object) for d in drafts.values()}
        before: Placed | None = None  # the sentence's previous clause
        for lead, said in clauses(sentence):
            clause = _disclosure_removed(said)
            placed = _carried_subject(clause, before) or place(clause, last)
            last, before = placed.person or last, placed
            last = None if opens_with_third_party(clause) else (  # "his brother changed career, he is ..."
                last if placed.person else named_subject(clause, told, last))
            stated = _placed_facts(clause, placed, _Context(subject, display, f"{lead} {clause}", lowercase))
            for draft in stated:
                drafts.setdefault((draft.subject, draft.predicate, normalise(draft.object)), draft)
            if placed.scope is Scope.USER and not stated:
                unclaimed.append(said)
        found = {normalise(d.object) for d in drafts.values()} - said_values
        for draft in _renames(sentence, subject, display, lowercase, told):  # a rename unless a clause rule said it
            key = (draft.subject, draft.predicate, normalise(draft.object))
            if (held := drafts.get(key)) is not None and held.tentative:  # firm after a wedding: "I'm Ana Novak"
                drafts[key] = draft
            elif draft.predicate == "allergy" or normalise(draft.object) not in found:
                drafts.setdefault(key, draft)
    if (after := follow_on(text, drafts.values(), subject, display)) is not None:
        drafts.setdefault((after.subject, after.predicate, normalise(after.object)), after)
    if not drafts and subject == "user":
        return _bare_update(text, display)
    if subject == "user" and unclaimed and not any(d.subject == subject for d in drafts.values()):
        # only others' facts: the user's own words may still give a held value anew ("Is Dimitar, he is Bulgarian")
        return firm_when_changed((*_bare_update(". ".join(unclaimed), display), *drafts.values()), text, earlier)
    switched = left_for_later(text, display) if subject == "user" else None
    if switched is not None and not any(d.replaces for d in drafts.values()):
        old = normalise(switched.replaces or "")
        kept = [d for d in drafts.values() if not (d.negated and normalise(d.object) == old)]
        return (switched, *kept)
    return both_names(firm_when_changed(tuple(drafts.values()), text, earlier))


# "Is Dimitar, he is Bulgarian.": "it is" without its "it" in many learners' English, not a question.
_LEARNER_IT_IS = re.compile(r"^is\s+(?-i:[A-Z][\w'-]+)(?:\s+(?-i:[A-Z][\w'-]+))?\s*(?:[,.!]|$)", re.I)


def _bare_update(text: str, display: str) -> tuple[FactDraft, ...]:
    """A message that states no fact of its own but a new value for a held one: a correction that says
    only the value ("nvm its july 27"), or a name said to hold now for a slot it names."""
    said = sentences(text)
    asked = [s for s in said if _is_question(s) and not _LEARNER_IT_IS.match(s)]
    if not said or asked or any(_HYPOTHETICAL.search(s) or skip_reason(s) for s in said):
        return ()
    found = bare_correction(" ".join(said), display)
    if found is None:
        found = next((d for s in said if (d := renamed_value(s, display)) is not None), None)
    return (found,) if found else ()
