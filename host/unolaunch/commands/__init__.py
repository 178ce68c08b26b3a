"""The subcommands of ``unolaunch``: one module each (see :mod:`unolaunch.cli`)."""
