"""Issue 25: the parser reads Icelandic card and command words beside the English ones,
whatever language the table speaks (one glossary: host/unolaunch/table/glossary.py).

Every Icelandic form must give exactly what its English twin gives (the same Move or
Command), with the table in English and in Icelandic; the messages and the help are in the
table's language (Icelandic help: Icelandic examples that parse, no English command word;
the pseudo-locale: no line escapes translation)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pseudo import escaped
from unolaunch.i18n import use
from unolaunch.table import glossary
from unolaunch.table import parse as parse_module
from unolaunch.table.parse import (
    Command,
    Context,
    Move,
    ParseError,
    complete,
    help_text,
    parse,
    parse_discarded,
    parse_hand,
    table_command,
)

P = ("Þóra", "Ævar", "Örn")
ATK = Context("attack", P, "Þóra", ("play", "press"), "green", "g3")
MK = Context("mario-kart", P, "Ævar", ("play", "draw"), "red", "r3")
PP = Context("pocket-pizza", P[:2], "Ævar", ("play", "draw"), "yellow", "y2")
CHALLENGE = Context("mario-kart", P, "Örn", ("challenge", "accept"), "blue", "W+4")
OWED = Context("attack", P, "Ævar", ("press",), "red", "rH2")


@pytest.fixture(params=["en", "is"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    """Parsing must not depend on the table's language: every test runs in both."""
    with use(request.param):
        yield request.param


# (Icelandic, English twin): ATK-1..ATK-19 cards, COM-6 UNO and catch, ATK-5 presses.
ATTACK = [
    ("rautt 5", "red 5"),
    ("rauður 5", "red 5"),
    ("rauð 5", "red 5"),
    ("rauðan 5", "red 5"),
    ("RAUTT 5", "red 5"),
    ("5 rautt", "5 red"),
    ("rautt fimm", "red five"),
    ("gult 3", "yellow 3"),
    ("gulur þrír", "yellow three"),
    ("gul þrjú", "yellow 3"),
    ("gulan 3", "yellow 3"),
    ("grænt sjö", "green seven"),
    ("grænn 7", "green 7"),
    ("græn 7", "green 7"),
    ("grænan 7", "green 7"),
    ("blátt níu", "blue nine"),
    ("blár 9", "blue 9"),
    ("blá 9", "blue 9"),
    ("bláan 9", "blue 9"),
    ("rau 4", "red 4"),
    ("græ 4", "green 4"),
    ("rautt eitt", "red one"),
    ("rautt tvö", "red two"),
    ("gult fjögur", "yellow four"),
    ("gult sex", "yellow six"),
    ("blátt átta", "blue eight"),
    ("blatt 9", "blue 9"),  # typed without accents
    ("graent 7", "green 7"),
    ("raudur 5", "red 5"),
    ("atta", "eight"),
    ("sleppa", "skip"),
    ("slepptu spil", "skip"),  # the sheet's word
    ("blátt sleppa", "blue skip"),
    ("sleppa blátt", "skip blue"),
    ("öfugt", "reverse"),
    ("öfugt spil", "reverse"),  # the sheet's word
    ("rautt öfugt", "red reverse"),
    ("ofugt", "reverse"),
    ("högg 2", "hit 2"),  # ATK-11, the sheet's "högg 2"
    ("rautt högg tvö", "red hit 2"),
    ("högg2", "hit2"),
    ("henda öllum", "discard all"),  # ATK-12
    ("henda öllum spilum", "discard all"),  # the sheet's "Henda öllum spilum"
    ("gult henda öllum y3 y9", "yellow discard all y3 y9"),
    ("villispil blátt", "wild blue"),  # ATK-13
    ("blátt villispil", "blue wild"),
    ("villt rautt", "wild red"),
    ("högg4 rautt", "hit4 red"),  # ATK-14
    ("villispil högg 4 gult", "wild hit 4 yellow"),
    ("högg 4 rautt", "hit 4 red"),
    ("árás blátt Ævar", "attack blue Ævar"),  # ATK-15
    ("villispil árás árás blátt ævar", "wild attack attack blue Ævar"),
    ("villispil árás ævar blátt", "wild attack Ævar blue"),  # as players say it
    ("wild attack ævar blue", "attack Ævar blue"),
    ("árás ævar blátt", "attack Ævar blue"),
    ("sérsniðið rautt", "custom red"),  # ATK-16
    ("villispil sérsniðið rautt örn", "wild custom red Örn"),
    ("eldhögg grænt", "hit fire green"),  # ATK-17
    ("villispil eldhögg grænt", "wild hit fire green"),
    ("allir fá högg rautt", "all hit red"),  # ATK-18
    ("rautt skipta Örn", "red trade Örn"),  # ATK-19
    ("rautt skipta á höndum örn", "red trade hands Örn"),
    ("rautt 5 uno", "red 5 uno"),  # COM-6
    ("Ævar: rautt 5", "Ævar: red 5"),
    ("örn blátt 7", "Örn blue 7"),
    ("ýta", "press"),  # ATK-5
    ("ýttu", "press"),
    ("ýta á hnappinn", "press"),
    ("ýta 3", "press 3"),
    ("ýta ekkert", "press none"),
    ("yta 0", "press 0"),
    ("missti ýtingu 3", "missed press 3"),  # ATK-25
    ("grípa Ævar", "catch Ævar"),  # COM-6
    ("Örn grípa ævar", "Örn catch Ævar"),
    ("nappa ævar", "catch Ævar"),
    ("grípa Þóru", "catch Þóra"),  # a name in its cases (BÍN, unolaunch.declension)
    ("góma Erni", "catch Örn"),
    # issue 36: the cards' nouns, the colour agreeing in every gender and case
    ("rauð fimma", "red 5"),
    ("rauða fimman", "red 5"),
    ("rauðu fimmuna", "red 5"),
    ("gul sjöa", "yellow 7"),
    ("blá nía", "blue 9"),
    ("bláa nían", "blue 9"),
    ("gulur þristur", "yellow 3"),
    ("guli þristurinn", "yellow 3"),
    ("blár fjarki", "blue 4"),
    ("bláan fjarka", "blue 4"),
    ("grænn tvistur", "green 2"),
    ("græna sexan", "green 6"),
    ("rauð átta", "red 8"),
    ("rauður ás", "red 1"),
    ("raud fimma", "red 5"),  # without accents
    ("legg út rauða fimmu", "play red 5"),
    ("fimma", "5"),  # the colour to match
    ("ýti á takkann", "press"),
    ("ég ýti á hnappinn", "press"),
    ("ýtti 3", "pressed 3"),
    ("pass", "pass"),
    ("segja pass", "pass"),
]

