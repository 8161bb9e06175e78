"""The About dialog is wide enough for its title bar to show its whole title, not
"About mem…op — Memex"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QApplication

from memex_desktop.store import StoreWriter
from memex_desktop.ui.about_dialog import PENDING, AboutDialog
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
    pytest.mark.qt_log_ignore("This plugin does not support"),
]

# A title bar's icon and its close, maximise and minimise buttons: about 150 px together.
TITLE_BAR_BUTTONS_PX = 150


@pytest.fixture
def named_app(qapp: QApplication) -> Iterator[str]:
    """The application named as the app names itself (window titles end with the name)."""
    before = QGuiApplication.applicationDisplayName()
    QGuiApplication.setApplicationDisplayName("Memex")
    yield "Memex"
    QGuiApplication.setApplicationDisplayName(before)


def test_the_about_dialog_is_as_wide_as_its_title(
    qtbot: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    runner: TaskRunner,
    named_app: str,
) -> None:
    # A short data folder, as the demo's may be: nothing else makes the dialog wide.
    monkeypatch.chdir(tmp_path)
    cache_path = Path("cache.db")
    StoreWriter(cache_path).close()
    dialog = AboutDialog(runner, cache_path)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.entities_label.text() != PENDING, timeout=10_000)
    title = f"{dialog.windowTitle()} — {named_app}"
    assert title == "About memex-desktop — Memex"
    bold = QFont(dialog.font())
    bold.setBold(True)
    needed = QFontMetrics(bold).horizontalAdvance(title) + TITLE_BAR_BUTTONS_PX
    assert dialog.width() >= needed, (dialog.width(), needed)
    # Not taller for it: everything it holds is still shown.
    assert dialog.height() >= dialog.minimumSizeHint().height()
