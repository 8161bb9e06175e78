"""Allow ``python -m memex_desktop``."""

import multiprocessing

from memex_desktop.cli import main

# In a bundle, the render process (render/apart.py) is this executable started again: it runs
# the render process's work here instead of the app.
multiprocessing.freeze_support()

raise SystemExit(main())