MARIO_KART = [
    ("rautt núll", "red zero"),  # MK-1 has zeros
    ("+2", "+2"),  # MK-10
    ("grænt draga tvö", "green draw two"),
    ("draga tvö grænt", "draw two green"),
    ("wd4 rautt", "wd4 red"),  # MK-12
    ("villispil draga fjögur blátt", "wild draw four blue"),
    ("hlutakassi g7", "item box g7"),  # MK-13
    ("villispil hlutakassi rautt sleppa", "wild item box red skip"),
    ("hlutakassi g7 Örn blátt", "item box g7 Örn blue"),  # MK-16, MK-18
    ("draga", "draw"),  # MK-9
    ("dró", "drew"),
    ("draga spil", "draw a card"),
    ("dró spil úr stokknum", "drew a card from the stock"),
    ("draga tvö", "draw two"),  # asked: a Draw Two or cards from the stock?
    ("taka spil", "draw a card"),  # issue 36: the verbs people type
    ("tek eitt", "draw one"),
    ("dreg eitt spil", "draw one card"),
    ("ég dreg", "draw"),
    ("dragðu", "draw"),
    ("kaupi spil", "draw a card"),  # as in Ólsen ólsen
    ("ég passa", "pass"),
    ("passa", "pass"),
    ("villispil +4 rautt", "wild draw 4 red"),  # MK-12
    ("villispil +4", "wild draw 4"),
    ("blár villispil +4", "blue wild draw 4"),
    ("villispil plús fjórir gulur", "wild draw four yellow"),
    ("rautt núll", "red 0"),
    ("græna núllið", "green 0"),
    ("pass", "pass"),
    ("véfengja", "challenge"),  # MK-20
    ("véfengja vann", "challenge won"),
    ("véfengja tapaði", "challenge lost"),
    ("samþykkja", "accept"),
    ("véfengi", "challenge"),
    ("skora á", "challenge"),  # the sheets' words
    ("ég skora á", "challenge"),
    ("véfengdu", "challenge"),
    ("tek við", "accept"),
    ("samþykki", "accept"),
    ("Þóra: grípa Ævar", "Þóra: catch Ævar"),
    ("Þóra: gríp Ævari", "Þóra: catch Ævar"),
]

