"""PySide6 imported with a cheaper import hook: the first module of the window to import Qt.

PySide6 watches every import that follows its own and asks of each module whether its source
mentions "PySide6" (to know which modules may switch its optional ``__feature__`` syntax). It
asks through ``inspect.getsource``, which finds, reads, decodes and splits the file and keeps
its lines in ``linecache`` for the rest of the process: about 0.2 ms for each of the 560
modules the window imports after Qt. Here the same question is asked of the file's bytes.
Measured from a new process to ``import memex_desktop.app``: 636 ms against 749 (least of six).

Where PySide6 no longer has the hook (another version), nothing changes.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from types import ModuleType

import PySide6  # noqa: F401  (its import is what installs the hook made cheaper here)

log = logging.getLogger(__name__)

_FEATURE_MODULE = "shibokensupport.feature"
_HOOK = "_mod_uses_pyside"


def mentions_pyside(module: ModuleType, slow: Callable[[ModuleType], bool]) -> bool:
    """Whether the source file of ``module`` holds the word "PySide6" (``slow`` for modules
    that are not a readable ``.py`` file: built in, compiled or frozen)."""
    path = getattr(getattr(module, "__spec__", None), "origin", None)
    if isinstance(path, str) and path.endswith(".py"):
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            pass
    return slow(module)


def install() -> bool:
    """Put the cheaper check in place of PySide6's own; whether it is in place."""
    feature = sys.modules.get(_FEATURE_MODULE)
    slow = getattr(feature, _HOOK, None)
    if feature is None or not callable(slow):
        log.debug("PySide6 has no import hook to make cheaper")
        return False
    if getattr(slow, "cheaper", False):  # installed already
        return True

    def cheaper(module: ModuleType) -> bool:
        return mentions_pyside(module, slow)

    cheaper.cheaper = True  # type: ignore[attr-defined]
    setattr(feature, _HOOK, cheaper)
    return True


install()
