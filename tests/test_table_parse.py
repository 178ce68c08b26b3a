"""The table's forgiving input parser: text -> scenario-format action dicts (FORMAT.md)."""

from __future__ import annotations

from typing import Any

import pytest
from unolaunch.table.parse import (
    Command,
    Context,
    Move,
    ParseError,
    complete,
    parse,
    parse_discarded,
    parse_hand,
)

P = ("Ann", "Bob", "Cy")
ATK = Context("attack", P, "Ann", ("play", "press"), "green", "g3")
MK = Context("mario-kart", P, "Bob", ("play", "draw"), "red", "r3")
PP = Context("pocket-pizza", ("Ann", "Bob"), "Bob", ("play", "draw"), "yellow", "y2")


def one(text: str, ctx: Context = ATK) -> dict[str, Any]:
    parsed = parse(text, ctx)
    assert isinstance(parsed, Move), parsed
    assert len(parsed.actions) == 1
    return parsed.actions[0]


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("r5", {"by": "Ann", "play": "r5"}),
        ("R5", {"by": "Ann", "play": "r5"}),
        ("red 5", {"by": "Ann", "play": "r5"}),
        ("5 red", {"by": "Ann", "play": "r5"}),
        ("red five", {"by": "Ann", "play": "r5"}),
        ("5", {"by": "Ann", "play": "g5"}),  # the colour to match
        ("skip", {"by": "Ann", "play": "gS"}),
        ("blue skip", {"by": "Ann", "play": "bS"}),
        ("yS", {"by": "Ann", "play": "yS"}),
        ("reverse", {"by": "Ann", "play": "gR"}),
        ("rR", {"by": "Ann", "play": "rR"}),
        ("hit 2", {"by": "Ann", "play": "gH2"}),  # ATK-11
        ("red hit2", {"by": "Ann", "play": "rH2"}),
        ("discard all", {"by": "Ann", "play": "gDA"}),  # ATK-12
        ("wild blue", {"by": "Ann", "play": "W", "color": "blue"}),  # ATK-13
        ("blue wild", {"by": "Ann", "play": "W", "color": "blue"}),
        ("wh4 red", {"by": "Ann", "play": "WH4", "color": "red"}),  # ATK-14
        ("wild hit 4 yellow", {"by": "Ann", "play": "WH4", "color": "yellow"}),
        ("attack blue Bob", {"by": "Ann", "play": "WAA", "color": "blue", "target": "Bob"}),
        ("attack bob blue", {"by": "Ann", "play": "WAA", "color": "blue", "target": "Bob"}),
        ("custom red", {"by": "Ann", "play": "WC", "color": "red"}),  # ATK-16
        ("custom red Cy", {"by": "Ann", "play": "WC", "color": "red", "target": "Cy"}),
        ("hit fire green", {"by": "Ann", "play": "WHF", "color": "green"}),  # ATK-17
        ("all hit red", {"by": "Ann", "play": "WAH", "color": "red"}),  # ATK-18
        ("red trade Cy", {"by": "Ann", "play": "rTH", "target": "Cy"}),  # ATK-19
        ("r5 uno", {"by": "Ann", "play": "r5", "uno": True}),  # COM-6
        ("Bob: r5", {"by": "Bob", "play": "r5"}),
        ("cy red 7", {"by": "Cy", "play": "r7"}),
        ("press", {"by": "Ann", "press": True}),
        ("press 3", {"by": "Ann", "press": True, "cards": 3}),
        ("p 0", {"by": "Ann", "press": True, "cards": 0}),
        ("catch Bob", {"by": "Ann", "catch": "Bob"}),  # COM-6
        ("Cy catch bob", {"by": "Cy", "catch": "Bob"}),
        ("catch Ann", {"by": "Bob", "catch": "Ann"}),  # Ann is awaited: someone else catches
    ],
)
def test_attack_inputs(text: str, action: dict[str, Any]) -> None:
    assert one(text) == action


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("r0", {"by": "Bob", "play": "r0"}),  # MK-1 has zeros
        ("+2", {"by": "Bob", "play": "r+2"}),  # MK-10
        ("green draw two", {"by": "Bob", "play": "g+2"}),
        ("wd4 red", {"by": "Bob", "play": "W+4", "color": "red"}),  # MK-12
        ("wild draw four blue", {"by": "Bob", "play": "W+4", "color": "blue"}),
        ("item box g7", {"by": "Bob", "play": "WIB", "turned": "g7"}),  # MK-13
        ("draw", {"by": "Bob", "draw": True}),  # MK-9
        ("pass", {"by": "Bob", "pass": True}),
        ("challenge", {"by": "Bob", "challenge": True}),  # MK-20
        ("challenge won", {"by": "Bob", "challenge": True, "won": True}),
        ("accept", {"by": "Bob", "accept": True}),
    ],
)
def test_mario_kart_inputs(text: str, action: dict[str, Any]) -> None:
    assert one(text, MK) == action


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("+1", {"by": "Bob", "play": "y+1"}),  # PP-9
        ("wd2 red", {"by": "Bob", "play": "W+2", "color": "red"}),  # PP-12
        ("+2 red", {"by": "Bob", "play": "W+2", "color": "red"}),
        ("dip blue", {"by": "Bob", "play": "WDD", "color": "blue"}),  # PP-11
        ("dip blue give g5", {"by": "Bob", "play": "WDD", "color": "blue", "give": "g5"}),
        ("wild green", {"by": "Bob", "play": "W", "color": "green"}),  # PP-10
    ],
)
def test_pocket_pizza_inputs(text: str, action: dict[str, Any]) -> None:
    assert one(text, PP) == action


