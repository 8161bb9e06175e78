"""Allow ``python -m memex_desktop``."""

from memex_desktop.cli import main

raise SystemExit(main())
