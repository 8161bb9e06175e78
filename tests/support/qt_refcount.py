"""Keep None, True and False alive under a Qt binding that over-releases them.

PySide6 6.12.0 on CPython 3.11 drops one reference to ``None`` each time a void method returns
(``widget.setEnabled(True)``, ``app.processEvents()``, ...). Before 3.12 these singletons are
not immortal, so a few thousand calls end the process with "deallocating None". Giving them a
huge permanent reference count makes the tests independent of that bug.
"""

from __future__ import annotations

import ctypes
import sys

_HEADROOM = 1 << 40


def keep_singletons_alive() -> None:
    """Add permanent references to None, True and False (once per process; no-op on 3.12+)."""
    if sys.version_info >= (3, 12) or getattr(sys, "_memex_singletons_kept", False):
        return
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _HEADROOM
    sys._memex_singletons_kept = True  # type: ignore[attr-defined]