def test_draw_owed_cards_is_several_draw_actions() -> None:
    ctx = Context("mario-kart", P, "Bob", ("draw",), "red", "r+2")
    parsed = parse("draw 2", ctx)
    assert isinstance(parsed, Move)
    assert parsed.actions == ({"by": "Bob", "draw": True},) * 2


def test_bare_count_is_a_press_without_launcher_when_presses_are_owed() -> None:
    ctx = Context("attack", P, "Bob", ("press",), "red", "rH2")
    assert one("2", ctx) == {"by": "Bob", "press": True, "cards": 2}


def test_choices_answer_with_a_colour_or_a_player() -> None:
    ctx = Context("mario-kart", P, "Ann", ("choose",), None, "WIB")
    assert one("blue", ctx) == {"by": "Ann", "choose": {"color": "blue"}}
    assert one("cy", ctx) == {"by": "Ann", "choose": {"target": "Cy"}}
    assert one("choose green", ctx) == {"by": "Ann", "choose": {"color": "green"}}


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("undo", Command("undo", (1,))),
        ("undo 3", Command("undo", (3,))),
        ("help", Command("help", ())),
        ("?", Command("help", ())),
        ("quit", Command("quit")),
        ("uno", Command("uno")),
        ("", Command("show")),
        ("fix Bob 5", Command("fix", ("Bob", 5))),
        ("Bob has 5", Command("fix", ("Bob", 5))),
        ("cy has 0", Command("fix", ("Cy", 0))),
    ],
)
def test_table_commands(text: str, command: Command) -> None:
    assert parse(text, ATK) == command


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("blah", "not a card"),
        ("r0", "no red 0"),  # ATK-1: no zeros in UNO Attack
        ("+2", "no Draw Two in UNO Attack: did you mean 'hit 2'"),
        ("wd4 red", "no Wild Draw Four in UNO Attack: did you mean 'hit 4'"),
        ("mk", "not a card"),
        ("attack blue", "name the target"),
        ("attack blue Ann", "cannot target themselves"),
        ("red", "red what"),
        ("r5 g7", "one card at a time"),
        ("catch", "catch whom"),
        ("catch Zed", "catch whom"),
        ("press lots", "press N"),
        ("undo x", "undo how many"),
        ("fix Bob", "fix PLAYER N"),
        ("r5 Bob", "takes no target"),
        ("give g5", "what did Ann play"),
    ],
)
def test_unparseable_input_gets_one_line_saying_what_to_do(text: str, says: str) -> None:
    with pytest.raises(ParseError) as err:
        parse(text, ATK)
    message = str(err.value)
    assert says in message
    assert "\n" not in message


def test_colourless_card_without_a_colour_to_match_asks_for_it() -> None:
    ctx = Context("attack", P, "Ann", ("play",), None, None)
    with pytest.raises(ParseError, match="which colour"):
        parse("skip", ctx)


def test_wild_item_box_carries_turned_card_bob_omb_colour_and_shell_target() -> None:
    # MK-13 (hidden hands: the table names the turned card), MK-16, MK-18.
    assert one("item box g7 Cy", MK) == {"by": "Bob", "play": "WIB", "turned": "g7", "target": "Cy"}
    assert one("item box red W+4", MK) == {
        "by": "Bob",
        "play": "WIB",
        "turned": "W+4",
        "color": "red",
    }
    with pytest.raises(ParseError, match="one card the Item Box turned up"):
        parse("item box g7 r5", MK)
    with pytest.raises(ParseError, match="one card the Item Box turned up"):
        parse("wib", MK)


def test_discard_all_lists_the_other_cards_it_took_out() -> None:
    # ATK-12 with hidden hands: bare numbers take the Discard All's colour.
    assert one("blue discard all 3 b7") == {"by": "Ann", "play": "bDA", "discarded": ["b3", "b7"]}


