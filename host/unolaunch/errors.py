"""The root of unolaunch's exception hierarchy.

Library code raises these (or ``ValueError`` subclasses such as the rules engine's
``IllegalMoveError``); only :mod:`unolaunch.cli` turns them into ``unolaunch: message``
on standard error and an exit status.
"""

from __future__ import annotations


class UnolaunchError(Exception):
    """An error meant for the user: its message says what went wrong and what to do.

    ``exit_status`` is the process exit status the CLI uses (1 for a failure, 2 for bad
    usage or unusable input).
    """

    exit_status = 1


class UsageError(UnolaunchError):
    """The command line or an input file is unusable (exit status 2)."""

    exit_status = 2
