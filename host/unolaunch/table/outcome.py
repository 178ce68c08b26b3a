"""What happened at the table, as data: an :class:`Outcome` is a kind and its parameters
(who, card, cards, rule id...), never a sentence. Words are made at the edge, by each
screen in its own language (:func:`words`): the terminal and the table view in the
game's, each phone in the one it chose. The journal keeps outcomes as data too (a note's
``outcome`` and ``warning``: :meth:`Outcome.to_json`), so ``history`` says them in the
language it is run in, and no code ever recognises an outcome by its wording (a phone's
press is answered by the kind of what the launcher did with it).

An engine :class:`~unolaunch.rules.Effect` carries its message as data as well
(``Effect.msg``/``fields``); :func:`of_effect` wraps one as the outcome ``effect``.

Parameters by name: ``who``/``player``/``other`` are names, ``n``/``cards``/``size``/...
counts, ``card`` a card code (said by name), ``colour`` a colour (``red`` or 0-3), ``rule``
a rule id, ``fault`` a launcher fault code, ``verbs`` the engine's verbs, ``arming`` what the
launcher is armed for, ``next``/``then``/``rest`` nested outcomes (a list is said joined by
"; "), ``action``/``actions`` journaled action dicts, ``text`` words made elsewhere (a link
message, an error) shown as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unolaunch.i18n import N_, Nn_, _, ngettext


@dataclass(frozen=True)
class Outcome:
    """One thing that happened: ``kind`` and its ``args`` (plain data: names, counts, card
    codes, rule ids, nested outcomes)."""

    kind: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The outcome as JSON data (what the journal keeps)."""
        return {"outcome": self.kind, "args": {k: _to_json(v) for k, v in self.args.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        """An outcome from :meth:`to_json`'s data."""
        args = data.get("args")
        items = args.items() if isinstance(args, Mapping) else ()
        return cls(str(data.get("outcome")), {str(k): _from_json(v) for k, v in items})


#: Given as a warning: clears the warning shown (``None`` leaves it as it is).
CLEAR = Outcome("clear")


def text(words_made: str) -> Outcome:
    """Words made elsewhere (a link's message, an old journal's note), shown as they are."""
    return Outcome("text", {"text": words_made})


def of_effect(effect: Any) -> Outcome:
    """An engine effect (:class:`~unolaunch.rules.Effect`) as an outcome."""
    return Outcome(
        "effect",
        {
            "effect": effect.kind,
            "player": effect.player,
            "msg": list(effect.msg),
            "fields": dict(effect.fields),
            "text": effect.text,
        },
    )


def of_effects(effects: Sequence[Any]) -> list[Outcome]:
    """Engine effects as outcomes."""
    return [of_effect(e) for e in effects]


def note_outcome(data: Mapping[str, Any], key: str = "outcome") -> Outcome | None:
    """What a journal note says happened (its ``outcome``, or with ``key="warning"`` its
    warning); a note from before outcomes were data: its words as they were said (its
    ``notice``/``warning``); None when it has none."""
    found = data.get(key)
    if isinstance(found, Mapping):
        return Outcome.from_json(found)
    old = data.get("notice" if key == "outcome" else key)
    if isinstance(old, str) and old:
        from unolaunch.table.launcher import FOUL_NOTICE

        if old == FOUL_NOTICE:  # a journal from before issue 25: said in English
            return Outcome("foul")
        return text(old)
    return None


def _to_json(value: Any) -> Any:
    if isinstance(value, Outcome):
        return value.to_json()
    if isinstance(value, list | tuple):
        return [_to_json(v) for v in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, Mapping) and set(value) == {"outcome", "args"}:
        return Outcome.from_json(value)
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


# ---------------------------------------------------------------------- words
_RENDER: dict[str, Callable[[Mapping[str, Any]], str]] = {}


def _kind(name: str) -> Callable[[Callable[[Mapping[str, Any]], str]], Any]:
    def register(fn: Callable[[Mapping[str, Any]], str]) -> Any:
        _RENDER[name] = fn
        return fn

    return register


def words(outcome: Outcome | None) -> str:
    """``outcome`` in words, in the current language ("" for None)."""
    if outcome is None:
        return ""
    render = _RENDER.get(outcome.kind)
    if render is None:
        return str(outcome.args.get("text", outcome.kind))
    return render(outcome.args)


def joined(items: Any, sep: str = "; ") -> str:
    """Nested outcomes (one or a list) in words."""
    if items is None:
        return ""
    if isinstance(items, Outcome):
        return words(items)
    return sep.join(w for w in (words(o) for o in items) if w)


def _simple(name: str, msg: str) -> None:
    """A kind said by one message whose fields are the outcome's args as they are."""
    _RENDER[name] = lambda a: _(msg).format(**a)


def _counted(name: str, ids: tuple[str, str], count: str = "n") -> None:
    """A kind said by a count's message (``ids``: singular and plural; ``count``: the arg
    that counts)."""
    _RENDER[name] = lambda a: ngettext(*ids, int(a.get(count, 0))).format(**a)


@_kind("text")
def _text(a: Mapping[str, Any]) -> str:
    return str(a.get("text", ""))


@_kind("effect")
def _effect(a: Mapping[str, Any]) -> str:
    from unolaunch.rules.game import message_words
    from unolaunch.table.screen import card_names

    msg, fields = a.get("msg") or (), a.get("fields") or {}
    said = message_words(msg, fields) if msg else str(a.get("text", ""))
    return card_names(clean_effect(said))


def clean_effect(said: str) -> str:
    """An effect's words without the unknown cards of hidden hands (``?``)."""
    import re

    return re.sub(r"(?: \?)+(?= \(|$)", "", said).replace(" ? to ", " a card to ")


# -- the launcher's presses ------------------------------------------------------------
@_kind("press")
def _press(a: Mapping[str, Any]) -> str:
    n = int(a.get("cards", 0))
    out = ngettext("{who} presses: {n} card out", "{who} presses: {n} cards out", n).format(
        who=a.get("who"), n=n
    )
    rest = joined(a.get("then"))
    return f"{out} · {rest}" if rest else out


_simple("foul", N_("foul: a press nobody owes"))


@_kind("foul_warning")
def _foul_warning(a: Mapping[str, Any]) -> str:
    from unolaunch.table.launcher import verbs_text

    if a.get("who"):
        return _(
            "FOUL (ATK-26): the button was pressed when no press was owed — the launcher "
            "did not fire. {who} is to {verbs}"
        ).format(who=a["who"], verbs=verbs_text(a.get("verbs", [])))
    return _(
        "FOUL (ATK-26): the button was pressed when no press was owed — the launcher did not fire."
    )


_simple("busy", N_("press while firing: ignored"))


@_kind("busy_warning")
def _busy_warning(a: Mapping[str, Any]) -> str:
    return _("the button was pressed while the launcher was still firing: ignored · {next}").format(
        next=joined(a.get("next"))
    )


_simple("fault_refused", N_("press refused: the launcher is in a fault"))


@_kind("fault_refused_warning")
def _fault_refused_warning(a: Mapping[str, Any]) -> str:
    from unolaunch.table.launcher import fault_name

    return _(
        "the launcher is stopped ({fault}) and did not fire: fix it and type 'clear' first · {next}"
    ).format(fault=fault_name(str(a.get("fault") or "fault")), next=joined(a.get("next")))


@_kind("fault")
def _fault(a: Mapping[str, Any]) -> str:
    from unolaunch.table.launcher import fault_name

    return _("launcher fault: {code}").format(code=fault_name(str(a.get("fault"))))


@_kind("fault_warning")
def _fault_warning(a: Mapping[str, Any]) -> str:
    from unolaunch.table.launcher import FAULT_HELP

    key, player = str(a.get("key")), a.get("player")
    found = FAULT_HELP.get(key)
    if found is None:
        said = _("launcher fault {code}: {message}; type 'clear' once fixed").format(
            code=a.get("fault"), message=a.get("message", "")
        )
    else:
        who = player if isinstance(player, str) else _("the player who pressed")
        said = _(found).format(player=who, stock=a.get("stock"))
    return f"{said} · {joined(a.get('next'))}"


@_kind("next_presses")
def _next_presses(a: Mapping[str, Any]) -> str:
    n = int(a.get("n", 1))
    if a.get("until"):
        text = ngettext(
            "{who} presses next: {n} press left (until a card comes out)",
            "{who} presses next: {n} presses left (until a card comes out)",
            n,
        )
    else:
        text = ngettext(
            "{who} presses next: {n} press left", "{who} presses next: {n} presses left", n
        )
    return text.format(who=a.get("who"), n=n)


@_kind("next_verbs")
def _next_verbs(a: Mapping[str, Any]) -> str:
    from unolaunch.table.launcher import verbs_text

    verbs = verbs_text(a.get("verbs", []))
    if a.get("armed"):
        return _("next: {who} is to {verbs}").format(who=a.get("who"), verbs=verbs)
    return _("no press owed: {who} is to {verbs}").format(who=a.get("who"), verbs=verbs)


_simple("no_press", N_("no press owed"))

_counted(
    "stray",
    Nn_(
        "{n} more card came out after {who}'s press: given to {who} (now {size}; 'undo' if not)",
        "{n} more cards came out after {who}'s press: given to {who} (now {size}; 'undo' if not)",
    ),
)
_counted(
    "stray_nobody",
    Nn_(
        "{n} card came out of the launcher for nobody: give them to whoever pressed and correct "
        "the hand with 'fix NAME N'",
        "{n} cards came out of the launcher for nobody: give them to whoever pressed and "
        "correct the hand with 'fix NAME N'",
    ),
)
_counted(
    "stray_failed",
    Nn_(
        "{n} card came out after {who}'s press but could not be added ({error}): correct the "
        "hand with 'fix {who} N'",
        "{n} cards came out after {who}'s press but could not be added ({error}): correct the "
        "hand with 'fix {who} N'",
    ),
)
_counted("eject_nobody", Nn_("{n} card came out for nobody", "{n} cards came out for nobody"))
_simple(
    "eject_nobody_warning",
    N_(
        "the launcher fired without an arming; give the cards to whoever pressed and correct "
        "the hand with 'fix NAME N'"
    ),
)
_counted(
    "press_misfit",
    Nn_(
        "{who}'s press ({n} card) did not fit the game ({rule}); "
        "correct {who}'s hand with 'fix {who} N'",
        "{who}'s press ({n} cards) did not fit the game ({rule}); "
        "correct {who}'s hand with 'fix {who} N'",
    ),
)

# -- the link ------------------------------------------------------------------------
_simple("lost_burst", N_("lost the launcher during {who}'s burst"))
_simple(
    "lost_burst_warning",
    N_(
        "the launcher was unplugged while {who}'s burst ran: count the cards that came out and "
        "give them to {who} with 'fix {who} N'; then plug it back in (it is re-armed by itself)"
    ),
)
_simple("lost", N_("lost the launcher"))
_simple(
    "lost_warning",
    N_(
        "the launcher is disconnected: plug it back in (it is re-armed by itself); meanwhile a "
        "press can be typed as 'press N' (N = cards that came out)"
    ),
)
_simple(
    "trouble",
    N_(
        "launcher disconnected ({error}): plug it back in; until then type presses as 'press N' "
        "(N = cards that came out)"
    ),
)
_simple("reconnected", N_("launcher reconnected"))


@_kind("restored")
def _restored(a: Mapping[str, Any]) -> str:
    from unolaunch.table.launcher import arming_text

    if "arming" not in a:
        return str(a.get("text") or _("launcher reconnected"))
    summary = str(a.get("text") or _("launcher reconnected"))
    return summary + "; " + arming_text(a.get("arming"))


_simple("restarted", N_("launcher restarted"))
_simple("restarted_away", N_("the launcher restarted while unolaunch was away"))
_simple(
    "restarted_away_warning",
    N_(
        "the launcher restarted while unolaunch was not running, and its record of presses went "
        "with it: if anyone pressed it meanwhile, give them the cards that came out with 'fix "
        "NAME N'"
    ),
)
_simple("log_gone", N_("the launcher's log does not reach back"))
_simple(
    "log_gone_warning",
    N_(
        "more happened while unolaunch was away than the launcher keeps (its log starts at event "
        "{event}): count the cards each player got meanwhile and correct the hands with 'fix "
        "NAME N'"
    ),
)


@_kind("caught_up")
def _caught_up(a: Mapping[str, Any]) -> str:
    return _("while unolaunch was not running, {presses}").format(presses=joined(a.get("presses")))


@_kind("pressed_away")
def _pressed_away(a: Mapping[str, Any]) -> str:
    times_n = int(a.get("times", 1))
    if times_n == 1:
        times = _("once")
    elif times_n == 2:
        times = _("twice")
    else:
        times = ngettext("{n} time", "{n} times", times_n).format(n=times_n)
    cards = int(a.get("cards", 0))
    return ngettext(
        "{who} pressed {times}: {n} card out", "{who} pressed {times}: {n} cards out", cards
    ).format(who=a.get("who"), times=times, n=cards)


_simple("cleared", N_("launcher fault cleared"))
_simple("unreachable", N_("could not reach the launcher: {error}"))

# -- the table -------------------------------------------------------------------------


@_kind("phone")
def _phone(a: Mapping[str, Any]) -> str:
    what = joined(a.get("then")) or _("done")
    return _("{player} (web): {what}").format(player=a.get("who"), what=what)


_simple("phone_button", N_("{player} presses the simulated launcher's button"))
_simple("dealt", N_("round {round} dealt: {dealer} deals"))
_simple("uno", N_("UNO!"))
_counted("undid_n", Nn_("undid {n} action", "undid {n} actions"))


@_kind("undid")
def _undid(a: Mapping[str, Any]) -> str:
    from unolaunch.table.app import action_text

    what = "; ".join(action_text(x) for x in a.get("actions", []))
    back = int(a.get("back", 0))
    if back and a.get("done"):
        said = ngettext(
            "undid: {what} — put the {n} card back into the launcher (done: the simulated one "
            "holds them again)",
            "undid: {what} — put the {n} cards back into the launcher (done: the simulated one "
            "holds them again)",
            back,
        )
    elif back:
        said = ngettext(
            "undid: {what} — put the {n} card back into the launcher",
            "undid: {what} — put the {n} cards back into the launcher",
            back,
        )
    else:
        said = _("undid: {what}")
    said = said.format(what=what, n=back)
    if a.get("after"):
        # TRANSLATORS: what was undone, then what follows from it ("the game goes on").
        said = _("{undone}: {after}").format(undone=said, after=joined(a.get("after")))
    return said


_simple("game_goes_on", N_("the game goes on"))


@_kind("undid_count")
def _undid_count(a: Mapping[str, Any]) -> str:
    from unolaunch.table.app import left_text

    return _("undid: {who}'s count ({left})").format(
        who=a.get("who"), left=left_text(a.get("left", 0))
    )


@_kind("overplayed")
def _overplayed(a: Mapping[str, Any]) -> str:
    from unolaunch.table.screen import card_name, variant_title

    return ngettext(
        "{card} was played {n} time since the last reshuffle, but the {game} deck has "
        "{held} ({rule}): a typo? 'undo' takes it back",
        "{card} was played {n} times since the last reshuffle, but the {game} deck has "
        "{held} ({rule}): a typo? 'undo' takes it back",
        int(a.get("n", 0)),
    ).format(
        card=card_name(str(a.get("card"))),
        n=a.get("n"),
        game=variant_title(str(a.get("variant"))),
        held=a.get("held"),
        rule=a.get("rule"),
    )


_simple("closed", N_("the game is over: closed with 'yes'"))
