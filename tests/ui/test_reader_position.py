"""The reader keeps each item's place (going back, a restart, a new text size) and its text size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from support.window import WindowFactory

from memex_desktop.settings import Settings
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.ui.reader_pane import ReaderPane, scaled_css
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

PARAGRAPHS = [f"Paragraph {number}: " + "words of a long article " * 12 for number in range(300)]


def _cache(path: Path) -> Path:
    writer = StoreWriter(path)
    try:
        writer.ingest_json(
            [
                {
                    "id": "long",
                    "type": "web",
                    "title": "Long",
                    "created_at": 2,
                    "full_text": "\n\n".join(PARAGRAPHS),
                },
                {
                    "id": "short",
                    "type": "web",
                    "title": "Short",
                    "created_at": 1,
                    "full_text": "Short.",
                },
            ]
        ).result(timeout=60)
    finally:
        writer.close()
    return path


def _open(qtbot: Any, pane: ReaderPane, entity_id: str) -> None:
    pane.show_entity(entity_id)
    qtbot.waitUntil(
        lambda: not pane.rendering and not pane.loading_more
        and pane.current_entity_id == entity_id,
        timeout=20_000,
    )  # fmt: skip


def _top_paragraph(pane: ReaderPane) -> int:
    """The number of the paragraph at the top of the reader."""
    position = pane.top_position()
    assert position is not None
    text = pane.browser.document().toPlainText()
    before = text.rfind("Paragraph ", 0, position + len("Paragraph "))
    return int(text[before:].split(":", 1)[0].removeprefix("Paragraph "))


def _scroll_to_paragraph(qtbot: Any, pane: ReaderPane, number: int) -> None:
    pane.browser.scrollToAnchor("")  # no-op, keeps the cursor out of the way
    text = pane.browser.document().toPlainText()
    position = text.index(f"Paragraph {number}:")
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(pane.browser.document())
    cursor.setPosition(position)
    bar = pane.browser.verticalScrollBar()
    bar.setValue(bar.value() + int(pane.browser.cursorRect(cursor).top()))
    qtbot.waitUntil(lambda: _top_paragraph(pane) == number, timeout=5_000)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return _cache(tmp_path / "cache.db")


def _pane(qtbot: Any, cache: Path, runner: TaskRunner, **options: Any) -> ReaderPane:
    pane = ReaderPane(cache, runner, **options)
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    pane.show()
    return pane


def test_going_back_returns_to_the_place_left(qtbot: Any, cache: Path, runner: TaskRunner) -> None:
    pane = _pane(qtbot, cache, runner)
    _open(qtbot, pane, "long")
    _scroll_to_paragraph(qtbot, pane, 120)
    _open(qtbot, pane, "short")
    pane.go_back()
    qtbot.waitUntil(lambda: pane.current_entity_id == "long" and not pane.rendering)
    assert _top_paragraph(pane) == 120


def test_ctrl_end_and_ctrl_home_go_to_the_end_and_the_top(
    qtbot: Any, cache: Path, runner: TaskRunner
) -> None:
    pane = _pane(qtbot, cache, runner)
    _open(qtbot, pane, "long")
    bar = pane.browser.verticalScrollBar()
    pane.browser.setFocus()
    qtbot.keyClick(pane.browser, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert bar.value() == bar.maximum() > 0
    assert _top_paragraph(pane) > 290
    qtbot.keyClick(pane.browser, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert bar.value() == 0
    assert pane.browser.cursorForPosition(QPoint(0, 0)).position() == 0


def test_the_place_is_kept_in_the_cache_across_a_restart(
    qtbot: Any, cache: Path, runner: TaskRunner
) -> None:
    writer = StoreWriter(cache)
    try:
        pane = _pane(qtbot, cache, runner, remember_position=writer.set_reading_position)
        _open(qtbot, pane, "long")
        _scroll_to_paragraph(qtbot, pane, 200)
        pane.remember_position()  # as closing the window does
        writer.flush_index().result(timeout=30)
    finally:
        writer.close()
    reader = CacheReader(cache)
    try:
        assert reader.reading_position("long") is not None
        assert reader.reading_position("short") is None
    finally:
        reader.close()
    restarted = _pane(qtbot, cache, runner)
    _open(qtbot, restarted, "long")
    assert _top_paragraph(restarted) == 200


def test_bigger_and_smaller_text_keep_the_place(
    qtbot: Any, cache: Path, runner: TaskRunner
) -> None:
    pane = _pane(qtbot, cache, runner)
    sizes: list[int] = []
    pane.text_size_changed.connect(sizes.append)
    _open(qtbot, pane, "long")
    _scroll_to_paragraph(qtbot, pane, 80)
    height = pane.browser.document().size().height()
    pane.bigger_text()
    qtbot.waitUntil(lambda: not pane.rendering)
    assert pane.text_size_percent == 110
    assert pane.browser.document().size().height() > height * 1.03
    assert _top_paragraph(pane) == 80
    pane.default_text_size()
    pane.smaller_text()
    qtbot.waitUntil(lambda: not pane.rendering)
    assert sizes == [110, 100, 90]
    assert _top_paragraph(pane) == 80


def test_point_sizes_scale_and_nothing_else_does() -> None:
    css = "body { font-size: 11pt; margin: 4px; } h1 { font-size: 18pt; } .x { width: 10ptx; }"
    assert scaled_css(css, 100) == css
    scaled = scaled_css(css, 150)
    assert "16.5pt" in scaled
    assert "27.0pt" in scaled
    assert "margin: 4px" in scaled
    assert "10ptx" in scaled


def test_the_window_keeps_the_text_size_in_the_settings(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    from memex_desktop.emulator.synthetic import generate_library

    library = generate_library(10, seed=2, words_per_entity=40)
    context = window_factory(library=library)
    context.window.actions_by_key["bigger_text"].trigger()
    assert context.window.reader_pane.text_size_percent == 110
    assert Settings.load().reader_text_size_percent == 110
    restarted = window_factory(settings=Settings.load())
    assert restarted.window.reader_pane.text_size_percent == 110


def test_a_render_given_up_for_a_newer_one_of_the_same_item_is_never_shown(
    qtbot: Any, cache: Path, runner: TaskRunner
) -> None:
    pane = _pane(qtbot, cache, runner)
    _open(qtbot, pane, "long")
    for size in (110, 125, 150, 175, 200, 100, 90, 80):
        pane.set_text_size(size)  # each asks for a new render while the last one runs
    qtbot.waitUntil(lambda: not pane.rendering and not pane.loading_more, timeout=20_000)
    assert "not in the local library" not in pane.browser.toPlainText()
    assert pane.top_position() is not None
    assert pane.text_size_percent == 80
