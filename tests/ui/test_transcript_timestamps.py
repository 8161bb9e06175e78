"""A transcript's ``[mm:ss]``: its line goes to the top of the reader, marked, and the video is
offered at that moment (through the link dialog) when the item has a web address."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QDesktopServices, QTextCursor
from support.signals import Emitted
from support.window import seeded_cache

from memex_desktop.ui import theme
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LINES = [{"text": f"Line {n} of the talk, about the hive.", "offset": n * 10} for n in range(80)]
VIDEO = {
    "id": "video",
    "type": "youtube",
    "title": "Hive inspection",
    "url": "https://www.youtube.com/watch?v=hive&t=4s",
    "created_at": 1,
    "transcript": {"en": LINES},
}
# A transcript without a web address to open it at (a recording kept in Memex only).
RECORDING = {
    "id": "recording",
    "type": "youtube",
    "title": "Kept recording",
    "created_at": 2,
    "transcript": {"en": LINES},
}
# A note pointing at 1:23 of the video: "Referenced by" lists it with that moment.
NOTE = {
    "id": "note",
    "type": "annotation",
    "created_at": 3,
    "text": "Smoke first.",
    "content": {
        "type": "doc",
        "content": [
            {
                "type": "paragraph",
                "content": [
                    {"type": "text", "text": "Smoke first."},
                    {
                        "type": "memex-reference",
                        "attrs": {"content_id": "video", "startTime": 83},
                    },
                ],
            }
        ],
    },
    "reference_content_ids": ["video"],
}


@pytest.fixture
def pane(qtbot: Any, tmp_path: Path, runner: TaskRunner) -> ReaderPane:
    library = {"results": [VIDEO, RECORDING, NOTE]}
    widget = ReaderPane(seeded_cache(tmp_path / "cache.db", library), runner)
    qtbot.addWidget(widget)
    widget.resize(700, 500)
    widget.show()
    return widget


@pytest.fixture
def browser_calls(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """What the link dialog was asked to show, and what went to the browser (the person
    says yes to every dialog)."""
    asked: list[str] = []
    opened: list[str] = []
    monkeypatch.setattr(
        ReaderPane, "confirm_external", lambda _pane, url: asked.append(url) or True
    )
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    return asked, opened


def _open(qtbot: Any, pane: ReaderPane, entity_id: str) -> None:
    shown = Emitted(pane.entity_shown)
    pane.show_entity(entity_id)
    assert shown.wait(qtbot) == [entity_id]


def _start_of(pane: ReaderPane, words: str) -> int:
    """Where the paragraph holding ``words`` starts in the document on screen."""
    document = pane.browser.document()
    return document.findBlock(document.toPlainText().index(words)).position()


def _is_marked(pane: ReaderPane, words: str) -> bool:
    """Whether the line holding ``words`` has the mark's background."""
    block = pane.browser.document().findBlock(_start_of(pane, words))
    return block.blockFormat().background().color() == QColor(theme.current().selection)


def _top_of(pane: ReaderPane, words: str) -> int:
    """How far below the reader's top the line holding ``words`` is shown (pixels)."""
    cursor = QTextCursor(pane.browser.document())
    cursor.setPosition(_start_of(pane, words))
    return pane.browser.cursorRect(cursor).top()


def _click(qtbot: Any, pane: ReaderPane, words: str) -> None:
    """Scroll ``words`` into view and click them with the mouse."""
    cursor = QTextCursor(pane.browser.document())
    cursor.setPosition(pane.browser.toPlainText().index(words) + 2)
    pane.browser.setTextCursor(cursor)
    pane.browser.ensureCursorVisible()
    where = pane.browser.cursorRect(cursor).center()
    qtbot.mouseClick(pane.browser.viewport(), Qt.MouseButton.LeftButton, pos=where)


