"""The offline extractor's lexicons: general English word lists and the topic of a phrase (pure data).

Multi-word entries are written with an underscore ("green_tea"); ``topic_of``
looks them up as word pairs.
"""

from __future__ import annotations

import re

from engram_core.core.topics import TOPIC_ALIASES


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


NATIONALITIES = words(
    "american british english canadian australian irish scottish welsh french german spanish portuguese "
    "italian dutch belgian swiss austrian swedish norwegian danish finnish polish russian ukrainian greek "
    "turkish chinese japanese korean indian pakistani brazilian mexican argentinian argentine colombian "
    "chilean peruvian nigerian kenyan egyptian moroccan israeli iranian vietnamese thai filipino indonesian "
    "czech hungarian romanian cuban venezuelan ghanaian ethiopian lebanese syrian saudi singaporean "
    "malaysian bangladeshi nepali azorean jewish muslim catholic buddhist hindu bulgarian serbian croatian "
    "slovak slovenian bosnian albanian macedonian lithuanian latvian estonian icelandic belarusian moldovan "
    "georgian armenian azerbaijani kazakh uzbek afghan iraqi jordanian emirati qatari kuwaiti omani yemeni "
    "tunisian algerian libyan sudanese somali ugandan tanzanian rwandan zambian zimbabwean "
    "senegalese cameroonian ivorian angolan mozambican taiwanese mongolian cambodian burmese "
    "laotian jamaican trinidadian ecuadorian bolivian uruguayan "
    "paraguayan guatemalan honduran salvadoran nicaraguan panamanian cypriot maltese luxembourger")
NATIONS = NATIONALITIES - words("jewish muslim catholic buddhist hindu")  # no names; "I am Muslim" is no nationality
LANGUAGES = words(
    "english portuguese spanish french german italian dutch russian mandarin chinese cantonese japanese "
    "korean arabic hindi bengali urdu turkish greek polish swedish norwegian danish finnish hebrew "
    "vietnamese thai indonesian malay tagalog swahili ukrainian czech hungarian romanian persian farsi "
    "catalan basque galician irish welsh latin asl bsl esperanto")
TECH_SKILLS = words(
    "python java javascript typescript rust go golang c c++ c# sql excel photoshop figma react kotlin swift "
    "ruby php r matlab docker kubernetes aws linux git html css latex haskell scala elixir cpr")
# Capitalised words that follow "I'm" without being a name.
NOT_NAMES = words("by not so just also really here back fine good great ok okay sorry happy glad sure ready "
                  "done in on at from the a an very going still currently now always never new home "
                  "it its my this that he she they we our his her their later tomorrow tonight when anytime "
                  "soon asap before after again whenever if back tired vegetarian vegan pescatarian veggie keto "
                  "paleo every each all sometimes often daily weekly nightly crazy twice once constantly "
                  # what opens a new thought after a comma ("my son, Sadly he moved")
                  "honestly sadly luckily unfortunately fortunately basically literally actually obviously apparently "
                  "hopefully seriously anyway btw well and but who which i") | NATIONALITIES
# "my friends jokingly call me Professor cuz i wear glasses": a nickname given in jest, no name; so is one some
# people use ("my aunties still call me Rafinha", "they all call me Sunny, only there") or get wrong ("my manager
# keeps calling me Shaun, I've given up correcting him").
NOT_IN_JEST = (r"(?<!jokingly\s)(?<!teasingly\s)(?<!sometimes\s)(?<!ironically\s)(?<!affectionately\s)"
               r"(?<!still\s)(?<!all\s)(?<!usually\s)(?<!often\s)(?<!aunties\s)(?<!family\s)(?<!keeps\s)(?<!keep\s)"
               r"(?![^.!?,;]*\b(?:cuz|coz|cos|because|bc|as\s+a\s+joke|behind\s+my\s+back)\b)"
               r"(?![^.!?;]*\b(?:correcting|by\s+mistake|wrongly)\b)"
               r"(?![^.!?;]*\bonly\s+(?:there|family|at|my|the|in|when)\b)")
