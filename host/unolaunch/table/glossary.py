"""Every Icelandic word the table reads, in one place (issue 25).

The parser (:mod:`.parse`) understands English; it reads an Icelandic line by mapping each
word or phrase here to the English words it stands for (``rautt 5`` -> ``red 5``,
``slepptu spil`` -> ``skip``, ``ýta 3`` -> ``press 3``) whatever language the table speaks,
so a family may mix them (``Þóra: rautt 5``, ``Ann: wild blue``). A native speaker corrects
the vocabulary here and nowhere else; the words the table *writes* are in the catalog
(``locale/is/LC_MESSAGES/unolaunch.po``), which should use the same terms (the team's
term list: card names as the rule sheets name them where the sheet has a real word).

Keys are lower case; a key of several words is a phrase, matched before its single words
(longest first). A value is one or more English words of the parser. Each key is also read
without its accents (``blatt``, ``graent``, ``yta``) unless that spelling is an English word
of the parser or would mean two things; the compact codes (``r5``, ``gS``, ``WH4``) stay
the English letters (``g`` is green, not *gulur*).

Choices made where a word could mean two things:

- ``sleppa`` / ``slepptu`` is the **Skip** card (the sheets' "slepptu spil", "Sleppa"),
  never "pass": to pass is ``pass`` (*segja pass*).
- ``til baka`` is **undo** (as on a phone); the Mario Kart sheet's "Til baka" for the
  Reverse card is not read as a card: the Reverse is ``öfugt`` (the Attack sheet's
  "öfugt spil") or ``snúa``.
- ``skipta`` is the Trade Hands card (*skipta á höndum*); the Attack sheet's "Skipt spil"
  for the Reverse is not used.
- ``draga`` is to draw, and as in English ``draga tvö`` is read as the Draw Two only with
  its colour (``rautt draga tvö``); a Draw card alone is ``+2`` / ``+1``.
- ``högg`` alone asks which hit (``högg 2`` or ``högg 4``), as ``hit`` does (ATK-11, ATK-14).
- Player names are never translated, but a player called by one of these words (``Sex``)
  is read as the word; call such a player with a colon (``Sex: rautt 5``) or by name prefix.
"""

from __future__ import annotations

import unicodedata

#: Colours, in the forms a player says them: the colour alone (masculine, *litur*), a
#: card's (neuter, *spil*), and agreeing with a card's noun in all three genders (*rauð
#: fimma*, *gulur þristur*, *blár fjarki*), in the cases a sentence puts them in, strong and
#: weak (*rauða fimman*, *guli þristurinn*), and the short forms.
COLOURS: dict[str, str] = {
    **dict.fromkeys(
        ("rauður", "rautt", "rauð", "rauðan", "rauða", "rauðu", "rauðum", "rauðri", "rauði"), "red"
    ),
    **dict.fromkeys(("rauðs", "rauðrar", "rau"), "red"),
    **dict.fromkeys(
        ("gulur", "gult", "gul", "gulan", "gula", "gulu", "gulum", "gulri", "guli"), "yellow"
    ),
    **dict.fromkeys(("guls", "gulrar"), "yellow"),
    **dict.fromkeys(
        ("grænn", "grænt", "græn", "grænan", "græna", "grænu", "grænum", "grænni", "græni"), "green"
    ),
    **dict.fromkeys(("græns", "grænnar", "græ"), "green"),
    **dict.fromkeys(
        ("blár", "blátt", "blá", "bláan", "bláa", "bláu", "bláum", "blárri", "blái"), "blue"
    ),
    **dict.fromkeys(("blás", "blárrar"), "blue"),
}

#: Numbers as words, in their genders (*einn*, *ein*, *eitt*) and a few cases.
NUMBERS: dict[str, str] = {
    "núll": "0",
    **dict.fromkeys(("einn", "ein", "eitt", "einu", "einum"), "1"),
    **dict.fromkeys(("tveir", "tvær", "tvö", "tveimur", "tveim", "tvo"), "2"),
    **dict.fromkeys(("þrír", "þrjár", "þrjú", "þremur", "þrem"), "3"),
    **dict.fromkeys(("fjórir", "fjórar", "fjögur", "fjórum"), "4"),
    "fimm": "5",
    "sex": "6",
    "sjö": "7",
    "átta": "8",
    "níu": "9",
}