POCKET_PIZZA = [
    ("+1", "+1"),  # PP-9
    ("gult draga eitt", "yellow draw one"),
    ("wd2 rautt", "wd2 red"),  # PP-12
    ("villispil draga tvö rautt", "wild draw 2 red"),
    ("dýfa blátt", "dip blue"),  # PP-11
    ("villispil dýfa blátt", "wild dip blue"),
    ("dýfa blátt gefa g5", "dip blue give g5"),
    ("villispil grænt", "wild green"),  # PP-10
    ("draga", "draw"),  # PP-6
    ("draga eitt", "draw one"),
    ("sleppa", "skip"),
    ("öfugt", "reverse"),
]

COMMANDS = [
    ("afturkalla", "undo"),
    ("afturkalla 3", "undo 3"),
    ("til baka", "undo"),
    ("úps", "oops"),
    ("hjálp", "help"),
    ("hjalp", "help"),
    ("hætta", "quit"),
    ("bless", "bye"),
    ("sýna", "show"),
    ("staðan", "show"),
    ("uno", "uno"),
    ("segja uno", "uno"),
    ("leiðrétta Ævar 5", "fix Ævar 5"),
    ("laga ævar 5", "set Ævar 5"),
    ("Ævar er með 5", "Ævar has 5"),
    ("ævar hefur 0", "Ævar has 0"),
    ("hreinsa", "clear"),
    ("losa", "unjam"),
    ("stöðva", "stop"),
    ("", ""),
]


def _same(icelandic: str, english: str | None, ctx: Context) -> None:
    if english is None:
        with pytest.raises(ParseError):
            parse(icelandic, ctx)
        return
    try:
        want = parse(english, ctx)
    except ParseError as exc:  # the twin's refusal must be the Icelandic form's too
        with pytest.raises(ParseError):
            parse(icelandic, ctx)
        assert english in ("draw two",), exc  # only the question 'a Draw Two or draws?'
        return
    assert parse(icelandic, ctx) == want


@pytest.mark.parametrize(("icelandic", "english"), ATTACK)
def test_attack_icelandic_forms_read_as_their_english_twins(
    lang: str, icelandic: str, english: str | None
) -> None:
    _same(icelandic, english, ATK)


@pytest.mark.parametrize(("icelandic", "english"), MARIO_KART)
def test_mario_kart_icelandic_forms_read_as_their_english_twins(
    lang: str, icelandic: str, english: str
) -> None:
    answer = ("véfeng", "samþ", "skora", "tek við")
    _same(icelandic, english, CHALLENGE if any(w in icelandic for w in answer) else MK)


@pytest.mark.parametrize(("icelandic", "english"), POCKET_PIZZA)
def test_pocket_pizza_icelandic_forms_read_as_their_english_twins(
    lang: str, icelandic: str, english: str
) -> None:
    _same(icelandic, english, PP)


@pytest.mark.parametrize(("icelandic", "english"), COMMANDS)
@pytest.mark.parametrize("ctx", [ATK, MK, PP], ids=["attack", "mario-kart", "pocket-pizza"])
def test_table_commands_in_icelandic(lang: str, ctx: Context, icelandic: str, english: str) -> None:
    got = parse(icelandic, ctx)
    assert isinstance(got, Command)
    assert got == parse(english, ctx)
    assert table_command(icelandic, ctx) == table_command(english, ctx)


def test_the_icelandic_forms_give_the_expected_actions(lang: str) -> None:
    """Not only equal to the twin: what the rules need (the twin could be wrong too)."""
    assert parse("Ævar: rautt 5", ATK) == Move(({"by": "Ævar", "play": "r5"},))
    assert parse("slepptu spil", ATK) == Move(({"by": "Þóra", "play": "gS"},))
    assert parse("árás blátt örn", ATK) == Move(
        ({"by": "Þóra", "play": "WAA", "color": "blue", "target": "Örn"},)
    )
    assert parse("ýta 2", OWED) == Move(({"by": "Ævar", "press": True, "cards": 2},))
    assert parse("ekkert", OWED) == Move(({"by": "Ævar", "press": True, "cards": 0},))
    assert parse("missti ýtingu 3", ATK) == Move(
        ({"by": "Þóra", "press": True, "cards": 3},), missed=True
    )
    assert parse("véfengja vann", CHALLENGE) == Move(
        ({"by": "Örn", "challenge": True, "won": True},)
    )
    assert parse("leiðrétta örn 5", ATK) == Command("fix", ("Örn", 5))


