"""Changes told in one short everyday sentence (pure data: rules in the form of ``patterns``, run after
``updates``): "Just signed a lease in Ljubljana!", "Got hired as a lab technician", "the dog goes by
Pretzel these days", "Doctor put me on a low-sodium diet".

Chat leaves the speaker out ("Packed up and headed to Darwin."), so a rule here may match a clause that
opens with its verb, or one whose subject is "I" or "we"; a clause about someone else is rewritten to
the first person before the rules run, so "Dad took a job as a bus driver" is the father's job.
"""

from __future__ import annotations

import re

from engram_core.adapters.offline.checks import capitalised, first_word_not_in, is_occupation, workplace
from engram_core.adapters.offline.lexicon import NOT_IN_JEST, NOT_NAMES, PASTIMES, topic_of
from engram_core.adapters.offline.patterns import ADV, DIETS, FACT, IM, ONE, REL, ROLE, PredicateSpec, Rule, name


SPECS = {"surname": PredicateSpec(ONE, FACT, "{p} surname is {o}.", 0.75)}


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# The speaker, said or left out: "I've just signed", "we finally", or the clause opening with its verb.
_OPEN = (r"^(?:(?:just|finally|so|and|ok|okay|well|officially|also|yay|update|news|big\s+news|today|btw|lol|"
         r"guess\s+who)[,:!]?\s+)*")
_SELF = r"(?:" + _OPEN + r"|\b(?:I|we)(?:'ve|\s+have)?\s+" + ADV + r")"
_PLACE = r"(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))"
_HOME_KIND = (r"(?:(?:new|little|tiny|small|big|one-bed|two-bed|\w+-bedroom|shared|rented)\s+)*"
              r"(?:flat|house|apartment|place|room|studio|cottage|bedsit|home|condo)")
_NO_TRIP = (r"(?![^,;.!?]*\b(?:for\s+(?:the|a)\s+(?:weekend|day|night|week|few\s+days)|trip|holiday|vacation|"
            r"conference|visit\w*)\b)")
# Long ago, not now: "Took a job at Google back in 2010", "as a teenager".
_NOT_PAST = (r"(?![^,.;!?]*\b(?:back\s+in|back\s+then|in\s+(?:19|20)\d\d|ago|"
             r"as\s+a\s+(?:kid|child|teen|teenager|student))\b)")
_TRIP = re.compile(r"\b(?:trip|holiday|vacation|weekend|conference|visit\w*|tour|airbnb|hotel|flight)\b", re.I)
_SCHOOL_WORDS = re.compile(r"\b(?:school|academy|primary|elementary|high|college|university|uni|kindergarten|"
                           r"nursery|preschool)\b", re.I)
_ORG_WORDS = re.compile(r"\b(?:inc|ltd|llc|corp|company|group|labs?|studio|agency|bank|hospital|clinic|office|"
                        r"team|department)\b", re.I)
_JOB_KINDS = (r"(?:(?:new|full-time|part-time|full\s+time|part\s+time|permanent|temporary|temp|proper|real|"
              r"dream)\s+)*(?:job|position|role|post|gig)")
# A word of a trade's name: "data analyst", not "on a secondment" (where one is for a while).
_ROLE_WORD = (r"(?!(?:on|in|at|a|an|the|my|our|off|out|with|to|for|from|so|not|no|here|there|back|now|just|really|"
              r"very|going|staying|visiting)\b)[a-z][\w-]*")
_FUNCTIONS = (r"QA|marketing|sales|HR|IT|accounting|accounts|design|engineering|research|admin|support|ops|operations|"
              r"finance|payroll|recruiting|recruitment|PR|legal|compliance|logistics|procurement|security|data|"
              r"customer\s+service|tech\s+support|product|content|communications|comms")
_NAME_END = r"(?=\s*(?:$|[,.;:!)]|(?:now|these\s+days|instead|from\s+now\s+on|officially|lol|haha)\b))"


def _not_a_trip(obj: str) -> bool:
    return capitalised(obj) and not _TRIP.search(obj) and not _SCHOOL_WORDS.search(obj)