def test_a_timestamp_marks_its_line_and_offers_the_video_there(
    qtbot: Any, pane: ReaderPane, browser_calls: tuple[list[str], list[str]]
) -> None:
    asked, opened = browser_calls
    _open(qtbot, pane, "video")
    _click(qtbot, pane, "[06:00]")
    qtbot.waitUntil(lambda: asked == ["https://www.youtube.com/watch?v=hive&t=360s"])
    assert opened == asked  # the person said yes: the video opens at that moment
    assert _is_marked(pane, "Line 36 of the talk")
    assert 0 <= _top_of(pane, "Line 36 of the talk") <= 48  # at the top of the reader
    assert not _is_marked(pane, "Line 35 of the talk")
    # Another moment: the mark moves with the reader.
    _click(qtbot, pane, "[07:30]")
    qtbot.waitUntil(lambda: len(asked) == 2)
    assert _is_marked(pane, "Line 45 of the talk")
    assert not _is_marked(pane, "Line 36 of the talk")
    assert not pane.browser.document().isUndoAvailable()  # a mark is no edit to undo
    # A new text size renders the item again: the moment stays marked.
    shown = Emitted(pane.entity_shown)
    pane.bigger_text()
    shown.wait(qtbot)
    assert _is_marked(pane, "Line 45 of the talk")
    assert not _is_marked(pane, "Line 36 of the talk")


def test_the_video_opens_only_after_a_yes(
    qtbot: Any, pane: ReaderPane, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    opened: list[QUrl] = []
    monkeypatch.setattr(pane, "confirm_external", lambda url: asked.append(url) or False)
    monkeypatch.setattr(QDesktopServices, "openUrl", opened.append)
    _open(qtbot, pane, "video")
    pane.follow_link("memex://entity/video?t=500")
    assert asked == ["https://www.youtube.com/watch?v=hive&t=500s"]
    assert opened == []
    assert _is_marked(pane, "Line 50 of the talk")  # the reader stays at the line


def test_the_hint_says_what_a_timestamp_does(qtbot: Any, pane: ReaderPane) -> None:
    _open(qtbot, pane, "video")
    hint = pane.link_hint("memex://entity/video?t=360")
    assert hint.splitlines() == [
        "Marks the transcript line at 06:00, then offers to open the video at 06:00 in your "
        "browser, after asking",
        "https://www.youtube.com/watch?v=hive&t=360s",
    ]
    _open(qtbot, pane, "recording")
    hint = pane.link_hint("memex://entity/recording?t=360")
    assert hint == "Goes to the transcript line at 06:00 and marks it"


def test_without_a_web_address_the_line_is_marked_and_nothing_asked(
    qtbot: Any, pane: ReaderPane, browser_calls: tuple[list[str], list[str]]
) -> None:
    asked, opened = browser_calls
    _open(qtbot, pane, "recording")
    _click(qtbot, pane, "[06:00]")
    qtbot.waitUntil(lambda: _is_marked(pane, "Line 36 of the talk"))
    assert 0 <= _top_of(pane, "Line 36 of the talk") <= 48
    assert asked == opened == []


def test_a_moment_under_referenced_by_goes_to_its_transcript_line(
    qtbot: Any, pane: ReaderPane, browser_calls: tuple[list[str], list[str]]
) -> None:
    asked, _opened = browser_calls
    _open(qtbot, pane, "video")
    assert "Referenced by" in pane.browser.toPlainText()
    pane.follow_link("memex://entity/video?t=83")  # the note's [01:23]
    # The line spoken at 1:23 (from 1:20), not the note's own line at the end of the item.
    assert _is_marked(pane, "Line 8 of the talk")
    assert 0 <= _top_of(pane, "Line 8 of the talk") <= 48
    assert asked == ["https://www.youtube.com/watch?v=hive&t=83s"]


def test_a_moment_linked_from_elsewhere_opens_the_item_at_its_line_without_asking(
    qtbot: Any, pane: ReaderPane, browser_calls: tuple[list[str], list[str]]
) -> None:
    asked, _opened = browser_calls
    _open(qtbot, pane, "note")
    shown = Emitted(pane.entity_shown)
    pane.follow_link("memex://entity/video?t=360")
    assert shown.wait(qtbot) == ["video"]
    qtbot.waitUntil(lambda: _is_marked(pane, "Line 36 of the talk"))
    assert 0 <= _top_of(pane, "Line 36 of the talk") <= 48
    assert asked == []  # going to an item is no click on its video
    # Back on the note and forward again: the line is marked again.
    pane.go_back()
    qtbot.waitUntil(lambda: pane.current_entity_id == "note" and not pane.rendering)
    pane.go_forward()
    qtbot.waitUntil(lambda: pane.current_entity_id == "video" and not pane.rendering)
    assert _is_marked(pane, "Line 36 of the talk")
