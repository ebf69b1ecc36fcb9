"""What says something stopped: the speaker's, or of someone they name (pure).

"I quit", "I'm not into X anymore", "no more X", "Stopped the fasting" (the "I" left out), and things ended
in other words: "retired from Shell", "my last day at Google", "sold my guitar", "I can't stand sushi".
Not "Don't quit!" (said to someone else), not "I won't quit" (a resolve), not a question. The write path
(``usecases/retractions``) retires the older episodes such a sentence names (``restatements.retired_by``)
and ends the beliefs it names.
"""

from __future__ import annotations

import re

from engram_core.core.restatements import _RELATIONS, _said, _statements
from engram_core.core.words import meaning

# "Carnivore lasted three weeks", "the all meat thing lasted 3 months": a thing tried and ended, named before.
_LASTED = (r"(?:only\s+|just\s+|barely\s+)?lasted\s+(?:(?:about|like|barely|only|just|a|one|two|three|four|five|six|"
           r"seven|eight|nine|ten|few|couple|of|\d+)\s+)+(?:days?|weeks?|months?|years?)(?=\s*(?:$|[,.;!]|lol|haha))")
# What ends a thing in other words, the thing named after it: "retired from Shell", "my last day at Google",
# "handed in my notice", "they let me go", "sold my guitar", "the band split up", "grew out of Taylor Swift",
# "hung up his boots", "pulled Ella out of Hillside", "I can't stand sushi", "cut coffee completely".
_ENDING = (r"retired\s+from|(?:just|finally|officially|has|have|had|'s|'ve)\s+retired|"
           r"last\s+(?:day|shift)\s+(?:at|with|of)|"
           r"(?:handed|handing|hand|put|putting|gave|giving|turned|turning)\s+in\s+(?:my|his|her|their|our)\s+notice|"
           r"let\s+(?:me|him|her|them|us)\s+go|sold\s+(?:my|his|her|their|our|the)|split\s+up|broke\s+up|disbanded|"
           r"(?:closed|shut)\s+down|gr[eo]wn?\s+out\s+of|outgrew|hung\s+up\s+(?:my|his|her|their|the)|"
           r"pulled\s+(?:\w+\s+)?out\s+of|(?:can'?t|cannot)\s+(?:even\s+)?(?:stand|stomach|face|handle|look\s+at)|"
           r"cut\s+(?:\w+\s+){1,2}?(?:completely|entirely|totally|out)|dropped\s+out\s+of|uninstalled|"
           r"deleted\s+(?:my\s+)?(?=(?-i:[A-Z]))|" + _LASTED + r"|"
           # "Left Blue Bottle, ...", "left Initech after six years"; not "Left Paris at 6am" (a trip)
           r"left\s+(?!(?-i:I)\b)(?-i:[A-Z])[\w'&-]*(?:\s+(?-i:[A-Z])[\w'&-]*){0,2}(?=\s*(?:$|[,.;!]|after\b|for\s+good|"
           r"behind|to\s+(?:join|work|start|go)\b))")
# A taste turned sour, said with when: "horror films just stress me out these days", "sushi grosses me out now".
_AVERSION = (r"(?:stress(?:es)?|bores?|annoys?|gross(?:es)?|puts?|turns?|depress(?:es)?|tires?|drains?|sickens?)\s+"
             r"me(?:\s+(?:out|off))?(?:\s+\w+)?\s+(?:these\s+days|nowadays|lately|now)")
_NO_IDIOM = r"(?:worries|problem|problems|rush|thanks|idea|way|clue|pressure|hurry|offence|offense)\b"
# Done with a thing for good, not for the day: "I'm done with beer for good", not "done with work for today".
_DONE_WITH = (r"(?:I'm|I\s+am|im)\s+(?:so\s+|totally\s+|completely\s+|officially\s+)?done\s+with\s+(?!(?:it|this|that|"
              r"work|today|you|him|her|them)\b)(?![\w\s]{0,30}\b(?:for\s+(?:today|tonight|now|the\s+day|the\s+week)|"
              r"yet)\b)")
