"""Cards: codes round-trip; decks have their published composition (ATK-1/2, MK-1, PP-1/2)."""

from __future__ import annotations

from collections import Counter

import pytest
from unolaunch import cards as C


def test_every_card_code_round_trips() -> None:
    codes = [c for c in C.CODES if c]
    assert len(codes) == len(set(codes))
    for code in codes:
        assert C.card_code(C.parse_card(code)) == code


@pytest.mark.parametrize("bad", ["", "R5", "x5", "r10", "W+3", "wild", "r", 5, None])
def test_unknown_codes_are_refused_naming_the_code(bad: object) -> None:
    with pytest.raises(C.CardError, match="unknown card code"):
        C.parse_card(bad)  # type: ignore[arg-type]


def test_colours_and_kinds() -> None:
    assert C.card_color(C.parse_card("gS")) == 2
    assert C.is_wild(C.parse_card("WIB")) and not C.is_wild(C.parse_card("b0"))
    assert C.color_index("blue") == 3 and C.color_name(0) == "red" and C.color_name(4) is None
    with pytest.raises(ValueError, match="unknown colour"):
        C.color_index("purple")


def _kinds(deck: dict[int, int]) -> Counter[str]:
    out: Counter[str] = Counter()
    for card, n in deck.items():
        code = C.card_code(card)
        out[code if C.is_wild(card) else code[1:]] += n
    return out


def test_atk1_attack_deck_is_112_cards() -> None:
    deck = C.deck_composition("attack")
    assert sum(deck.values()) == 112
    k = _kinds(deck)
    assert all(k[str(n)] == 8 for n in range(1, 10)) and k["0"] == 0
    assert (k["R"], k["S"], k["H2"], k["DA"]) == (4, 8, 8, 8)
    assert (k["W"], k["WAA"], k["WC"], k["WH4"]) == (4, 4, 3, 1)
    assert k["TH"] == k["WHF"] == k["WAH"] == 0


def test_atk2_optional_edition_adds_its_cards() -> None:
    deck = C.deck_composition("attack", {"extra_cards": True, "wild_hit_fire": 2, "trade_hands": 1})
    k = _kinds(deck)
    assert (k["WHF"], k["WAH"], k["TH"]) == (2, 1, 4)
    assert sum(deck.values()) == 112 + 2 + 1 + 4


def test_mk1_mario_kart_deck_is_112_cards() -> None:
    deck = C.deck_composition("mario-kart")
    assert sum(deck.values()) == 112
    k = _kinds(deck)
    assert k["0"] == 4 and all(k[str(n)] == 8 for n in range(1, 10))
    assert (k["+2"], k["R"], k["S"], k["W+4"], k["WIB"]) == (8, 8, 8, 4, 8)


def test_pp1_pp2_pocket_pizza_deck_is_52_cards() -> None:
    deck = C.deck_composition("pocket-pizza")
    assert sum(deck.values()) == 52
    k = _kinds(deck)
    assert all(k[str(n)] == 4 for n in range(1, 10)) and k["0"] == 0
    assert (k["+1"], k["S"], k["R"]) == (4, 4, 4)
    assert (k["W"], k["WDD"], k["W+2"]) == (2, 1, 1)  # PP-2 Decision
    opt = C.deck_composition("pocket-pizza", {"wild": 1, "wild_dip": 1, "wild_draw2": 1})
    assert sum(opt.values()) == 51  # the sheet's own count of three wilds


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        C.deck_composition("uno-flip")