@pytest.mark.parametrize(
    ("variant", "choice", "icelandic", "english"),
    [
        ("attack", "color", "blár", "blue"),
        ("attack", "color", "blátt", "blue"),
        ("attack", "color", "velja grænn", "choose green"),
        ("attack", "color", "veldu gulan", "choose yellow"),
        ("attack", "target", "örn", "Örn"),
        ("attack", "top", "rautt 5", "r5"),  # COM-4 start card
        ("attack", "top", "villispil", "wild"),
        ("attack", "top", "grænt sleppa", "green skip"),
        ("mario-kart", "turned", "gult þrír", "y3"),  # MK-13
        ("pocket-pizza", "give", "grænt fimm", "g5"),  # PP-11
        ("mario-kart", "won", "vann", "won"),  # MK-20
        ("mario-kart", "won", "tapaði", "lost"),  # MK-21
        ("mario-kart", "won", "já", "yes"),
        ("mario-kart", "won", "nei", "no"),
    ],
)
def test_answers_to_the_tables_questions_in_icelandic(
    lang: str, variant: str, choice: str, icelandic: str, english: str
) -> None:
    ctx = Context(variant, P, "Þóra", ("choose",), None, None, choice=choice)
    assert parse(icelandic, ctx) == parse(english, ctx)


@pytest.mark.parametrize(
    ("icelandic", "english"),
    [
        ("r5 g7 villispil blátt sleppa", "r5 g7 wild blue skip"),  # COM-8
        ("rautt 5, villispil, blátt sleppa", "red 5, wild, blue skip"),
        ("högg4 rautt högg 2", "hit4 red hit 2"),
        ("37 stig", "37 points"),
        ("ekkert", "none"),
        ("engin spil", "no cards"),
    ],
)
def test_hands_at_round_end_in_icelandic(lang: str, icelandic: str, english: str) -> None:
    assert parse_hand(icelandic, ATK) == parse_hand(english, ATK)


@pytest.mark.parametrize(
    ("icelandic", "english"),
    [("ekkert", "none"), ("y3 y9", "y3 y9"), ("þrjú, níu", "3, 9"), ("tvö", "2"), ("2 spil", "2")],
)
def test_atk12_what_went_with_a_discard_all_in_icelandic(
    lang: str, icelandic: str, english: str
) -> None:
    yellow = Context("attack", P, "Þóra", ("play", "press"), "yellow", "yDA")
    assert parse_discarded(icelandic, yellow) == parse_discarded(english, yellow)


def test_names_with_icelandic_letters_match_with_and_without_accents(lang: str) -> None:
    assert parse("Þóra: r5", ATK) == Move(({"by": "Þóra", "play": "r5"},))
    assert parse("þóra: r5", ATK) == Move(({"by": "Þóra", "play": "r5"},))
    assert parse("thora: r5", ATK) == Move(({"by": "Þóra", "play": "r5"},))
    assert parse("orn: r5", ATK) == Move(({"by": "Örn", "play": "r5"},))
    assert parse("aevar: rautt 5", ATK) == Move(({"by": "Ævar", "play": "r5"},))
    assert parse("ÆV: r5", ATK) == Move(({"by": "Ævar", "play": "r5"},))  # a prefix
    assert parse("grípa orn", ATK) == Move(({"by": "Þóra", "catch": "Örn"},))
    # A name with the accent-free spelling of another is that player, not the other.
    both = Context("attack", ("Orn", "Örn"), "Orn", ("play", "press"), "red", "r3")
    assert parse("örn: r5", both) == Move(({"by": "Örn", "play": "r5"},))
    assert parse("orn: r5", both) == Move(({"by": "Orn", "play": "r5"},))