# What says something stopped, and what makes it a resolve instead ("I won't quit", "never give up").
_STOP_WORD = re.compile(r"\b(?:anymore|any\s+more|any\s+longer|no\s+longer|no\s+more|"
                        r"stopped(?!\s+(?:by|at|in|off|for|over|to)\b)|quit|quitted|"  # "stopped at the café": a visit
                        r"gave\s+up|given\s+up|had\s+to\s+give\s+up|cut\s+out|not\s+\w+(?:ing)?\s+more|ditched|binned|"
                        r"(?:I'm|I\s+am|im)\s+off\s+(?!(?:to|work|today|tomorrow|tonight|sick|duty|home|now|out|for|on|"
                        r"at|in|the|my|our|a|an)\b)|"
                        r"dropped(?!\s+(?:off|by|in|out|me|him|her|them|it|the\s+kids))|(?:'s|\s+is|\s+are)\s+(?:over|(?:done|history|"
                        r"finish(?:ed)?|off\s+the\s+menu)(?=\s*(?:$|[,.;!]|since|now|for\s+(?:me|us|good)|after|because)))|(?:don'?t|do\s+not|never|rarely|hardly\s+ever)\s+(?:\w+\s+){1,5}?"
                        r"(?:these\s+days|nowadays)|"
                        # second-language "I have stop to drink wine", "I stop to work for the Parliament"
                        r"(?:have|has|had)\s+stop\s+to|(?<=\bI\s)stop\s+to(?=\s+(?:work|use|drink|eat|smoke|play|watch|"
                        r"follow|go|do)\b)|"
                        r"gone\s+(?:right\s+)?off|went\s+off|(?:I'm|I\s+am|im)\s+(?:so\s+)?over\s+(?=(?-i:[A-Z]))|"
                        r"lost\s+(?:its|their)\s+(?:shine|appeal|magic|charm)|lost\s+(?:all\s+)?interest\s+in|(?:is|'s)\s+dead\s+to\s+me|(?:isn'?t|is\s+not|'s\s+not|aren'?t|are\s+not)\s+for\s+me|"
                        r"(?:doesn'?t|does\s+not|don'?t|didn'?t)\s+(?:agree|work(?:\s+out)?)\s+(?:with|for)\s+me|"
                        # "horror just isn't doing it for me lately", "I'm done with beer for good"
                        r"(?:isn'?t|aren'?t|is\s+not|are\s+not)\s+doing\s+it\s+for\s+me|" + _DONE_WITH + "|"
                        r"(?<=\bno\s)(?!" + _NO_IDIOM + r")[\w'-]+\s+for\s+me(?=\s*(?:$|[.,;!]|now|anymore))|"
                        + _AVERSION + "|" + _ENDING + r")\b", re.I)
_OUTINGS = re.compile(r"\b(?:trip|holiday|vacation|visit|stay|tour|flight|journey|meeting|party|wedding|festival|"
                      r"conference|course|class|film|movie|show|game|storm|rain|heatwave|snow)s?\b", re.I)
_ASKING = re.compile(r"\W*(?:what|who|how|why|where|when|which)\b", re.I)
_ELIDED_CANT = re.compile(r"\s*(?:can'?t|cannot|couldn'?t)\b", re.I)
_SELF = re.compile(r"\b(?:I|I'm|I've|Im|Ive|we|we're|we've)\b", re.I)
_OTHERS = re.compile(r"\b(?:you|your|he|his|she|her|they|their)\b", re.I)
_RESOLVE = re.compile(r"\b(?:won't|will\s+not|never|can't|cannot|gonna|going\s+to|would|should|must)\b", re.I)
# What keeps "anymore" from saying a stop ("I wouldn't eat meat anymore if"); "can't" does not ("can't eat it anymore").
_WISH = re.compile(r"\b(?:would(?:n'?t)?|wud|should(?:n'?t)?|must|might|if)\b", re.I)
# Whose thing stopped, when not "I": "my knees can't take it anymore", "Dad retired", "sis dropped law", "Tom quit".
# Whom it belongs to is matched later (``same_people``, ``_named_person``).
_NOT_A_HOLDER = ("the|this|that|it|its|there|now|then|today|after|before|when|so|and|but|honestly|well|just|yes|no|oh|"
                 "ok|okay|lol|haha|yeah|sadly|finally|also|anyway|since|as|if|in|on|at|for|with|what|why|how|who|where|"
                 "which|not|last|next|every|some|all|our|your|their|his|her|these|those|we|you|they|he|she|don'?t|do|"
                 "never|please|let'?s|keep|try|go|maybe|hey|hi|wow|omg|guess")
