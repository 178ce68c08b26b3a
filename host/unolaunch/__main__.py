"""Allow ``python -m unolaunch``."""

from unolaunch.cli import main

raise SystemExit(main())
