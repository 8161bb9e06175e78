"""Fixtures shared by the window's tests."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from memex_desktop.runtime import favour_the_gui_thread
from memex_desktop.ui.garbage_collector import collect_garbage_on_this_thread


@pytest.fixture
def tuned_as_run_gui(qapp: QApplication) -> Iterator[None]:
    """The interpreter tuned as run_gui tunes it for the window (the GUI thread first for the
    interpreter lock, garbage collected on it), and put back afterwards."""
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    favour_the_gui_thread()
    collector = collect_garbage_on_this_thread(qapp)
    yield
    collector.stop()
    collector.deleteLater()
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    sys.setswitchinterval(interval)
