"""The reader's toolbar: a long title narrows with the pane, the images button only when needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memex_desktop.store import StoreWriter
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LONG_TITLE = "Local-First Software in Practice: " + "a very long subtitle " * 12


@pytest.fixture
def pane(qtbot: Any, tmp_path: Path, runner: TaskRunner) -> ReaderPane:
    writer = StoreWriter(tmp_path / "cache.db")
    items = [
            {"id": "pictured", "type": "web", "title": LONG_TITLE, "url": "https://a.example/",
             "html": '<p>Words</p><img src="https://img.example/a.png" alt="a chart">',
             "created_at": 1_700_000_000_000},
            {"id": "plain", "type": "web", "title": "Plain", "url": "https://b.example/",
             "full_text": "Only words.", "created_at": 1_700_000_001_000},
    ]  # fmt: skip
    writer.ingest_json(items).result(timeout=30)
    writer.close()
    reader = ReaderPane(tmp_path / "cache.db", runner)
    qtbot.addWidget(reader)
    reader.resize(420, 400)
    reader.show()
    return reader


def _open(qtbot: Any, pane: ReaderPane, entity_id: str) -> None:
    pane.show_entity(entity_id)
    qtbot.waitUntil(lambda: not pane.rendering and not pane.loading_more, timeout=30_000)


def test_a_long_title_ends_in_an_ellipsis_and_keeps_its_whole_text_in_the_tooltip(
    qtbot: Any, pane: ReaderPane
) -> None:
    _open(qtbot, pane, "pictured")
    label = pane.title_label
    assert label.toolTip() == label.text()
    assert label.text().startswith("Local-First Software in Practice: a very long subtitle a very")
    assert label.minimumSizeHint().width() < 200
    assert label.shown_text().endswith("…")
    assert label.fontMetrics().horizontalAdvance(label.shown_text()) <= label.width()


def test_the_images_button_is_shown_only_for_an_item_with_remote_images(
    qtbot: Any, pane: ReaderPane
) -> None:
    _open(qtbot, pane, "pictured")
    assert pane.images_button.isVisible()
    assert pane.images_button.isEnabled()
    _open(qtbot, pane, "plain")
    assert not pane.images_button.isVisible()
    # The pane's layout hears of the hidden button through a posted event.
    qtbot.waitUntil(lambda: pane.minimumSizeHint().width() < 300, timeout=5_000)