#: A number card by its noun, as at any Icelandic card table: *tvistur*, *þristur*,
#: *fjarki* (masculine), *fimma*, *sexa*, *sjöa*, *átta*, *nía* (feminine), the *ás* for
#: the 1 and *núll* for Mario Kart's 0 — each in the singular's cases, indefinite and
#: definite (*rauð fimma*, *rauðu fimmuna*, *gula sjöan*). The colour agrees with the noun
#: (COLOURS has every gender); the parser reads the card as ``red 5``.
CARD_NOUNS: dict[str, str] = {
    **dict.fromkeys(("núll", "núllið", "núllinu", "núlls", "núllsins"), "0"),
    **dict.fromkeys(("ás", "ásinn", "ási", "ásnum", "áss", "ássins"), "1"),
    **dict.fromkeys(
        ("tvistur", "tvist", "tvisti", "tvists", "tvisturinn", "tvistinn", "tvistinum"), "2"
    ),
    **dict.fromkeys(("tvistsins",), "2"),
    **dict.fromkeys(
        ("þristur", "þrist", "þristi", "þrists", "þristurinn", "þristinn", "þristinum"), "3"
    ),
    **dict.fromkeys(("þristsins",), "3"),
    **dict.fromkeys(("fjarki", "fjarka", "fjarkinn", "fjarkann", "fjarkanum", "fjarkans"), "4"),
    **dict.fromkeys(("fimma", "fimmu", "fimman", "fimmuna", "fimmunni", "fimmunnar"), "5"),
    **dict.fromkeys(("sexa", "sexu", "sexan", "sexuna", "sexunni", "sexunnar"), "6"),
    **dict.fromkeys(("sjöa", "sjöu", "sjöan", "sjöuna", "sjöunni", "sjöunnar"), "7"),
    **dict.fromkeys(("átta", "áttu", "áttan", "áttuna", "áttunni", "áttunnar"), "8"),
    **dict.fromkeys(("nía", "níu", "nían", "níuna", "níunni", "níunnar"), "9"),
}

#: The cards, with the sheets' terms (/shared/seeds: "slepptu spil", "öfugt spil",
#: "högg 2", "Henda öllum spilum") and the team's terms for the rest.
CARDS: dict[str, str] = {
    # Skip (sheet: "slepptu spil", "Sleppa")
    "slepptu spil": "skip",
    "sleppa spil": "skip",
    "sleppa": "skip",
    "slepptu": "skip",
    "sleppispil": "skip",
    # Reverse (sheet: "öfugt spil")
    "öfugt spil": "reverse",
    "öfugt": "reverse",
    "öfug": "reverse",
    "öfugu": "reverse",
    "snúa við": "reverse",
    "snúa": "reverse",
    # Hit 2 (sheet: "högg 2", "Höggspil 2"); Wild Hit 4; Wild Hit Fire; Wild All Hit
    "högg": "hit",
    "höggspil": "hit",
    "högg2": "hit2",
    "högg4": "hit4",
    "eldhögg": "hit fire",
    "allir fá högg": "all hit",
    "allshögg": "all hit",
    # Discard All (sheet: "Henda öllum spilum", "Henda öllu")
    "henda öllum spilum": "discard all",
    "henda öllum": "discard all",
    "henda öllu": "discard all",
    "fleygja öllum": "discard all",
    "henda": "discard",
    # Trade Hands
    "skipta á höndum": "trade hands",
    "skipta höndum": "trade hands",
    "handaskipti": "trade",
    "skipta": "trade",
    # Wilds: Wild (villispil), Attack-Attack, Customizable, Item Box, Dip Into The Deck
    "villispil": "wild",
    "villt": "wild",
    "jóker": "wild",
    "árás": "attack",
    "sérsniðið": "custom",
    "sérsniðin": "custom",
    "sérsnið": "custom",
    "hlutakassi": "item box",
    "hlutakassa": "item box",
    "hlutakassinn": "item box",
    "hlutakassann": "item box",
    "kassi": "box",
    "kassa": "box",
    "dýfa í stokkinn": "dip",
    "dýfa": "dip",
    "dýfu": "dip",
    # Draw cards said with "plús": "plús fjórir" is the "+4" of "villispil +4" (MK-12)
    **dict.fromkeys(("plús 4", "plús fjórir", "plús fjögur"), "+4"),
    **dict.fromkeys(("plús 2", "plús tveir", "plús tvö"), "+2"),
    **dict.fromkeys(("plús 1", "plús einn", "plús eitt"), "+1"),
}