def test_completion_offers_icelandic_names_and_words() -> None:
    for lang in ("en", "is"):
        with use(lang):
            names = [w for w in complete("catch ö", ATK) if w in P]
            assert names == ["Örn"]
            assert complete("grípa Æ", ATK) == ["Ævar"]
            assert complete("Þ", ATK) == ["Þóra"]
            assert complete("þ", ATK) == ["Þóra"]
            assert complete("orn", ATK) == ["Örn"]  # without the accent
            assert complete("zz", ATK) == []
    with use("is"):
        assert "sleppa" in complete("sl", ATK)
        assert complete("ýt", ATK) == ["ýta"]
        assert complete("yt", ATK) == ["ýta"]
        assert "rautt" in complete("rau", ATK)
        assert "árás" in complete("ár", ATK)
        assert complete("hlut", MK) == ["hlutakassi"]
        assert complete("véf", CHALLENGE) == ["véfengja"]
        assert "ýta" not in complete("ý", MK)  # no launcher in Mario Kart
        assert "wd4" in complete("wd", MK)  # the codes still complete
    with use("en"):
        assert complete("wd", MK) == ["wd4"]  # English as before


# ---------------------------------------------------------------------- messages, help
_VARIANTS = ["attack", "mario-kart", "pocket-pizza"]
_TURN = ("play", "press")


@pytest.mark.parametrize("variant", _VARIANTS)
def test_help_in_the_pseudo_locale_has_no_line_that_escaped_translation(variant: str) -> None:
    with use("qps"):
        text = help_text(Context(variant, P, "Þóra", _TURN, "green", "g3"))
    assert escaped(text.splitlines(), allowed=P) == []


#: English command and card words the Icelandic help must not teach.
_ENGLISH_WORDS = {
    *("draw", "drew", "press", "challenge", "accept", "catch", "undo", "help", "show", "quit"),
    *("fix", "set", "clear", "redraw", "scores", "exit", "bye", "oops", "back", "unjam"),
    *("skip", "reverse", "wild", "hit", "discard", "all", "attack", "custom", "fire", "trade"),
    *("item", "box", "dip", "give", "choose", "none", "yes", "won", "lost", "missed", "has"),
    *("red", "yellow", "green", "blue", "five", "two", "one", "card", "cards", "the", "type"),
}


@pytest.mark.parametrize("variant", _VARIANTS)
def test_icelandic_help_teaches_no_english_word(variant: str) -> None:
    with use("is"):
        text = help_text(Context(variant, P, "Þóra", _TURN, "green", "g3"))
    # The simulator's commands are Icelandic too ('sim stífla'); 'unolaunch sim' is a command.
    text = re.sub(r"unolaunch sim|UNO Attack", "", text)
    words = set(re.findall(r"[^\W\d_]+", text.lower()))
    assert words & _ENGLISH_WORDS == set()