_HOMES = (
    # "We are now in Ankara": where one is now, a home or a stay; a move said beside it makes it one.
    Rule("lives_in", _rx(r"\b(?:we(?:'re|\s+are)|I(?:'m|\s+am))\s+now\s+in\s+" + _PLACE + _NO_TRIP), revision=True,
         tentative=True, first_person=False, check=_not_a_trip),
    # "his company sent him to Doha, he moved last weekend": a move the employer made.
    Rule("lives_in", _rx(r"\b(?:company|firm|employer|work|job|bank|boss|agency)\s+(?:has\s+|have\s+|just\s+)?"
                         r"(?:sent|transferred|posted|relocated|moved)\s+(?:me|us)\s+(?:over\s+|out\s+)?to\s+" + _PLACE
                         + _NO_TRIP + r"(?![^,;.!?]*\b(?:for\s+(?:a|the|two|three|\d+)\s+(?:weeks?|months?|days?)|"
                         r"temporar\w*|secondment)\b)"), revision=True, first_person=False, check=_not_a_trip),
    # "I'm a Perth local now": where one lives, said as who one is there.
    Rule("lives_in", _rx(IM + r"(?:now\s+)?(?:an?\s+)?(?:proper\s+|official\s+)?" + _PLACE
                         + r"\s+(?:local|resident)\b"),
         check=_not_a_trip),
    # "Just signed a lease in Ljubljana!", "we signed the lease on a flat in Porto".
    Rule("lives_in", _rx(_SELF + r"signed\s+(?:a|the|our|my)\s+(?:new\s+)?(?:lease|tenancy|rental\s+(?:agreement|"
                         r"contract))\s+(?:(?:on|for)\s+(?:a|an|the|our|my)\s+" + _HOME_KIND + r"\s+)?in\s+" + _PLACE
                         + _NO_TRIP),
         revision=True, first_person=False, check=_not_a_trip),
    # "Packed up and headed to Darwin.": what a move leaves behind, then where to.
    Rule("lives_in", _rx(_SELF + r"packed\s+(?:everything\s+|it\s+all\s+)?up\s+(?:and\s+)?(?:(?:went|headed|moved|"
                         r"relocated|drove|flew)\s+(?:off\s+|out\s+|over\s+|down\s+|up\s+|back\s+)?to|left\s+for)\s+"
                         + _PLACE + _NO_TRIP), revision=True, first_person=False, check=_not_a_trip),
    # "Home for me is Arequipa.", "Lisbon is home for us".
    Rule("lives_in", _rx(r"^(?:(?:my|our)\s+)?home\s+(?:for\s+(?:me|us)\s+)?(?:these\s+days\s+|now\s+)?is\s+(?:in\s+)?"
                         + _PLACE), first_person=False, check=_not_a_trip),
    Rule("lives_in", _rx(r"^" + _PLACE + r"\s+is\s+(?:now\s+)?home\s+for\s+(?:me|us)\b"), first_person=False,
         check=_not_a_trip),
    # "My apartment in Sapporo is very cold": one's own home named by where it is ("my old flat" is not).
    Rule("lives_in", _rx(r"\bmy\s+(?:own\s+|new\s+|little\s+|tiny\s+|small\s+|rented\s+)*(?:apartment|flat|house|"
                         r"condo|studio|home)\s+(?:here\s+)?in\s+" + _PLACE), first_person=False, check=_not_a_trip),
    # "Finally made the big move to Kuching", "Started renting in Mérida", "Sis just took an apartment in Braga".
    Rule("lives_in", _rx(_SELF + r"(?:made|make|making)\s+(?:the|a|our|my)\s+(?:big\s+|final\s+)?move\s+"
                         r"(?:over\s+)?to\s+" + _PLACE + _NO_TRIP),
         revision=True, first_person=False, check=_not_a_trip),
    Rule("lives_in", _rx(_SELF + r"(?:started|begun|began|now)\s+renting\s+(?:(?:a|an|the|our|my)\s+" + _HOME_KIND
                         + r"\s+)?in\s+" + _PLACE), revision=True, first_person=False, check=_not_a_trip),
    Rule("lives_in", _rx(_SELF + r"(?:took|rented|found|leased|bought)\s+(?:a|an|our|my)\s+(?:own\s+)?" + _HOME_KIND
                         + r"\s+in\s+" + _PLACE + _NO_TRIP), revision=True, first_person=False, check=_not_a_trip),
    # "im in Peckham as of friday": where one is from a day on.
    Rule("lives_in", _rx(IM + r"(?:living\s+|based\s+)?in\s+" + _PLACE + r"\s+as\s+of\b"), revision=True,
         check=_not_a_trip),
)

# A title of up to three words, to where the sentence goes on: "associate attorney", "restaurant manager".
_TITLE = (r"(?P<obj>(?!(?:only|designated|best|worst|first|last|one|same|other|odd|boss\s+of)\b)[a-z][\w-]*"
          r"(?:\s+[a-z][\w-]*){0,2}?)(?=\s*(?:$|[,.;:!)]|(?:now|here|and|but|at|in|on|for|of|since|from|so|lol|haha)\b))")