#: Where a press is said with its object: *ýta á hnappinn*, *ýti á takkann*.
_BUTTON = ("á hnappinn", "á takkann", "á skotvélina", "á hnapp", "á takka")


def _said_with(forms: tuple[str, ...], objects: tuple[str, ...], english: str) -> dict[str, str]:
    """Each verb form alone and with each object (``ýti`` -> ``ýti á hnappinn``...)."""
    return {f"{form} {obj}": english for form in forms for obj in objects} | dict.fromkeys(
        forms, english
    )


#: What players do, and the table's own commands, in the forms people type: the
#: infinitive (*draga*), the first person (*dreg*, *ég dreg*: *ég* is passed over), the
#: imperative (*dragðu*), the third person and the past (*dregur*, *dró*).
COMMANDS: dict[str, str] = {
    # press the launcher's button (ýta á hnappinn); a press the launcher missed (ATK-25)
    **_said_with(("ýta", "ýttu", "ýti", "ýtir", "ýting", "ýtingu"), _BUTTON, "press"),
    **_said_with(("ýtti", "ýtt"), _BUTTON, "pressed"),
    "missti af": "missed",
    "missti": "missed",
    "misst": "missed",
    # draw from the stock (draga spil; kaupa, as in Ólsen ólsen; taka spil); "draga tvö"
    # as in "draw two": a Draw card only with its colour
    **dict.fromkeys(("draga", "dragðu", "drag", "dreg", "taka", "tek", "taktu"), "draw"),
    **dict.fromkeys(("kaupa", "kaupi", "kauptu"), "draw"),
    **dict.fromkeys(("dregur", "tekur", "kaupir"), "draws"),
    **dict.fromkeys(("dró", "tók", "keypti"), "drew"),
    # pass (segja pass), done
    **dict.fromkeys(("segja pass", "segi pass", "segir pass", "sagði pass"), "pass"),
    **dict.fromkeys(("passa", "passar", "passaði", "passaðu"), "pass"),
    "búinn": "done",
    "búin": "done",
    # challenge (MK-20, PP-13: véfengja; the sheets' "skora á") and its outcome; accept
    **dict.fromkeys(("véfengja", "véfengi", "véfengdu", "véfengir", "véfenging"), "challenge"),
    **dict.fromkeys(("skora á", "skoraðu á", "skorar á", "áskorun"), "challenge"),
    **dict.fromkeys(("véfengdi", "skoraði á"), "challenged"),
    "vann": "won",
    "vinnur": "wins",
    "tókst": "won",
    "tapaði": "lost",
    "tapar": "loses",
    "mistókst": "lost",
    "sekur": "guilty",
    "saklaus": "innocent",
    **dict.fromkeys(("samþykkja", "samþykki", "samþykktu", "samþykkir"), "accept"),
    **dict.fromkeys(("taka við", "tek við", "taktu við", "tekur við", "tók við"), "accept"),
    # UNO, catch (COM-6: grípa, góma, nappa)
    **dict.fromkeys(("segja uno", "segi uno", "segir uno", "sagði uno", "úno"), "uno"),
    **dict.fromkeys(("grípa", "gríp", "gríptu", "grípur"), "catch"),
    **dict.fromkeys(("góma", "gómaðu", "gómar", "nappa", "nappaðu", "nappar"), "catch"),
    **dict.fromkeys(("greip", "gómaði", "nappaði"), "caught"),
    # play a card (leggja út, spila)
    **dict.fromkeys(("legg út", "leggja út", "leggur út", "lagði út", "spila út"), "play"),
    **dict.fromkeys(("spilar út", "spilaði út", "legg", "leggja"), "play"),
    # choose a colour or a player; give a card (PP-11)
    "velja": "choose",
    "vel": "choose",
    "veldu": "choose",
    "velur": "choose",
    "valdi": "choose",
    "gefa": "give",
    "gef": "give",
    "gefur": "gives",
    "gaf": "gives",
    # the table: undo, help, quit, show, fix a hand size, clear a launcher fault
    "afturkalla": "undo",
    "afturkallaðu": "undo",
    "til baka": "undo",
    "bakka": "undo",
    "úps": "oops",
    "hjálp": "help",
    "hjálpa": "help",
    "hætta": "quit",
    "hættu": "quit",
    "hætti": "quit",
    "bless": "bye",
    "sýna": "show",
    "sýndu": "show",
    "staðan": "show",
    "staða": "show",
    "stigin": "scores",
    "leiðrétta": "fix",
    "leiðréttu": "fix",
    "laga": "fix",
    "er með": "has",
    "hefur": "has",
    "stöðva": "stop",
    "hreinsa": "clear",
    "hreinsað": "clear",
    "losa": "unjam",
    "losað": "unjam",
    "vista": "save",
    "vistaðu": "save",
}

