"""Variant options: the Decisions of ../rules as defaults, house rules as switches.

Every option has a default that is the project's reading of the rules (the **Decision**
where a sheet is silent). :func:`resolve_options` checks a user's options and fills in the
defaults; unknown keys and bad values raise ``ValueError`` naming the key.

Common to all variants:

``target`` (int)
    Points that end the game (COM-8): 500 for UNO Attack (ATK-24) and Mario Kart (MK-25),
    250 for Pocket Pizza (PP-19).

UNO Attack (``attack``):

``strict_press`` (bool, default False)
    ATK-6: when True a player who could match may not press instead.
``extra_cards`` (bool, default False)
    ATK-2: add the later edition's Wild Hit Fire (ATK-17), Wild All Hit (ATK-18) and
    Trade Hands (ATK-19) to the 112 cards.
``wild_hit_fire`` / ``wild_all_hit`` (int, default 1), ``trade_hands`` (int per colour,
default 1), ``trade_hands_points`` (int, default 20)
    ATK-2: the counts and value the sheet does not give.
``customizable`` (str, default ``"wild"``)
    ATK-16: what Wild Customizable does: ``wild``, ``hit-4`` (ATK-14), ``attack-attack``
    (ATK-15), ``hit-fire`` (ATK-17), ``all-hit`` (ATK-18) or ``trade-hands`` (ATK-19).

Pocket Pizza (``pocket-pizza``):

``wild`` (default 2), ``wild_dip`` (1), ``wild_draw2`` (1)
    PP-2: the number of each wild card (the sheet's count does not add up).
``challenge_wilds_count`` (bool, default True)
    PP-13: whether holding another wild card ("any other card" that could have been
    played) makes a Wild Draw 2 challenge succeed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unolaunch.i18n import _

__all__ = ["CUSTOMIZABLE_EFFECTS", "OPTION_DEFAULTS", "resolve_options"]

CUSTOMIZABLE_EFFECTS = ("wild", "hit-4", "attack-attack", "hit-fire", "all-hit", "trade-hands")

OPTION_DEFAULTS: dict[str, dict[str, Any]] = {
    "attack": {
        "target": 500,
        "strict_press": False,
        "extra_cards": False,
        "wild_hit_fire": 1,
        "wild_all_hit": 1,
        "trade_hands": 1,
        "trade_hands_points": 20,
        "customizable": "wild",
    },
    "mario-kart": {"target": 500},
    "pocket-pizza": {
        "target": 250,
        "wild": 2,
        "wild_dip": 1,
        "wild_draw2": 1,
        "challenge_wilds_count": True,
    },
}


def resolve_options(variant: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return the variant's options with defaults filled in; ``ValueError`` names a bad key."""
    defaults = OPTION_DEFAULTS[variant]
    out = dict(defaults)
    for key, value in (options or {}).items():
        if key not in defaults:
            known = ", ".join(sorted(defaults))
            raise ValueError(
                _("unknown option {key} for {variant} (known: {known})").format(
                    key=repr(key), variant=variant, known=known
                )
            )
        default = defaults[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(
                    _("option {key} must be true or false, not {value}").format(
                        key=repr(key), value=repr(value)
                    )
                )
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    _("option {key} must be a whole number >= 0, not {value}").format(
                        key=repr(key), value=repr(value)
                    )
                )
            if key == "target" and value < 1:
                raise ValueError(_("option 'target' must be at least 1"))
        elif key == "customizable" and value not in CUSTOMIZABLE_EFFECTS:
            raise ValueError(
                _("option 'customizable' must be one of {choices}, not {value}").format(
                    choices=", ".join(CUSTOMIZABLE_EFFECTS), value=repr(value)
                )
            )
        out[key] = value
    return out