_JOBS = (
    # "I got hired as a lab technician", "Took a full-time job as a court interpreter".
    Rule("job_title", _rx(_SELF + r"(?:got|was|been|get|getting)\s+hired\s+as\s+(?:an?\s+|the\s+)?" + ROLE),
         revision=True, first_person=False, check=is_occupation),
    Rule("job_title", _rx(_SELF + r"(?:took|taken|accepted|got|landed|started|starting|began)\s+(?:a|an|the|my)\s+"
                          r"(?:day\s+|night\s+|desk\s+|office\s+|summer\s+|weekend\s+)?" + _JOB_KINDS
                          + r"\s+as\s+(?:an?\s+|the\s+)?" + ROLE),
         revision=True, first_person=False, check=is_occupation),
    # "Retrained and working as a paramedic", "Took a job at Supercell".
    Rule("job_title", _rx(_SELF + r"(?:retrained\s+(?:and|as)\s+)?(?:now\s+)?working\s+as\s+(?:an?\s+)?" + ROLE),
         revision=True, first_person=False, check=is_occupation),
    Rule("works_at", _rx(_SELF + r"(?:took|accepted|got|landed|started)\s+(?:a|an|the)\s+(?:[a-z][\w-]*\s+){0,2}?"
                         + _JOB_KINDS
                         + r"\s+(?:at|with)\s+" + _PLACE + _NOT_PAST), revision=True, first_person=False,
         check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "I work as a pharmacist at Boots": the role's place of work, which the role's own rule cuts off.
    Rule("works_at", _rx(r"\bI\s+(?:work|am\s+working|'m\s+working|m\s+working)\s+"
                         r"(?:full[\s-]time\s+|part[\s-]time\s+)?as\s+(?:an?\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?"
                         r"\s+(?:at|for)\s+" + _PLACE + _NOT_PAST),
         check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "first shift at Kaiser tomorrow": the first of the work done somewhere.
    Rule("works_at", _rx(r"\b(?:my\s+)?(?:first|1st)\s+(?:shift|month|rota|roster|paycheck|payslip)\s+"
                         r"(?:at|with|for)\s+" + _PLACE), revision=True, first_person=False,
         check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "got hired as sous chef at Dishoom", "Got hired at Zoho": where one was hired.
    Rule("works_at", _rx(_SELF + r"(?:got|was|been|get|getting)\s+hired\s+(?:as\s+(?:an?\s+|the\s+)?[a-z][\w-]*"
                         r"(?:\s+[a-z][\w-]*){0,2}?\s+)?(?:at|by)\s+" + _PLACE + _NOT_PAST), revision=True,
         first_person=False, check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "I am journalist for Le Monde", "I'm a reporter for Reuters": the role's place, with the article left out, or
    # "for" (``patterns`` reads "I'm a nurse at Mercy hospital").
    *(Rule("works_at", _rx(IM + article + r"(?P<role>" + _ROLE_WORD + r"(?:\s+" + _ROLE_WORD + r"){0,2}?)\s+" + linked
                           + r"\s+" + _PLACE + _NOT_PAST), check=is_occupation, check_group="role")
      for article, linked in (("", "(?:at|for)"), (r"an?\s+", "for"))),
    # "I do QA at Spotify": a business function done somewhere ("I do yoga at Equinox" is no job).
    Rule("works_at", _rx(r"\bI\s+(?:now\s+|currently\s+|mostly\s+)?do\s+(?:the\s+)?(?:" + _FUNCTIONS + r")\s+"
                         r"(?:\w+\s+)?(?:at|for)\s+" + _PLACE + _NOT_PAST), first_person=False),
    # "I got job in Wipro", "I join to Santander bank", "Now I fly for Emirates": second-language and trade words.
    Rule("works_at", _rx(r"(?:" + _SELF + r"(?:got|found|take|took|get)\s+(?:a\s+|the\s+)?(?:new\s+)?job\s+"
                         r"(?:in|at|with)|"
                         r"\bI\s+(?:join|joined)\s+to)\s+" + _PLACE + _NOT_PAST), revision=True, first_person=False,
         check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "I'm with Turner Construction now": a firm one is with, by a word of its kind.
    Rule("works_at", _rx(IM + r"(?:now\s+)?with\s+" + _PLACE + r"\s+now\b"), revision=True,
         check=lambda o: _ORG_WORDS.search(o) is not None or workplace(o)),
    # "started at Kaiser Permanente on monday", "joined a small fintech called Brightwave", "doing deliveries for
    # DoorDash": a workplace by the day work began there, by its kind, or by the work done for it.
    Rule("works_at", _rx(_SELF + r"(?:started|began)\s+(?P<work>(?:work|working|my\s+job)\s+)?at\s+" + _PLACE
                         + r"(?(work)|(?=\s+(?:on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|last\s+(?:week|month)|"
                         r"this\s+(?:week|month)|yesterday|today)\b))" + _NOT_PAST), revision=True,
         first_person=False, check=lambda o: not _SCHOOL_WORDS.search(o)),
    Rule("works_at", _rx(_SELF + r"joined\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}?(?:company|startup|start-up|firm|fintech|"
                         r"agency|bank|studio|consultancy|practice|clinic|hospital|lab|charity|nonprofit|business|"
                         r"restaurant|cafe|café|bakery|salon|shop|store)\s+(?:called|named)\s+" + _PLACE + _NOT_PAST),
         revision=True, first_person=False),
    Rule("works_at", _rx(r"(?:^|\bI\s+|\bI'm\s+|\bim\s+)(?:now\s+)?(?:do|doing)\s+(?:deliveries|delivery|shifts|"
                         r"rides)\s+for\s+" + _PLACE + _NOT_PAST), revision=True, first_person=False),
    # "I write for Le Monde", "I drive for Uber most nights": whom the work is done for.
    Rule("works_at", _rx(r"(?:^|\bI\s+)(?:now\s+|mostly\s+|mainly\s+|currently\s+)?(?:write|drive|deliver|fly|"
                         r"freelance|cook|report)\s+for\s+" + _PLACE + _NOT_PAST),
         first_person=False, check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "Got the sous chef job!", "guess who got the head chef spot": the job named by its title ("got the new job"
    # names none).
    Rule("job_title", _rx(_SELF + r"(?:got|landed|accepted|took|start(?:ed|ing)?)\s+the\s+(?P<obj>[a-z][\w-]*"
                          r"(?:\s+[a-z][\w-]*){0,2}?)\s+(?:job|position|role|post|spot|gig)\b"),
         revision=True, first_person=False, check=is_occupation),
    # "First week as an associate attorney", "day one as shift lead": the first days of a job, by its title.
    Rule("job_title", _rx(r"\b(?:(?:my\s+)?(?:first|1st|second|2nd|third|3rd)\s+(?:day|week|month|shift)|day\s+one|"
                          r"week\s+(?:one|two|three|\d))\s+as\s+(?:an?\s+|the\s+)?" + _TITLE), revision=True,
         first_person=False, check=is_occupation),
    # "Now I am the restaurant manager", "I'm now the head of sales": a post taken ("I'm the driver today" is none).
    Rule("job_title", _rx(r"(?:\bnow,?\s+I(?:'m|\s+am|m)\s+|" + IM + r"now\s+)(?:the|their)\s+(?:new\s+)?" + _TITLE
                          + r"(?!\s+for\s+(?:my|his|her|our|their|the)\b)(?![^,.;!?]*\b(?:today|tonight)\b)"),
         revision=True, check=is_occupation),
    # "now she works like a doctor in a hospital": "like" for "as" in second-language English, a trade only.
    Rule("job_title", _rx(r"\bI\s+(?:now\s+)?(?:work|am\s+working|'m\s+working)\s+like\s+(?:an?\s+)?" + ROLE),
         check=is_occupation),
    # "I've been doing junior design work at a small studio called Foxglove & Pine": where the work is done.
    Rule("works_at", _rx(r"\bI(?:'ve|\s+have)?\s+(?:been\s+)?doing\s+(?:[\w-]+\s+){0,3}?work\s+(?:at|for)\s+(?:an?\s+"
                         r"(?:[\w-]+\s+){0,3}?(?:studio|company|firm|agency|startup|consultancy|practice|clinic|bakery|"
                         r"restaurant|cafe|shop|charity)\s+(?:called|named)\s+)?(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+(?:&\s+)?"
                         r"[A-Z][\w'-]*){0,3}))" + _NOT_PAST),
         revision=True, check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "he transfers to the technical university in Vienna": where one studies now, by its town.
    Rule("studies_at", _rx(r"\bI\s+(?:have\s+|'ve\s+)?(?:transfer(?:red|s)?|switch(?:ed|es)?|mov(?:ed|es))\s+to\s+"
                           r"(?:the\s+|a\s+)?(?:[\w-]+\s+){0,3}?(?:university|uni|college|academy|conservatory)\s+"
                           r"(?:in|of)\s+" + _PLACE),
         revision=True, first_person=False),
    # "they made me a data analyst!!", "the board appointed me head of sales": a post given.
    Rule("job_title", _rx(r"\b(?:made|promoted|appointed|named)\s+me\s+(?:an?\s+|the\s+)?(?:new\s+)?" + _TITLE),
         revision=True, first_person=False, check=is_occupation),
    # "as of this week I'm head chef", "so now I am team lead": a post of two words, the article left out.
    Rule("job_title", _rx(IM + r"(?:now\s+)?(?P<obj>(?:head|senior|junior|lead|chief|deputy|assistant|associate|staff|"
                          r"charge|ward|shift|team|store|floor|sous|night|general|project|product|office|area|regional|"
                          r"account|sales|marketing|finance|operations)\s+[a-z]+)(?=\s*(?:$|[,.;:!]|(?:now|at|in|for|of|"
                          r"since)\b))"),
         check=lambda o: is_occupation(o) and o.split()[-1] not in ("player", "member")),
    # "I said yes to an offer from Rolls-Royce", "accepted the offer from Arup": the firm whose offer was taken.
    Rule("works_at", _rx(_SELF + r"(?:said\s+yes\s+to|accepted|took)\s+(?:an|the|their)\s+(?:job\s+)?offer\s+"
                         r"(?:from|at|with)\s+" + _PLACE + _NOT_PAST), revision=True, first_person=False,
         check=lambda o: not _SCHOOL_WORDS.search(o)),
    # "the firm hired me on as an associate attorney", "got moved to dispatcher": a post given.
    Rule("job_title", _rx(r"\b(?:hired\s+me\s+(?:on\s+)?as|got\s+moved\s+(?:up\s+|over\s+)?to)\s+(?:an?\s+|the\s+)?"
                          + _TITLE),
         revision=True, first_person=False, check=is_occupation),
    # "guess whos officially social media manager now", "bar manager as of this week": a post said alone.
    Rule("job_title", _rx(r"\bguess\s+who'?s\s+(?:now\s+|officially\s+)*(?:an?\s+|the\s+)?(?:new\s+)?" + _TITLE),
         revision=True, first_person=False, check=is_occupation),
    Rule("job_title", _rx(r"(?:^|[:;,]\s*)(?P<obj>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+as\s+of\s+(?:this\s+\w+|today|"
                          r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|last\s+\w+|yesterday)\b"),
         revision=True, first_person=False, check=is_occupation),
    # "I have signed a contract with Safran": whom one works for now ("I'm with Dave since March" is no employer).
    Rule("works_at", _rx(_SELF + r"(?:have\s+|'ve\s+)?signed\s+(?:a|an|my|the)\s+(?:new\s+|permanent\s+|full-time\s+|"
                         r"job\s+|work\s+|employment\s+|two-year\s+|one-year\s+)?contract\s+(?:with|at)\s+" + _PLACE
                         + _NOT_PAST), revision=True, first_person=False, check=lambda o: not _SCHOOL_WORDS.search(o)),
)

_NAMES = (
    # "rabbits name is Pipsqueak": the apostrophe left out.
    Rule("{rel}", _rx(r"(?:^|\b(?:the|my|our)\s+)" + REL + r"s\s+name\s+is\s+" + name() + _NAME_END),
         first_person=False, check=first_word_not_in(NOT_NAMES), template="{p} {rel} is named {o}."),
    # "friends started calling me jojo", "my last name is Adeyemi".
    # "My mates call me Mags": what others call one only suggests a name (it fills an empty slot), unless it is
    # said to hold now or asked for ("everyone calls me Sasha now, please do too").
    Rule("name", _rx(NOT_IN_JEST + r"\b(?:call|calls)\s+me\s+" + name(any_case=True)),
         check=first_word_not_in(NOT_NAMES), negatable=False, tentative=True),
    Rule("name", _rx(NOT_IN_JEST + r"\b(?:call|calls)\s+me\s+" + name(any_case=True)
                     + r"(?=[^.!?]*\b(?:now|please|pls|plz|from\s+now\s+on|these\s+days|stuck)\b)"),
         check=first_word_not_in(NOT_NAMES), negatable=False, revision=True),
    # "my English name is Kevin", "my first name is Ana": one name of several, which fills an empty slot only.
    Rule("name", _rx(r"\bmy\s+(?:first|given|english|real|full)\s+name(?:'s|\s+is)\s+" + name(any_case=True)),
         check=first_word_not_in(NOT_NAMES), negatable=False, tentative=True),
    Rule("name", _rx(NOT_IN_JEST + r"\bnow,?\s+(?:\w+\s+){0,2}?(?:call|calls)\s+me\s+" + name(any_case=True)),
         check=first_word_not_in(NOT_NAMES), negatable=False, revision=True),  # "Now everybody calls me Leo"
    Rule("name", _rx(r"\b(?:started|start|began)\s+calling\s+me\s+" + name(any_case=True) + _NAME_END),  # by others
         revision=True, tentative=True, first_person=False, check=first_word_not_in(NOT_NAMES), negatable=False),
    # "Please use David when you talk to me", "I chose an English name, David": the name asked for or taken.
    *(Rule("name", _rx(pattern), revision=True, first_person=False, check=first_word_not_in(NOT_NAMES),
           negatable=False) for pattern in (
        r"\bplease\s+use\s+" + name() + r"(?=\s+(?:when(?:ever)?\s+you\s+(?:talk|speak|address|call|refer|write)|"
        r"instead\s+of\s+(?-i:[A-Z]))\b)",
        r"\b(?:chose|picked|took|adopted|use)\s+(?:an?|the)\s+(?:new\s+)?(?:\w+\s+)?name,\s+" + name() + _NAME_END,
        # "my name now is Aigerim Sadykova", "call me by my Chinese name, Wei"
        r"\bmy\s+name\s+(?:now|from\s+now\s+on)\s+is\s+" + name() + _NAME_END,
        r"\bcall\s+me\s+by\s+(?:my|the)\s+(?:\w+\s+)?name,?\s+" + name() + _NAME_END)),
    # "Everyone knows me as Bobby", "I'm known as Bea at work".
    Rule("name", _rx(r"\b(?:(?:knows?|knew)\s+me|I'?m\s+known)\s+as\s+" + name()
                     + r"(?=\s*(?:$|[,.;:!)]|at\s+work\b))"),
         first_person=False, check=first_word_not_in(NOT_NAMES), negatable=False),
    Rule("surname", _rx(r"\bmy\s+(?:last|family|sur)\s?name\s+is\s+(?:now\s+)?" + name() + _NAME_END),
         first_person=False, check=first_word_not_in(NOT_NAMES), negatable=False),
    # "I legally changed my name to Seun Adeyemi", "Got married, I'm Bartholomew Okafor".
    Rule("name", _rx(r"\b(?:I|I've|I\s+have)\s+" + ADV + r"(?:legally\s+|officially\s+)?changed\s+my\s+name\s+"
                     r"(?:legally\s+|officially\s+)?to\s+" + name() + _NAME_END),
         revision=True, check=first_word_not_in(NOT_NAMES), negatable=False),
    # "court approved it, im legally wren now": the name the law gives one now.
    Rule("name", _rx(IM + r"(?:now\s+)?(?:officially\s+)?legally\s+(?:called\s+)?(?!(?:blind|deaf|disabled|married|"
                     r"divorced|single|separated|allowed|an?|the|adult|dead|independent|entitled|bound|required)\b)"
                     + name(any_case=True) + r"(?=\s+now\b)"),
         revision=True, check=first_word_not_in(NOT_NAMES), negatable=False),
    Rule("name", _rx(r"\b(?:got|just\s+got|we\s+got)\s+married\b.*?\bI(?:'m|\s+am)\s+(?:now\s+|officially\s+)?"
                     r"(?P<obj>(?-i:[A-Z][\w'-]+\s+[A-Z][\w'-]+))" + _NAME_END),
         revision=True, first_person=False, negatable=False),
)

_WHEN = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|now\s+on|the\s+\w+|"
         r"next\s+\w+|this\s+\w+)")
_DIETS = (
    # "thats it for me, fully plant based from monday": a diet taken up from a day on.
    Rule("diet", _rx(r"(?:^|,\s*)(?:(?:so|now|fully|full|strictly|totally|going)\s+)*(?P<obj>" + DIETS + r")\s+"
                     r"(?:from|as\s+of|since|starting)\s+" + _WHEN + r"\b"), revision=True, first_person=False),
    # "Three months vegetarian now", "so pescatarian now I guess": the diet kept now, said alone.
    Rule("diet", _rx(r"^(?:(?:so|and|but|ok|okay|well|yep|yup|officially)\s+)*(?:(?:\w+|\d+)\s+(?:days?|weeks?|months?|"
                     r"years?)\s+)?(?:fully\s+|strictly\s+|officially\s+)?(?P<obj>" + DIETS + r")\s+now\b"),
         revision=True, first_person=False),
    # "so I have no restriction anymore", "I can eat anything again": a diet ended, nothing left out.
    Rule("eats", _rx(r"\bI\s+(?:have|'ve\s+got|got)\s+(?P<obj>no\s+(?:more\s+)?(?:dietary\s+|food\s+)?restrictions?)\s+"
                     r"(?:anymore|any\s+more|now)\b"), revision=True, template="{d} has {o} on what they eat."),
    Rule("eats", _rx(r"\bI\s+can\s+(?:now\s+)?eat\s+(?P<obj>anything|everything)\s+(?:again|now)\b"),
         revision=True),
    # "shes doing intermittent fasting now", "I'm on low carb now": a way of eating kept now.
    Rule("diet", _rx(IM + r"(?:now\s+)?(?:doing|on|following|trying)\s+(?:the\s+|an?\s+)?(?P<obj>intermittent\s+"
                     r"fasting|whole\s?30|low[\s-]carb|low[\s-]fat|" + DIETS + r")(?=\s+(?:now|these\s+days)\b)"),
         revision=True),
    # "so I must eat gluten free": a diet one is bound to.
    Rule("diet", _rx(r"\bI\s+(?:must|have\s+to|need\s+to|gotta|got\s+to)\s+(?:eat|go|be|stay|keep)\s+"
                     r"(?:fully\s+|strictly\s+)?(?P<obj>" + DIETS + r")\b(?![^,.;!?]*\b(?:someday|one\s+day|soon)\b)"),
         revision=True),
    # "Doctor put me on a low-sodium diet", "My nutritionist has me on a high-protein plan".
    Rule("diet", _rx(r"\b(?:put|puts|has|have|got|keeps)\s+me\s+on\s+(?:a|an|the)\s+(?:strict\s+)?"
                     r"(?P<obj>[\w-]+(?:\s+[\w-]+)?)\s+(?:diet|(?:meal|eating|food|nutrition)\s+plan)\b"),
         revision=True, first_person=False, check=lambda o: o.lower() not in {"new", "good", "better", "healthy"}),
    Rule("diet", _rx(r"\b(?:put|puts|has|have|got|keeps)\s+me\s+on\s+(?:a|an|the)\s+(?:strict\s+)?"
                     r"(?P<obj>(?:low|high|no|zero|reduced)[\s-](?:carb|protein|sodium|salt|fat|sugar|calorie|fibre|"
                     r"fiber|fodmap)|" + DIETS + r")\s+plan\b"), revision=True, first_person=False),
    # "eating flexitarian these days", "Trying the Mediterranean diet these days".
    Rule("diet", _rx(r"\beating\s+(?P<obj>" + DIETS + r")\s+(?:these\s+days|now|lately|nowadays)\b"), revision=True,
         first_person=False),
    Rule("diet", _rx(_SELF + r"(?:now\s+)?(?:trying|doing|following|follow|started|starting)\s+(?:(?:the|a|an)\s+)?"
                     r"(?P<obj>[\w-]+(?:\s+[\w-]+)?)\s+diet\b"),
         revision=True, first_person=False, check=lambda o: o.lower() not in {"new", "same", "other", "whole"}),
)

_DIET_WE = (
    # "we are vegetarians now": a household's diet is the speaker's ("vegan recipes" are not a diet kept).
    Rule("diet", _rx(r"\bwe(?:'re|\s+are)\s+(?:now\s+|both\s+|all\s+|fully\s+|officially\s+)*(?P<obj>" + DIETS
                     + r")s?\b(?!\s+(?:food|recipes?|restaurants?|options?|friends?|dish(?:es)?|meals?|places?)\b)"),
         first_person=False),
)

_TEAM_END = r"(?=\s*(?:$|[,.;:!)]|(?:now|these\s+days|(?:from\s+)?this\s+season|lately|instead|again)\b))"
_TASTES = (
    # "I've started supporting Boca Juniors", "Been cheering for the Denver Nuggets this season".
    Rule("prefers_team", _rx(r"(?:" + _SELF + r"|" + IM + r")(?:(?:started|begun|began|been|now)\s+)?(?:supporting|"
                             r"rooting\s+for|cheering\s+"
                             r"(?:for|on))\s+(?:the\s+)?(?P<obj>(?-i:[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}))"
                             + _TEAM_END),
         revision=True, first_person=False, check=lambda o: len(o.split()) > 1 or o.endswith(("s", "ian", "ans"))),
    # "My go-to is a cortado these days": what one usually has, of a kind the lexicon knows.
    Rule("prefers_?", _rx(r"\b(?:my\s+)?go-?to(?:\s+(?:drink|coffee|order|snack|meal|breakfast|lunch|dinner|food|beer|"
                          r"wine|tea))?\s+(?:is|are)\s+(?:now\s+)?(?:an?\s+)?(?P<obj>[\w' -]+?)"
                          r"(?=\s*(?:$|[,.;!]|(?:these\s+days|now|lately|at\s+the\s+moment)\b))"),
         revision=True, first_person=False, check=lambda o: topic_of(o) is not None),
    # "Now only mineral water.": what one has from now on, of a topic.
    Rule("prefers_?", _rx(r"^(?:and\s+|so\s+)?(?:now|these\s+days|nowadays)\s*,?\s+(?:only|just|mostly)\s+"
                          r"(?P<obj>[\w' -]+?)(?=\s*[.!]*$)"), revision=True, first_person=False,
         check=lambda o: topic_of(o) is not None),
    # "ramen's my favourite now", "matcha latte is my morning thing": a favourite of a kind the lexicon knows, new
    # when said so ("now", "these days").
    *(Rule("prefers_?", _rx(r"(?:^|[,;:]\s*|\b(?:so|and|but|now)\s+)(?P<obj>[\w'-]+(?:\s+[\w'-]+){0,2}?)(?:'s|\s+is)\s+"
                            r"(?:now\s+)?my\s+(?:new\s+)?(?:(?:morning|evening|weekend|daily|go-?to)\s+)?(?:thing|"
                            r"favou?rite|fave|fav|jam|ritual|obsess?ion)" + ending),
           revision=changed, first_person=False, check=lambda o: topic_of(o) is not None)
      for ending, changed in ((r"\s+(?:now|these\s+days|lately|instead)\b", True), (r"(?=\s*(?:$|[,.;!]))", False))),
    # "my new favorite is ramen": a favourite of a kind the lexicon knows.
    Rule("prefers_?", _rx(r"\bmy\s+(?:new\s+)?(?:favou?rite|fave|fav)\s+(?:now\s+)?is\s+(?:now\s+)?(?P<obj>[\w' -]+?)"
                          r"(?=\s*(?:$|[,.;!]|now\b|these\s+days\b))"),
         first_person=False, check=lambda o: topic_of(o) is not None),
    # "Arctic Monkeys are my band these days": a favourite of the kind it names, new when said so.
    Rule("{topic}", _rx(r"(?:^|[,;:]\s*)(?P<obj>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3}))\s+(?:are|is|'s)\s+"
                        r"(?:now\s+)?my\s+(?:new\s+)?(?:favou?rite\s+)?(?P<topic>band|artist|singer|team|show|series|game|sport|"
                        r"drink|podcast|author|writer)\s+(?:now|these\s+days|lately|nowadays)\b"),
         revision=True, first_person=False),
    # "Mia picked up the drums", "been all about jazz lately": a pastime or taste taken up.
    Rule("hobby", _rx(r"\b(?:picked|took)\s+up\s+(?:the\s+)?(?P<obj>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
                      r"(?=\s*(?:$|[,.;!]|and\b|with\b|instead\b|now\b|lately\b|these\s+days\b))"),
         revision=True, first_person=False,
         check=lambda o: o.split()[-1].lower() in PASTIMES or o.split()[0].lower().endswith("ing")),
    Rule("likes", _rx(r"(?:^|[,;]\s*|\b(?:I've|I\s+have)\s+)been\s+(?:really\s+|totally\s+)?(?:all\s+about|"
                      r"obsessed\s+with|hooked\s+on)\s+(?P<obj>[\w' -]+?)"
                      r"(?=\s*(?:$|[,.;!]|lately\b|these\s+days\b|recently\b))"),
         revision=True, first_person=False),
)

RULES: tuple[Rule, ...] = _HOMES + _JOBS + _NAMES + _DIETS + _DIET_WE + _TASTES


def as_school(predicate: str, obj: str, subject: str) -> str:
    """A child's place of learning is a school, not an employer: "Our son started at Riverbend Academy"."""
    child = subject.split()[-1] in {"son", "daughter", "kid", "kids", "child", "children", "stepson", "stepdaughter",
                                    "nephew", "niece", "grandson", "granddaughter"}
    if predicate == "works_at" and child and capitalised(obj) and _SCHOOL_WORDS.search(obj) \
            and not _ORG_WORDS.search(obj):
        return "school"
    return predicate