#: The simulated launcher's controls (``--port sim``), after ``sim``: what 'unolaunch sim'
#: reads in English (``sim stífla`` is ``sim jam``).
SIM: dict[str, str] = {
    "sim stífla": "sim jam",
    "sim losa": "sim unjam",
    "sim hlaða": "sim load",
    "sim aftengja": "sim unplug",
    "sim tengja": "sim replug",
    "sim endurræsa": "sim reset",
    "sim frysta": "sim stall",
    "sim þíða": "sim unstall",
    "sim halda": "sim hold",
    "sim ýta": "sim press",
}

#: Answers (yes/no, none) and the small words of a sentence the parser passes over.
WORDS: dict[str, str] = {
    "já": "yes",
    "jú": "yes",
    "j": "yes",
    "hætta við": "cancel",
    "næsta": "next",
    "enda": "end",
    "ljúka": "end",
    "opna": "reopen",
    "opna aftur": "reopen",
    "rétt": "right",
    "nei": "no",
    "rangt": "wrong",
    "ekkert": "none",
    "ekki neitt": "nothing",
    "engin spil": "no cards",
    "ekkert spil": "no cards",
    "engin": "none",
    "stig": "points",
    "stigum": "points",
    "spil": "card",
    "spili": "card",
    "spilið": "card",
    "spilinu": "card",
    "spilin": "cards",
    "spilum": "cards",
    "spila": "play",
    "spilar": "plays",
    "spilaði": "played",
    "leggur": "plays",
    "lagði": "played",
    "ég": "",  # "ég dreg", "ég passa": the subject is passed over
    **dict.fromkeys(("kom út", "komu út"), "came out"),  # 'ýtti, 2 komu út' (ATK-5)
    **dict.fromkeys(("kom", "komu"), "came"),
    "og": "and",
    "við": "with",  # 'skipta við Þóru' (ATK-19)
    "svo": "then",
    "síðan": "then",
    "með": "with",
    "á": "on",
    "til": "to",
    "úr": "from",
    "stokknum": "stock",
    "stokkinum": "stock",
    "bunkanum": "pile",
}

#: Everything above: Icelandic word or phrase -> English words of the parser.
TERMS: dict[str, str] = {
    **COLOURS,
    **NUMBERS,
    **CARD_NOUNS,
    **CARDS,
    **COMMANDS,
    **SIM,
    **WORDS,
}

#: Icelandic letters written without their accents, as on a keyboard without them.
_PLAIN = str.maketrans(
    {"á": "a", "é": "e", "í": "i", "ó": "o", "ú": "u", "ý": "y", "ö": "o", "ð": "d"}
    | {"þ": "th", "æ": "ae"}
)