# How one goes, never a name: "I'm going by train now".
MEANS = words("bus train car bike foot plane boat tube metro subway uber taxi cab feel instinct gut ear")
OCCUPATIONS = words(
    "nurse doctor teacher engineer developer designer lawyer chef cook pilot scientist biologist architect "
    "accountant student professor researcher programmer manager analyst consultant writer journalist "
    "editor artist musician photographer dentist pharmacist therapist paramedic firefighter police officer "
    "soldier farmer mechanic electrician plumber carpenter barista waiter waitress bartender baker butcher "
    "cashier clerk secretary receptionist librarian vet veterinarian surgeon physician psychologist "
    "translator interpreter driver entrepreneur founder ceo cto cfo coo pm vp sre intern freelancer "
    "tutor coach trainer nanny caregiver midwife cleaner janitor salesperson realtor banker economist "
    "attorney paralegal agent trainee apprentice lead")
NON_OCCUPATIONS = words(
    "fan lover person people beginner member user customer believer vegetarian vegan pescatarian parent "
    "mother father mom mum dad sister brother daughter son wife husband patient introvert extrovert "
    "drinker eater sleeper riser learner speaker reader smoker swimmer runner walker thinker talker worrier "
    "gamer owner newcomer foreigner stranger outsider loner fighter survivor winner loser nerd geek foodie "
    "romantic optimist pessimist perfectionist realist idealist minimalist procrastinator native local "
    "citizen resident immigrant expat tourist visitor guest bit lot little while")
OCCUPATION_SUFFIX = re.compile(r"(?:ist|eer|ian|er|or|ant|ent|ic|man|woman|smith|wright)$")

# Everyday English names of drinks, dishes, colours, genres and channels: what a
# person names when asked for a favourite.
_DRINKS = (
    # coffee
    "coffee coffees decaf espresso espressos americano latte lattes cappuccino cappuccinos macchiato cortado "
    "mocha frappe frappuccino flat_white cold_brew iced_coffee filter_coffee turkish_coffee irish_coffee "
    # tea and infusions
    "tea teas chai matcha oolong sencha rooibos earl_grey darjeeling assam chamomile camomile peppermint "
    "hibiscus mate yerba_mate green_tea black_tea white_tea herbal_tea mint_tea iced_tea bubble_tea boba "
    # soft drinks, milk and juice
    "water seltzer soda sodas cola coke pepsi lemonade limeade juice juices smoothie smoothies milkshake "
    "milkshakes milk kefir lassi horchata kombucha cocoa hot_chocolate orange_juice apple_juice tomato_juice "
    "coconut_water tonic tonic_water ginger_ale ginger_beer root_beer iced_latte energy_drinks "
    # alcohol
    "beer beers lager ale ales stout porter ipa pilsner cider wine wines prosecco champagne cava sangria "
    "sherry vermouth whisky whiskey bourbon scotch brandy cognac gin vodka rum tequila mezcal sake soju "
    "martini negroni mojito margarita daiquiri spritz aperol mimosa cocktail cocktails mulled_wine red_wine "
    "white_wine rosé")
_FOODS = (
    "pizza pasta spaghetti lasagne lasagna ravioli gnocchi risotto carbonara pesto sushi sashimi ramen udon "
    "soba pho noodles dumplings gyoza dim_sum tacos taco burritos burrito enchiladas quesadillas nachos "
    "curry curries biryani dal dhal samosas tikka_masala pad_thai burger burgers hamburger fries chips "
    "steak steaks sandwiches sandwich salad salads soup soups stew paella tapas falafel hummus kebab kebabs "
    "shawarma gyros moussaka souvlaki pierogi goulash schnitzel bratwurst sausages fish_and_chips "
    "roast_chicken fried_chicken barbecue bbq ribs lobster oysters mussels seafood bibimbap kimchi bulgogi "
    "pancakes waffles crepes omelette omelettes croissants bagels cheese chocolate ice_cream cheesecake "
    "tiramisu brownies cake cakes pie pies cookies donuts doughnuts "
    # staples, and what diets leave out
    "meat red_meat white_meat pork beef lamb veal chicken turkey bacon ham fish salmon tuna prawns shrimp "
    "shellfish dairy gluten wheat eggs egg nuts peanuts soy tofu bread rice potatoes carbs sugar butter "
    "yoghurt yogurt cream vegetables veg fruit")
_COLOURS = (
    "red blue green yellow purple violet orange pink black white grey gray brown beige teal turquoise "
    "navy maroon burgundy crimson scarlet magenta cyan aqua indigo lilac lavender mauve emerald gold golden "
    "silver bronze coral khaki ochre")
