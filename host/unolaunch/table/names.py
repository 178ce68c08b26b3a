"""Player names and typed text on the screen: what a name may hold, when two names are
the same, and how any stored text is shown without acting on the terminal.

A name is one word of visible characters. Control characters (ESC, BEL, newline, tab...),
format characters (the bidi controls such as U+202E, zero-width spaces and joiners, the
soft hyphen) and the characters that draw nothing (Hangul fillers, the blank braille
pattern, variation selectors) are refused: a name could otherwise clear the screen,
retitle the window, reverse the text after it or look the same as another name. Two
names are the same when they are equal after NFKC normalisation and case folding
(``Ann``, ``ann`` and the full-width ``\uff41\uff4e\uff4e``).

:func:`shown` is for everything drawn: it writes any such character as an escape
(``\\x1b``, ``\\u202e``), so games stored before these checks still list and resume.
Text goes to rich as :class:`rich.text.Text`, never as markup, so ``[/]`` or ``[red]Bob``
are shown as typed.
"""

from __future__ import annotations

import unicodedata

from unolaunch.errors import UsageError
from unolaunch.i18n import _, ngettext

MAX_NAME = 32

#: Printable by Python's rules, yet they draw nothing (or only change their neighbour).
_BLANK = frozenset(
    "\u034f"  # combining grapheme joiner
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers
    "\u17b4\u17b5"  # Khmer inherent vowels
    "\u180b\u180c\u180d\u180e\u180f"  # Mongolian variation selectors, vowel separator
    "\u2800"  # braille pattern blank
)


def hidden(char: str) -> bool:
    """A character that is invisible or acts on the terminal instead of being drawn."""
    code = ord(char)
    return (
        not char.isprintable()  # Cc, Cf, Cs, Co, Cn, Zl, Zp and every space but ' '
        or char in _BLANK
        or 0xFE00 <= code <= 0xFE0F  # variation selectors
        or 0xE0100 <= code <= 0xE01EF
    )


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(text: object, *, lines: bool = False) -> str:
    """``text`` safe to draw: each :func:`hidden` character written as an escape
    (``Bob\\u200b``); with ``lines``, newlines are kept as line breaks."""
    return "".join(_escape(c) if hidden(c) and not (lines and c == "\n") else c for c in str(text))


def quoted(text: object) -> str:
    """``text`` :func:`shown` in quotes, for messages: ``'Bob\\x1b[2J'``."""
    return f"'{shown(text)}'"


def name_key(name: str) -> str:
    """What two names are compared by: NFKC, case-folded (full-width ``\uff21NN`` == ``ann``)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded)


def check_name(name: str) -> str:
    """A typed player name, refused with a :class:`UsageError` saying why, or returned
    in its composed (NFC) form."""
    name = unicodedata.normalize("NFC", name.strip())
    if not name:
        raise UsageError(_("a player name is empty; write e.g. --players Ann,Bob,Cy"))
    bad = next((c for c in name if hidden(c) or c.isspace()), None)
    if bad is not None:
        # The character's Unicode name stays English (it is the standard's name).
        what = unicodedata.name(bad, "") or _CONTROL_NAMES.get(bad, "a control character")
        if unicodedata.category(bad) == "Zs":
            text = _(
                "player name {name} holds a space ({code} {what}); "
                "use one word of letters, digits or signs"
            )
        else:
            text = _(
                "player name {name} holds an invisible or control character ({code} {what}); "
                "use one word of letters, digits or signs"
            )
        raise UsageError(text.format(name=quoted(name), code=f"U+{ord(bad):04X}", what=what))
    if unicodedata.category(name[0]).startswith("M"):
        raise UsageError(
            _(
                "player name {name} starts with a combining mark; "
                "use one word of letters, digits or signs"
            ).format(name=quoted(name))
        )
    if len(name) > MAX_NAME:
        raise UsageError(
            ngettext(
                "player name {name}: use one word of at most {n} character",
                "player name {name}: use one word of at most {n} characters",
                MAX_NAME,
            ).format(name=quoted(name), n=MAX_NAME)
        )
    return name


def check_names(text: str) -> list[str]:
    """``--players A,B,C``: each name checked (:func:`check_name`), no two the same."""
    names = [check_name(n) if n.strip() else "" for n in text.split(",")]
    if any(not n for n in names):
        raise UsageError(
            _("--players {text}: a name is empty; write e.g. Ann,Bob,Cy").format(text=quoted(text))
        )
    keys = [name_key(n) for n in names]
    for i, key in enumerate(keys):
        first = keys.index(key)
        if first != i:
            raise UsageError(
                _(
                    "--players {text}: two players have the same name ({first} and {second}); "
                    "give each a different name"
                ).format(text=quoted(text), first=quoted(names[first]), second=quoted(names[i]))
            )
    return names


#: Names of the C0 controls, which unicodedata does not name.
_CONTROL_NAMES = {
    "\x00": "NULL",
    "\x07": "BELL",
    "\x08": "BACKSPACE",
    "\t": "TAB",
    "\n": "LINE FEED",
    "\x0b": "LINE TABULATION",
    "\x0c": "FORM FEED",
    "\r": "CARRIAGE RETURN",
    "\x1b": "ESCAPE",
    "\x7f": "DELETE",
}
