"""Pointing at a link in the reader says where it really goes, before any click: a web link's
address (as the browser would get it), the title of the item a memex:// link opens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QMainWindow

from memex_desktop.store import StoreWriter
from memex_desktop.ui.links import link_hint
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

PAGE = (
    "<p>Read <a href='https://tides.example.org/keepers?x=1'>the tide tables</a> first, then "
    "<a href='https://www.paypal.com@phish.example.net/login'>your account</a>.</p>"
    "<p>Some words that are no link at all, to point at.</p>"
)


def _cache(path: Path) -> Path:
    items = [
        {
            "id": "page",
            "type": "web",
            "title": "Tide tables and the people who keep them",
            "url": "https://tides.example.org/",
            "created_at": 2,
            "html": PAGE,
        },
        {
            "id": "note",
            "type": "annotation",
            "created_at": 3,
            "text": "Compare with the keepers page.",
            "reference_content_ids": ["page", "gone-item"],
        },
    ]
    writer = StoreWriter(path)
    try:
        writer.ingest_json(items).result(timeout=30)
    finally:
        writer.close()
    return path


@pytest.fixture
def window(qtbot: Any, tmp_path: Path, runner: TaskRunner) -> QMainWindow:
    """A main window holding a real reader over a real cache; its status bar shows tips."""
    main = QMainWindow()
    qtbot.addWidget(main)
    main.setCentralWidget(ReaderPane(_cache(tmp_path / "cache.db"), runner))
    main.statusBar()
    main.resize(700, 500)
    main.show()
    return main


def _pane(window: QMainWindow) -> ReaderPane:
    pane = window.centralWidget()
    assert isinstance(pane, ReaderPane)
    return pane


def _open(qtbot: Any, pane: ReaderPane, entity_id: str) -> None:
    pane.show_entity(entity_id)
    qtbot.waitUntil(
        lambda: not pane.rendering and pane.current_entity_id == entity_id
        and pane.current_document is not None,
        timeout=20_000,
    )  # fmt: skip


def _point_at(qtbot: Any, pane: ReaderPane, words: str) -> None:
    """Move the mouse over ``words`` in the reader."""
    position = pane.browser.toPlainText().index(words) + 2
    cursor = QTextCursor(pane.browser.document())
    cursor.setPosition(position)
    qtbot.mouseMove(pane.browser.viewport(), pane.browser.cursorRect(cursor).center())


def test_pointing_at_a_web_link_shows_its_real_address(qtbot: Any, window: QMainWindow) -> None:
    pane = _pane(window)
    _open(qtbot, pane, "page")
    _point_at(qtbot, pane, "the tide tables")
    said = "Opens https://tides.example.org/keepers?x=1 in your browser, after asking"
    qtbot.waitUntil(lambda: pane.browser.toolTip() == said)
    assert window.statusBar().currentMessage() == said
    _point_at(qtbot, pane, "your account")
    qtbot.waitUntil(lambda: "phish.example.net" in pane.browser.toolTip())
    hint = pane.browser.toolTip()
    assert hint.startswith("Opens https://phish.example.net/login in your browser")
    assert "hides its real address" in hint  # the text before "@" only poses as PayPal
    _point_at(qtbot, pane, "no link at all")
    qtbot.waitUntil(lambda: pane.browser.toolTip() == "")
    assert window.statusBar().currentMessage() == ""


def test_pointing_at_an_items_link_names_the_item(qtbot: Any, window: QMainWindow) -> None:
    pane = _pane(window)
    _open(qtbot, pane, "note")
    _point_at(qtbot, pane, "Tide tables and the people")
    said = "Opens “Tide tables and the people who keep them” in the reader"
    qtbot.waitUntil(lambda: pane.browser.toolTip() == said)
    assert window.statusBar().currentMessage() == said
    _point_at(qtbot, pane, "not in the cache yet")
    qtbot.waitUntil(lambda: "not in the local library yet" in pane.browser.toolTip())


def test_hints_for_every_kind_of_link() -> None:
    titles = {"v1": "Rebuilding a lock gate " * 10}
    long_title = link_hint("memex://entity/v1?t=754", titles)
    assert long_title.startswith("Opens “Rebuilding a lock gate Rebuilding")
    assert long_title.endswith("…” at 12:34 in the reader")
    assert len(long_title) < 130
    # A moment of the item shown: its transcript line is marked, the video offered there.
    video = "https://www.youtube.com/watch?v=lock&t=4s"
    moment = link_hint("memex://entity/v1?t=3725", titles, "v1", current_url=video)
    assert moment.splitlines() == [
        "Marks the transcript line at 1:02:05, then offers to open the video at 1:02:05 in "
        "your browser, after asking",
        "https://www.youtube.com/watch?v=lock&t=3725s",
    ]
    no_address = link_hint("memex://entity/v1?t=3725", titles, "v1")
    assert no_address == "Goes to the transcript line at 1:02:05 and marks it"
    no_line = link_hint("memex://entity/v1?t=9", titles, "v1", has_line=lambda _s: False)
    assert no_line == "This item has no transcript line at 00:09"
    offer = link_hint(
        "memex://entity/v1?t=9", titles, "v1", current_url=video, has_line=lambda _s: False
    )
    assert (
        offer.splitlines()[0] == "Offers to open the video at 00:09 in your browser, after asking"
    )
    # An address that is not the web's is never offered.
    local = link_hint("memex://entity/v1?t=9", titles, "v1", current_url="file:///v.mp4")
    assert local == "Goes to the transcript line at 00:09 and marks it"
    assert link_hint("#notes", titles) == "Goes to another place in this item"
    assert link_hint("javascript:alert(1)", titles).startswith("javascript: links are not opened")
    assert link_hint("https://xn--80ak6aa92e.com/", titles).splitlines()[0] == (
        "Opens https://xn--80ak6aa92e.com/ in your browser, after asking"
    )


def test_a_link_clicked_is_no_longer_hinted(qtbot: Any, window: QMainWindow) -> None:
    pane = _pane(window)
    _open(qtbot, pane, "note")
    _point_at(qtbot, pane, "Tide tables and the people")
    qtbot.waitUntil(lambda: pane.browser.toolTip() != "")
    pane.browser.anchorClicked.emit(QUrl("memex://entity/page"))
    qtbot.waitUntil(lambda: pane.current_entity_id == "page")
    assert pane.browser.toolTip() == ""
    assert window.statusBar().currentMessage() == ""