#: (verbs, choice, form): each Icelandic form the Icelandic help shows, which must parse.
_FORMS_IS: dict[str, list[tuple[tuple[str, ...], str | None, str]]] = {
    "common": [
        (_TURN, None, "r5"),
        (_TURN, None, "rautt 5"),
        (_TURN, None, "rauð fimma"),  # issue 36: the cards' nouns
        (_TURN, None, "gulur þristur"),
        (_TURN, None, "grænt sleppa"),
        (_TURN, None, "sleppa"),
        (_TURN, None, "öfugt"),
        (_TURN, None, "r5 uno"),
        (_TURN, None, "uno"),
        (_TURN, None, "Ævar: rauð fimma"),
        (_TURN, None, "grípa Ævar"),
        (_TURN, None, "Örn grípur Ævar"),
        (("choose",), "color", "rauður"),
        (("choose",), "color", "velja grænn"),
        (("choose",), "target", "Örn"),
        (_TURN, None, "leiðrétta Ævar 5"),
        (_TURN, None, "Ævar er með 5"),
        (_TURN, None, "afturkalla"),
        (_TURN, None, "afturkalla 3"),
        (_TURN, None, "til baka"),
        (_TURN, None, "úps"),
        (_TURN, None, "hjálp"),
        (_TURN, None, "sýna"),
        (_TURN, None, "staðan"),
        (_TURN, None, "hætta"),
        (_TURN, None, "bless"),
        (_TURN, None, "hreinsa"),
        (_TURN, None, "losa"),
        (_TURN, None, "laga"),
    ],
    "attack": [
        (_TURN, None, "villispil blátt"),
        (_TURN, None, "blátt villispil"),
        (_TURN, None, "villispil"),
        (_TURN, None, "högg 2"),
        (_TURN, None, "rautt högg 2"),
        (_TURN, None, "henda öllum"),
        (_TURN, None, "gult henda öllum y3 y9"),
        (_TURN, None, "högg4 rautt"),
        (_TURN, None, "árás blátt á Ævar"),
        (_TURN, None, "sérsniðið rautt"),
        (_TURN, None, "eldhögg grænt"),
        (_TURN, None, "allir fá högg rautt"),
        (_TURN, None, "rautt skipta við Örn"),
        (_TURN, None, "ýta"),
        (_TURN, None, "ýti á takkann"),
        (_TURN, None, "ýta 3"),
        (_TURN, None, "ýta ekkert"),
        (("press",), None, "2"),
        (("press",), None, "ekkert"),
        (_TURN, None, "missti ýtingu 3"),
        (_TURN, None, "pass"),
    ],
    "mario-kart": [
        (("play", "draw"), None, "+2"),
        (("play", "draw"), None, "grænt draga tvö"),
        (("play", "draw"), None, "villispil +4 rautt"),
        (("play", "draw"), None, "hlutakassi g7"),
        (("play", "draw"), None, "hlutakassi g7 Örn blátt"),
        (("play", "draw"), None, "draga"),
        (("play", "draw"), None, "dró"),
        (("play", "draw"), None, "taka spil"),
        (("play", "draw"), None, "kaupi"),
        (("play", "draw"), None, "pass"),
        (("challenge", "accept"), None, "véfengja"),
        (("challenge", "accept"), None, "skora á"),
        (("challenge", "accept"), None, "véfengja vann"),
        (("challenge", "accept"), None, "véfengja tapaði"),
        (("challenge", "accept"), None, "samþykkja"),
        (("choose",), "won", "vann"),
        (("choose",), "won", "tapaði"),
        (("choose",), "turned", "g7"),
    ],
    "pocket-pizza": [
        (("play", "draw"), None, "villispil blátt"),
        (("play", "draw"), None, "+1"),
        (("play", "draw"), None, "villispil +2 rautt"),
        (("play", "draw"), None, "dýfa blátt"),
        (("play", "draw"), None, "dýfa blátt gefa g5"),
        (("play", "draw"), None, "draga"),
        (("play", "draw"), None, "tek eitt"),
        (("play", "draw"), None, "rautt draga eitt"),
        (("play", "draw"), None, "pass"),
        (("challenge", "accept"), None, "véfengja"),
        (("challenge", "accept"), None, "samþykkja"),
        (("choose",), "give", "g5"),
    ],
}


@pytest.mark.parametrize("variant", _VARIANTS)
def test_icelandic_help_shows_icelandic_forms_that_parse(variant: str) -> None:
    with use("is"):
        text = help_text(Context(variant, P, "Þóra", _TURN, "green", "g3"))
    for verbs, choice, form in _FORMS_IS["common"] + _FORMS_IS[variant]:
        ctx = Context(variant, P, "Þóra", verbs, "green", "g3", choice=choice)
        if form != "laga":
            parse(form, ctx)  # it is read...
        assert f"'{form}'" in text, form  # ...and shown
    # COM-8: a hand of this variant's cards (Mario Kart has no plain Wild)
    hand = (
        "r5 g7 villispil +4 blátt sleppa"
        if variant == "mario-kart"
        else "r5 g7 villispil blátt sleppa"
    )
    assert f"'{hand}'" in text and "(37)" in text
    wild = "W+4" if variant == "mario-kart" else "W"
    ctx = Context(variant, P, "Þóra", _TURN, "green", "g3")
    assert parse_hand(hand, ctx) == ["r5", "g7", wild, "bS"]


