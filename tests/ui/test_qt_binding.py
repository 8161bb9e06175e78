"""The Qt binding keeps None alive across many void calls (PySide6 6.12.0 did not)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gui

# Runs in a child process: a binding that over-releases None aborts the interpreter
# ("deallocating None"), which must fail this test rather than kill the test run.
_PROBE = """
import sys
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication([])
widget = QWidget()
before = sys.getrefcount(None)
for i in range(20_000):
    widget.setEnabled(i % 2 == 0)
    widget.setToolTip("tip")
    app.processEvents()
print(sys.getrefcount(None) - before)
"""


def test_twenty_thousand_void_calls_leave_none_alive() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    drift = int(done.stdout.strip().splitlines()[-1])
    # A leak of one reference per void call would show as a drift of about -60,000.
    assert abs(drift) < 100, f"reference count of None moved by {drift}"