_SOMEONE_NAMED = re.compile(r"\b(?:" + _RELATIONS + r"|boss|manager|colleague|friend|neighbou?r|teacher|partner)\b|"
                            r"^\W*(?-i:[A-Z])[a-z]+\s+(?:just\s+|really\s+)?(?-i:[a-z]+s)\s+me\b", re.I)
_HOLDER = re.compile(r"\bmy\b|^\W*(?:" + _RELATIONS + r"|(?!(?:" + _NOT_A_HOLDER + r")\b)(?-i:[A-Z])[\w'-]*)\b", re.I)


def clause_stops(clause: str) -> bool:
    """Whether one clause says something of the speaker's stopped (``stopping_sentences``), or of someone
    they name ("Dad retired from Shell"): any of its stop words, read with what comes before it."""
    return any(_stops_at(clause, found) for found in _STOP_WORD.finditer(clause))


def _stops_at(clause: str, found: re.Match[str]) -> bool:
    before, cue = clause[:found.start()], found.group(0).lower()
    if not before.strip() or cue.startswith("no ") or re.match(r"\s*not\b", before, re.I):
        return True  # "Stopped the fasting", "no more macchiatos", "no longer vegan", "not raw anymore"
    if re.match(_AVERSION, cue, re.I):  # a thing, not a person: "my boss stresses me out lately" ends nothing
        return _OTHERS.search(before) is None and _SOMEONE_NAMED.search(before) is None
    if cue.endswith(" me"):
        return _OTHERS.search(before) is None  # "bubble tea is dead to me", "clubbing isnt for me anymore"
    if _ELIDED_CANT.match(before) and cue.startswith("any"):
        return True  # "cant do spicy anymore": the "I" left out
    if "lasted" in cue and _OUTINGS.search(before):
        return False  # "the trip lasted two weeks": an outing ends, not a habit
    if cue.endswith(("over", "done", "history", "menu", "finish", "finished", "shine", "appeal", "magic", "charm")) \
            or "lasted" in cue:  # "it's over", "keto
        # lasted a week"; not "your shift is over", nor "what's he done"
        return _OTHERS.search(before) is None and _ASKING.match(before) is None
    self_at = [m.end() for m in _SELF.finditer(before)] or [m.end() for m in _HOLDER.finditer(before)]
    if not self_at or _OTHERS.match(before.lstrip()):
        return False  # "You quit?", "He stopped", "The rain stopped": no holder to match older memories by
    resolve = _WISH if cue.startswith("any") else _RESOLVE
    return resolve.search(before[self_at[-1]:]) is None  # "I can't eat spicy anymore" stops; "I can't quit" does not


# A question asked after a statement, in the same sentence: the statement before it still says what it says.
_ASKED_AFTER = re.compile(r",\s*(?:so\s+|and\s+|but\s+)?(?:what|how|which|where|who|why|any|can|could|should)\b"
                          r"[^.!?]*\?", re.I)
_ASKS_FROM_THE_START = re.compile(r"\s*(?:did|do|does|are|is|was|were|have|has|can|could|would|will|should|what|how|"
                                  r"why|where|who|which|when|so\s+you|you)\b", re.I)


def _asked_after_removed(said: str) -> str:
    """The text with a question asked after a statement in one sentence cut off, unless it asks from the start."""
    m = _ASKED_AFTER.search(said)
    if m is None:
        return said
    start = max(said.rfind(stop, 0, m.start()) for stop in ".!?") + 1
    return said if _ASKS_FROM_THE_START.match(said[start:]) else f"{said[:m.start()]}.{said[m.end():]}"


def stopping_sentences(text: str) -> str:
    """The sentences in which the speaker says something of theirs stopped: "I quit", "I'm not into X
    anymore", "no more X", "Stopped the fasting" (the "I" left out); not "Don't quit!" (said to someone
    else), not "I won't quit" (a resolve), not a question. Empty when there are none."""
    said = _asked_after_removed(_said(text))  # "I'm done with beer for good, what are some fun drinks?"
    if said.rstrip().endswith("?"):
        return ""
    return " ".join(c for c in _statements(said) if clause_stops(c))  # "Have you made any more art?" asks