@pytest.mark.parametrize(
    ("text", "ctx", "says"),
    [
        ("rautt", ATK, "rautt hvað?"),
        ("rautt gult 5", ATK, "tveir litir (rautt, gult)"),
        ("blah", ATK, "'blah' er ekki spil hér"),
        ("rauur 5", ATK, "áttirðu við 'rautt'"),  # a typo: the Icelandic word meant
        ("r0", ATK, "það er ekkert rautt 0 í UNO Attack"),
        ("+2", ATK, "draga tvö er ekki til í UNO Attack: áttirðu við 'högg 2'?"),
        ("draga 2", ATK, "í UNO Attack er ekkert draga tvö: áttirðu við 'högg 2' (ATK-11)"),
        ("draga", ATK, "það er ekki dregið í UNO Attack"),
        ("véfengja", ATK, "engin véfenging í UNO Attack"),
        ("högg", ATK, "hvaða högg?"),
        ("árás blátt", ATK, "nefndu skotmarkið (villispil árás-árás), t.d. 'árás blátt Ævar'"),
        ("ýta mikið", ATK, "'ýta N'"),
        ("grípa", ATK, "grípa hvern?"),
        ("afturkalla x", ATK, "afturkalla hve margar"),
        ("leiðrétta Ævar", ATK, "'LEIKMAÐUR er með N'"),
        ("r5 g7", ATK, "eitt spil í einu"),
        ("rautt 5 Ævar", ATK, "tekur ekki leikmann sem skotmark"),
        ("ævar 0", MK, "eða er Ævar með 0 spil á hendi"),
        ("hlutakassi", MK, "nefndu spilið eina sem hlutakassinn sneri upp"),
        ("draga tvö", MK, "lagði Ævar út draga tvö"),
    ],
)
def test_refusals_are_one_icelandic_line(text: str, ctx: Context, says: str) -> None:
    with use("is"), pytest.raises(ParseError) as err:
        parse(text, ctx)
    message = str(err.value)
    assert says in message
    assert "\n" not in message


def test_an_icelandic_colour_choice_refused_suggests_the_icelandic_colour() -> None:
    ctx = Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="color")
    with use("is"), pytest.raises(ParseError) as err:
        parse("fjólublár", ctx)
    assert "er ekki litur: skrifaðu rauður, gulur, grænn eða blár" in str(err.value)
    with use("en"), pytest.raises(ParseError) as err:
        parse("purple", ctx)
    assert str(err.value) == "'purple' is not a colour: type red, yellow, green or blue"


# ---------------------------------------------------------------------- the glossary itself
def test_every_glossary_term_stands_for_words_the_parser_reads() -> None:
    for term, english in glossary.TERMS.items():
        assert term == term.lower().strip(), term
        for word in english.split():
            assert word in parse_module._ENGLISH or word.isdigit(), (term, english)


def test_accent_free_spellings_never_shadow_an_english_word() -> None:
    table = glossary.terms(parse_module._ENGLISH)
    for bare, english in table.items():
        if bare not in glossary.TERMS:  # an accent-free spelling
            assert bare not in parse_module._ENGLISH, bare
            assert glossary.plain(bare) == bare
            meanings = {v for k, v in glossary.TERMS.items() if glossary.plain(k) == bare}
            assert meanings == {english}, bare
    assert "a" not in table  # 'á' (on) is not read for the English filler 'a'


def test_the_words_tab_offers_in_icelandic_are_read() -> None:
    words = [*glossary.COMPLETE_COMMANDS, *glossary.COMPLETE_COLOURS]
    words += [w for said in glossary.COMPLETE_VERBS.values() for w in said]
    words += list(glossary.COMPLETE_KINDS.values())
    table = glossary.terms(parse_module._ENGLISH)
    for word in words:
        assert word in table or word in parse_module._ENGLISH or word.startswith(("+", "wd"))


def test_sleppa_is_the_skip_card_never_a_pass() -> None:
    """The glossary's choice (the sheets' 'slepptu spil'): a pass is 'pass'."""
    assert parse("sleppa", ATK) == Move(({"by": "Þóra", "play": "gS"},))
    assert parse("pass", ATK) == Move(({"by": "Þóra", "pass": True},))


@pytest.mark.parametrize(
    ("typed", "word"),
    [
        ("já", "yes"),
        (" Já ", "yes"),
        ("ja", "yes"),
        ("nei", "no"),
        ("ekkert", "none"),
        ("engin spil", "no cards"),
        ("tvö", "2"),
        ("hætta", "quit"),
        ("afturkalla", "undo"),
        ("", ""),
        ("yes", "yes"),  # English as it was
        ("No  Cards", "no cards"),
        ("3", "3"),
    ],
)
def test_short_answers_in_either_language(lang: str, typed: str, word: str) -> None:
    """What the table compares a one-word answer with (app.py's questions: the game's end,
    a press's card count, the next round)."""
    assert parse_module.answer(typed) == word


