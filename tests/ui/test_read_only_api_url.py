"""Settings in the demo (or with --api-url): the API URL the session chose is shown as read-only
text, not as a field waiting to be typed in, and the focus starts on what can be changed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from memex_desktop.settings import Settings
from memex_desktop.ui import theme
from memex_desktop.ui.dialogs import SettingsDialog
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
    pytest.mark.qt_log_ignore("This plugin does not support"),
]

DEMO_URL = "http://127.0.0.1:8787"


@pytest.fixture(params=["light", "dark"])
def themed(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[str]:
    """The app's theme (its style sheet draws every field), removed after."""
    controller = theme.install(qapp, request.param)
    yield request.param
    controller.uninstall()


@pytest.fixture
def dialog(qtbot: Any, themed: str, runner: TaskRunner) -> SettingsDialog:
    """Settings as the demo opens them: signed out, the session's server not the saved one."""
    shown = SettingsDialog(
        Settings(),
        has_key=True,
        key_in_memory_only=True,
        runner=runner,
        api_url_in_use=DEMO_URL,
    )
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    return shown


def _distance(one: QColor, other: QColor) -> int:
    return sum(abs(a - b) for a, b in zip(one.getRgb()[:3], other.getRgb()[:3], strict=True))


def test_the_session_url_looks_read_only(dialog: SettingsDialog) -> None:
    field = dialog.api_url
    assert dialog.api_url_fixed
    assert field.isReadOnly()
    assert field.text() == DEMO_URL
    assert not field.hasFrame()
    picture = field.grab().toImage()
    window = dialog.palette().color(QPalette.ColorRole.Window)
    # The field's inside, right of the URL: the window's background, not a field's.
    inside = picture.pixelColor(picture.width() - 4, picture.height() // 2)
    assert _distance(inside, window) <= 6, (inside.name(), window.name())
    # Its edge: no frame drawn around it.
    edge = picture.pixelColor(picture.width() - 1, picture.height() // 2)
    assert _distance(edge, window) <= 6, (edge.name(), window.name())


def test_the_focus_starts_on_a_field_that_can_be_changed(dialog: SettingsDialog) -> None:
    focused = dialog.focusWidget()
    assert focused is not dialog.api_url
    assert focused is dialog.api_key


def test_an_editable_url_keeps_its_field(qtbot: Any, themed: str) -> None:
    """Without a session server the URL is a setting like the others: a framed field."""
    editable = SettingsDialog(Settings(), has_key=True, key_in_memory_only=True)
    qtbot.addWidget(editable)
    assert not editable.api_url_fixed
    assert not editable.api_url.isReadOnly()
    assert editable.api_url.hasFrame()
    assert not editable.api_url.styleSheet()