_GENRES = (
    "jazz rock pop classical hip_hop hip-hop rap metal heavy_metal blues techno trance reggae folk indie punk "
    "soul funk disco gospel bluegrass grunge emo ska edm k-pop r&b opera ambient")
TOPIC_LEXICON: dict[str, frozenset[str]] = {
    "drink": words(_DRINKS),
    "food": words(_FOODS),
    "colour": words(_COLOURS),
    "music": words(_GENRES),
    "communication": words("email emails text texts texting calls phone_calls slack whatsapp messages "
                           "video_calls zoom"),
    "season": words("spring summer autumn fall winter"),
}
# Temporal and hedging words said around a topic ("my favourite dish these days"): never part of it.
TOPIC_HEDGES = re.compile(
    r"\b(?:these\s+days|nowadays|lately|recently|(?:right\s+|just\s+|for\s+)?now|currently|at\s+the\s+moment|"
    r"at\s+present|of\s+all\s+time|ever|by\s+far|so\s+far|honestly|personally|really|still|again|"
    r"this\s+(?:year|month|week|season|summer|winter|spring|autumn|fall))\b", re.I)
# A noun phrase's head comes before these words: "tea in the morning", "email over phone calls".
_PHRASE_BREAKS = words("with in at on for to from over than instead and or but because when during before "
                       "after every of like rather")

REL_ALIASES = {"mom": "mother", "mum": "mother", "mommy": "mother", "mama": "mother", "dad": "father",
               "daddy": "father", "papa": "father", "grandma": "grandmother", "granny": "grandmother",
               "gran": "grandmother", "nan": "grandmother", "nana": "grandmother", "grandpa": "grandfather",
               "grandad": "grandfather", "granddad": "grandfather", "kid": "child", "kids": "children",
               "grandkids": "grandchildren", "fiancée": "fiance", "fiancé": "fiance", "fiancee": "fiance",
               "hubby": "husband", "puppy": "dog", "kitten": "cat", "bunny": "rabbit"}
# What one plays, learns or does for its own sake: "started cello", "took up bouldering".
PASTIMES = words("piano guitar violin viola cello bass drums flute clarinet saxophone sax trumpet trombone harp "
                 "ukulele banjo accordion keyboard singing football soccer rugby cricket tennis badminton squash "
                 "basketball volleyball netball hockey baseball golf chess yoga pilates karate judo boxing kickboxing "
                 "fencing archery rowing surfing skating skiing snowboarding climbing bouldering dancing ballet salsa "
                 "tango swimming running cycling hiking knitting crochet pottery painting drawing photography "
                 "gardening baking woodworking sewing coding gymnastics athletics triathlon crossfit")
PETS = words("dog cat rabbit hamster parrot horse fish turtle tortoise snake lizard bird ferret gecko "
             "dogs cats pets rabbits")


def _lexicon_topic(entry: str) -> str | None:
    return next((topic for topic, known in TOPIC_LEXICON.items() if entry in known), None)


def _head_topic(tokens: list[str]) -> str | None:
    """The topic of the last lexicon entry (a pair before a single word): English puts the head noun last."""
    for i in range(len(tokens) - 1, -1, -1):
        pair = f"{tokens[i - 1]}_{tokens[i]}" if i > 0 else ""
        topic = _lexicon_topic(pair) or _lexicon_topic(tokens[i])
        if topic:
            return topic
    return None


def topic_of(text: str) -> str | None:
    """The preference topic of a phrase, from the head of its first noun phrase.

    "black coffee" is a drink, not a colour; "tea in the morning" is a drink.
    Falls back to any lexicon word of the whole phrase.
    """
    tokens = re.findall(r"[\w&-]+", text.lower())
    end = next((i for i, token in enumerate(tokens) if i > 0 and token in _PHRASE_BREAKS), len(tokens))
    return _head_topic(tokens[:end]) or _head_topic(tokens)


def topic_slug(topic: str) -> str:
    """"dish these days" and "Dish" name the same topic: food."""
    slug = re.sub(r"[^a-z]+", "_", TOPIC_HEDGES.sub(" ", topic.lower())).strip("_")
    return TOPIC_ALIASES.get(slug, slug)


def relation_predicate(rel: str) -> str:
    word = REL_ALIASES.get(rel.lower(), rel.lower())
    prefix = "pet" if word in PETS else "family"
    return f"{prefix}_{re.sub(r'[^a-z]+', '_', word).strip('_')}"