_BAD = [
    (ATK, "blah"),
    (ATK, "red"),
    (ATK, "red blue 5"),
    (ATK, "bleu 7"),
    (ATK, "r0"),
    (ATK, "+2"),
    (ATK, "draw"),
    (ATK, "draw 2"),
    (ATK, "challenge"),
    (ATK, "hit"),
    (ATK, "attack blue"),
    (ATK, "attack blue Þóra"),
    (ATK, "r5 g7"),
    (ATK, "r5 Ævar"),
    (ATK, "catch"),
    (ATK, "catch Zed"),
    (ATK, "Ævar catch Ævar"),
    (ATK, "press lots"),
    (ATK, "missed press"),
    (ATK, "undo x"),
    (ATK, "fix Ævar"),
    (ATK, "give g5"),
    (ATK, "sim"),
    (
        Context("attack", P, "Þóra", ("play",), "red", "r3", deck=frozenset({"r5", "W"})),
        "hit fire red",
    ),
    (
        Context("pocket-pizza", P, "Þóra", ("play",), "red", "r3", deck=frozenset({"r5", "W"})),
        "wd2 red",
    ),
    (ATK, "attack blue Ævar Örn"),
    (MK, "item box"),
    (MK, "draw 2"),
    (MK, "draw 4"),
    (MK, "draw lots"),
    (MK, "ævar 0"),
    (MK, "wild blue"),
    (MK, "challenge maybe"),
    (PP, "draw 2"),
    (PP, "r5 give g5"),
    (Context("attack", P, "Þóra", ("play",), None, None), "skip"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="color"), "purple"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="color"), "bleu"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="target"), "Zed"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None), "r5 g5"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="won"), "maybe"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="top"), "skip"),
    (Context("mario-kart", P, "Þóra", ("choose",), None, None, choice="turned"), "skip"),
    (Context("pocket-pizza", P, "Þóra", ("choose",), None, None, choice="give"), "skip"),
    (Context("attack", P, None, (), None, None), "r5"),
]


@pytest.mark.parametrize(("ctx", "text"), _BAD)
def test_every_refusal_is_translated(ctx: Context, text: str) -> None:
    """The pseudo-locale wraps each refusal whole; Icelandic says it in Icelandic, as one
    line. (The parse refuses the same lines in both languages.)"""
    with use("qps"), pytest.raises(ParseError) as err:
        parse(text, ctx)
    message = str(err.value)
    assert escaped([message], allowed=[*P, *text.split()]) == [], message
    with use("is"), pytest.raises(ParseError) as err:
        parse(text, ctx)
    message = str(err.value)
    assert "\n" not in message
    words = set(
        re.findall(
            r"[^\W\d_]+",
            re.sub(
                r"UNO (?:Attack|Mario Kart|Pocket Pizza Pizza)|'sim [^']*'|sim \w+|\w+_\w+",
                "",
                message,
            ),
        )
    )
    assert not words & (_ENGLISH_WORDS - set(text.lower().split())), message


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Ann,Ann", "tveir leikmenn heita það sama ('Ann' og 'Ann')"),
        ("Ann,,Bob", "nafn vantar"),
        ("Ann,B ob", "inniheldur bil (U+0020 SPACE)"),
        ("Ann,Bob\u200b", "inniheldur ósýnilegt tákn eða stýritákn (U+200B ZERO WIDTH SPACE)"),
        ("Ann," + "x" * 40, "í mesta lagi 32 stöfum"),
    ],
)
def test_player_name_refusals_in_icelandic(text: str, says: str) -> None:
    from unolaunch.errors import UsageError
    from unolaunch.table.names import check_names

    with use("is"), pytest.raises(UsageError) as err:
        check_names(text)
    assert says in str(err.value)
    assert check_names("Þóra,Ævar,Örn") == ["Þóra", "Ævar", "Örn"]


def test_a_misspelt_word_gets_the_word_meant_in_the_tables_language() -> None:
    with use("is"), pytest.raises(ParseError, match="áttirðu við 'sleppa'"):
        parse("rautt slepa", ATK)
    with use("is"), pytest.raises(ParseError, match="áttirðu við 'blátt'"):
        parse("bleu 7", ATK)  # an English typo: the Icelandic word for the English one
    with use("en"), pytest.raises(ParseError, match="did you mean 'blue'"):
        parse("bleu 7", ATK)