def plain(text: str) -> str:
    """``text`` (lower case) without Icelandic accents: ``blátt`` -> ``blatt``,
    ``grænt`` -> ``graent``, ``Þóra`` -> ``thora`` (after lower-casing), ``örn`` -> ``orn``."""
    text = unicodedata.normalize("NFC", text).translate(_PLAIN)
    # Any other accented letter (é in a name, ü...) loses its mark too.
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def terms(english: frozenset[str]) -> dict[str, str]:
    """:data:`TERMS` and each term written without accents, except where that spelling is
    one of the ``english`` words the parser knows or two terms would share it."""
    table = dict(TERMS)
    folded: dict[str, set[str]] = {}
    for key, value in TERMS.items():
        bare = plain(key)
        if bare != key:
            folded.setdefault(bare, set()).add(value)
    for bare, values in folded.items():
        if len(values) == 1 and bare not in english and bare not in table:
            table[bare] = values.pop()
    return table


#: The words offered by Tab in Icelandic, by what they are (see parse.vocabulary).
COMPLETE_COMMANDS = ("hjálp", "afturkalla", "leiðrétta", "hætta", "uno", "grípa")
COMPLETE_VERBS = {
    "press": ("ýta",),
    "draw": ("draga",),
    "pass": ("pass",),
    "challenge": ("véfengja", "samþykkja"),
}
COMPLETE_COLOURS = ("rautt", "gult", "grænt", "blátt")
#: A card kind's word for Tab (the code of scenario FORMAT.md -> Icelandic word).
COMPLETE_KINDS = {
    "S": "sleppa",
    "R": "öfugt",
    "H2": "högg",
    "DA": "henda",
    "TH": "skipta",
    "+2": "+2",
    "+1": "+1",
    "W": "villispil",
    "WH4": "högg4",
    "WAA": "árás",
    "WC": "sérsniðið",
    "WHF": "eldhögg",
    "WAH": "allshögg",
    "W+4": "wd4",
    "W+2": "wd2",
    "WIB": "hlutakassi",
    "WDD": "dýfa",
}

#: Each number card's noun as a suggestion names it (``fimmaa`` -> ``fimma``).
NUMBER_NOUNS = {
    "0": "núll",
    "1": "ás",
    "2": "tvistur",
    "3": "þristur",
    "4": "fjarki",
    "5": "fimma",
    "6": "sexa",
    "7": "sjöa",
    "8": "átta",
    "9": "nía",
}

#: How an example in a message writes a word the parser read (its English form), in
#: Icelandic: the word a player would type (``skip`` -> ``sleppa``, ``red`` -> ``rautt``).
SAY: dict[str, str] = {
    "red": "rautt",
    "yellow": "gult",
    "green": "grænt",
    "blue": "blátt",
    "skip": "sleppa",
    "reverse": "öfugt",
    "hit": "högg",
    "hit2": "högg2",
    "hit4": "högg4",
    "hitfire": "eldhögg",
    "allhit": "allshögg",
    "discard": "henda",
    "trade": "skipta",
    "wild": "villispil",
    "attack": "árás",
    "custom": "sérsniðið",
    "dip": "dýfa",
    "box": "kassi",
    "itembox": "hlutakassi",
    "press": "ýta",
    "pressed": "ýtti",
    "pass": "pass",
    "take": "taka",
    "done": "búinn",
    "uno": "uno",
    "stop": "stöðva",
    "missed": "missti",
    "draw": "draga",
    "drew": "dró",
    "challenge": "véfengja",
    "accept": "samþykkja",
    "catch": "grípa",
    "choose": "velja",
    "give": "gefa",
    "undo": "afturkalla",
    "help": "hjálp",
    "quit": "hætta",
    "show": "sýna",
    "fix": "leiðrétta",
    "has": "er með",
    "clear": "hreinsa",
    "save": "vista",
    "none": "ekkert",
    "yes": "já",
    "no": "nei",
    "won": "vann",
    "lost": "tapaði",
    "card": "spil",
    "cards": "spil",
}