# The thing an ending names after it: "retired from Shell", "left Blue Bottle", "quit rugby", "sold my guitar",
# up to three words, to the first word that starts another clause ("quit rugby after his knee injury").
_ENDED = re.compile(r"\b(?:retired\s+from|last\s+(?:day|shift)\s+(?:at|with|of)|notice\s+at|left|quit|"
                    # "stopped following football", "cancelled my gym membership", "I don't run anymore"
                    r"stopped\s+(?:following|watching|playing|doing|going\s+to|listening\s+to|reading)|"
                    r"stop\s+to\s+(?:work\s+for|use|drink|eat|play|watch|follow|go\s+to|do)|"
                    r"cancell?ed|(?:don'?t|do\s+not|no\s+longer)(?=\s+\w+\s+(?:anymore|any\s+more)\b)|"
                    r"(?:don'?t|do\s+not|no\s+longer)\s+(?:really\s+)?(?:enjoy|like|love|fancy)(?=\s+(?:[\w'&-]+\s+){1,3}?"
                    r"(?:anymore|any\s+more)\b)|done\s+with|"
                    r"dropped\s+out\s+of|dropped|ditched|uninstalled|deleted|"
                    r"sold|gr[eo]wn?\s+out\s+of|outgrew|pulled\s+(?:\w+\s+)?out\s+of|(?:can'?t|cannot)\s+(?:even\s+)?(?:stand|stomach|face|"
                    r"handle|look\s+at|take|do|eat|drink)|cut|gave\s+up|given\s+up)\s+(?:(?:the|a|an|my|his|her|their|our)\s+)?"
                    r"(?P<thing>[\w'&-]+(?:\s+(?!(?:after|for|to|and|but|because|so|since|as|now|anymore|completely|"
                    r"entirely|totally|out|last|this|in|at|on|when|then|too|again|is|was|are|were|will|has|had|with|"
                    r"from)\b)[\w'&-]+){0,2})", re.I)
_NOT_A_THING = frozenset("it that this them him her me us you job work smoking drinking everything".split())


def stopping_clauses(said: str) -> str:
    """The comma-separated clauses of ``said`` that say something stopped ("I handed in my notice at
    Deloitte", not "going to join my friend's studio"): whose the ended thing is."""
    return ", ".join(c for c in re.split(r",\s*", said) if clause_stops(c))


_LASTED_THING = re.compile(r"(?:^|[,;]\s*|\b(?:the|my|our|that|this)\s+)(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,2}?)"
                           r"(?:\s+(?:thing|diet|phase|experiment|challenge))?\s+" + _LASTED, re.I)


# "Honestly horror just isn't doing it for me lately", "Big cities just aren't my thing anymore": named before.
_THING_BEFORE = re.compile(r"\bno\s+(?!" + _NO_IDIOM + r")(?P<none>[\w'-]+)\s+for\s+me\b|"
                           r"(?P<thing>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:just\s+|really\s+|honestly\s+|simply\s+)?"
                           r"(?:isn'?t|aren'?t|is\s+not|are\s+not)\s+(?:doing\s+it\s+for\s+me|my\s+thing|for\s+me)",
                           re.I)
_FILLER = frozenset("honestly just really so but and well ok okay tbh lol also the my our these those".split())


def _named_before(said: str) -> list[str]:
    """The thing a sentence says is no longer one's thing, named before it, its filler words left out."""
    return [" ".join(w for w in (m.group("thing") or m.group("none")).split() if w.lower() not in _FILLER)
            for m in _THING_BEFORE.finditer(said)]


def ended_values(said: str) -> tuple[frozenset[str], ...]:
    """The words of each thing the stopping sentences ``said`` name as ended, by what follows the ending
    ("Dad retired from Shell": shell; "Jack quit rugby after his injury": rugby), or what comes before it
    ("Carnivore lasted three weeks"); none for "quit it"."""
    found = [*(m.group("thing") for m in _ENDED.finditer(said)),
             *(m.group("thing") for m in _LASTED_THING.finditer(said)), *_named_before(said)]
    return tuple(meaning(thing) for thing in found if thing.lower() not in _NOT_A_THING and meaning(thing))