@pytest.mark.parametrize(
    ("choice", "text", "action"),
    [
        ("top", "r5", {"by": "Ann", "choose": {"top": "r5"}}),  # COM-4 start card
        ("top", "wild", {"by": "Ann", "choose": {"top": "W"}}),
        ("top", "green skip", {"by": "Ann", "choose": {"top": "gS"}}),
        ("turned", "y3", {"by": "Ann", "choose": {"turned": "y3"}}),  # MK-13
        ("won", "won", {"by": "Ann", "choose": {"won": True}}),  # MK-20
        ("won", "lost", {"by": "Ann", "choose": {"won": False}}),  # MK-21
        ("won", "yes", {"by": "Ann", "choose": {"won": True}}),
    ],
)
def test_table_facts(choice: str, text: str, action: dict[str, Any]) -> None:
    ctx = Context("attack", P, "Ann", ("choose",), None, None, choice=choice)
    assert one(text, ctx) == action


@pytest.mark.parametrize(("choice", "text"), [("top", "skip"), ("top", "blah"), ("won", "maybe")])
def test_table_facts_refuse_nonsense(choice: str, text: str) -> None:
    ctx = Context("attack", P, "Ann", ("choose",), None, None, choice=choice)
    with pytest.raises(ParseError):
        parse(text, ctx)
    assert parse("undo", ctx) == Command("undo", (1,))  # commands still work there


def test_round_end_hand_as_cards_or_points() -> None:
    assert parse_hand("r5 g7 wild", ATK) == ["r5", "g7", "W"]
    assert parse_hand("red 5, blue skip, wh4", ATK) == ["r5", "bS", "WH4"]
    assert parse_hand("37", ATK) == 37
    assert parse_hand("37 points", ATK) == 37
    assert parse_hand("none", ATK) == []  # no cards: checked against the hand size (COM-8)
    # Issue 22: a card's points do not depend on its colour (ATK-1): 'skip' needs none.
    assert [c[1:] for c in parse_hand("skip skip", ATK)] == ["S", "S"]
    with pytest.raises(ParseError, match="point total"):
        parse_hand("skip lots", ATK)
    with pytest.raises(ParseError):
        parse_hand("", ATK)


def test_completion_offers_words_of_this_variant() -> None:
    assert "attack" in complete("at", ATK)
    assert complete("wd", MK) == ["wd4"]
    assert "Bob" in complete("catch B", ATK)
    assert complete("zz", ATK) == []


# Issue 10, "Reading what players type": commas separate cards; a wild before a coloured
# card keeps its colour word only when that word does not start the next card.
@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("r5 g7 wild blue skip", ["r5", "g7", "W", "bS"]),  # COM-8: the Skip is blue
        ("r5, g7, wild, blue skip", ["r5", "g7", "W", "bS"]),
        ("r5,g7,wh4", ["r5", "g7", "WH4"]),
        ("wild blue", ["W"]),  # a colour alone is the wild's
        ("wild, blue", ["W"]),
        ("hit4 red hit 2", ["WH4", "rH2"]),
        ("wild red 5", ["W", "r5"]),
    ],
)
def test_com8_hand_at_round_end_with_wilds_and_commas(text: str, cards: list[str]) -> None:
    assert parse_hand(text, ATK) == cards


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("item box red skip", {"by": "Bob", "play": "WIB", "turned": "rS"}),  # MK-13
        ("item box, red skip", {"by": "Bob", "play": "WIB", "turned": "rS"}),
        ("item box blue g7", {"by": "Bob", "play": "WIB", "turned": "g7", "color": "blue"}),
        (
            "item box g7 Cy blue",  # MK-16/MK-18: target and colour after the turned card
            {"by": "Bob", "play": "WIB", "turned": "g7", "color": "blue", "target": "Cy"},
        ),
        ("Bob: r5, uno", {"by": "Bob", "play": "r5", "uno": True}),
    ],
)
def test_mk13_item_box_card_after_a_colour_and_commas(text: str, action: dict[str, Any]) -> None:
    assert one(text, MK) == action


def test_atk12_discard_all_cards_separated_by_commas() -> None:
    assert one("yellow discard all, y3, y9") == {
        "by": "Ann",
        "play": "yDA",
        "discarded": ["y3", "y9"],
    }
    assert one("wild, blue") == {"by": "Ann", "play": "W", "color": "blue"}


def test_atk12_what_went_with_a_discard_all() -> None:
    yellow = Context("attack", P, "Ann", ("play", "press"), "yellow", "yDA")
    assert parse_discarded("y3 y9", yellow) == ["y3", "y9"]
    assert parse_discarded("3, 9", yellow) == ["y3", "y9"]
    assert parse_discarded("2", yellow) == 2  # how many
    assert parse_discarded("none", yellow) == []
    with pytest.raises(ParseError, match="r3 is not yellow"):
        parse_discarded("r3", yellow)


def test_a_name_and_a_number_asks_a_play_or_a_hand_size() -> None:
    """Issue 22: 'Cy 0' could be Cy playing a 0 or Cy holding none: asked; 'Cy: 0' is
    Cy's play (a colon names who did it)."""
    with pytest.raises(ParseError, match=r"did Cy play a 0 .* or does Cy hold 0 cards"):
        parse("cy 0", MK)
    assert parse("Cy: 0", MK) == Move(({"by": "Cy", "play": "r0"},))
