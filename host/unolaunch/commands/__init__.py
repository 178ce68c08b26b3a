"""The subcommands of the ``unolaunch`` CLI, one module each (see :mod:`unolaunch.cli`)."""
