"""An item shown again while it is being read (a sync brought what now points at it, a new text
size) is shown whole: its highlights and the moment gone to, painted again at once, leave every
line of it laid out, to its last transcript line and its "Referenced by" section. So does a
page whose picture is made to fit the reader as it opens.

Qt lays a newly shown document out in steps; a format changed before the last step ended the
layout there, and the lines after it were neither drawn nor reachable by scrolling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QTextCursor, QTextDocument
from support.caches import processed_item
from support.images import png_bytes
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop import paths
from memex_desktop.app import AppContext
from memex_desktop.render.image_cache import ImageSource
from memex_desktop.render.image_check import check_image
from memex_desktop.store import ChangeSet, StoreWriter
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

T0 = 1_700_000_000_000
# A talk of several screens, laid out in more than one step, yet small enough to be shown in
# one piece (as the demo's talk is).
LINES = [f"Line {n} of the talk, on outboxes, retries and one writer thread." for n in range(60)]
LIBRARY: dict[str, Any] = {
    "results": [
        processed_item(
            "talk",
            "youtube",
            T0,
            title="The Network Is an Optimisation",
            url="https://www.youtube.com/watch?v=talk",
            transcript={"en": [{"text": text, "offset": 2 * n} for n, text in enumerate(LINES)]},
        )
    ],
    "referencesByResultId": {},
    "extraEntities": [],
    "referencedEntities": [],
    "referencedTags": [],
    "meta": {},
}


@pytest.fixture
def context(qtbot: Any, window_factory: WindowFactory) -> AppContext:
    context = window_factory(library=LIBRARY)
    shown = Emitted(context.window.highlights.highlights_shown)
    context.window.open_entity("talk")
    qtbot.waitUntil(lambda: ["talk"] in shown.calls, timeout=10_000)
    return context


def _unlaid(document: QTextDocument) -> list[str]:
    """The lines of ``document`` that are not laid out (neither drawn nor scrolled to)."""
    unlaid: list[str] = []
    block = document.begin()
    while block.isValid():
        if block.isVisible() and block.layout().lineCount() == 0:
            unlaid.append(block.text())
        block = block.next()
    return unlaid


def _wait_laid_out(qtbot: Any, document: QTextDocument) -> None:
    """Qt lays the rest of a document out a step a turn: given the time, no line is left."""

    def laid_out() -> None:
        assert _unlaid(document) == []

    qtbot.waitUntil(laid_out, timeout=3_000)


def _highlight_line(qtbot: Any, context: AppContext, words: str) -> None:
    """Select a transcript line's words and press Ctrl+Shift+H; wait for its paint."""
    reader = context.window.reader_pane
    document = reader.browser.document()
    start = document.toPlainText().index(words)
    cursor = QTextCursor(document)
    cursor.setPosition(start)
    cursor.setPosition(start + len(words), QTextCursor.MoveMode.KeepAnchor)
    reader.browser.setTextCursor(cursor)
    queued = Emitted(context.window.highlights.highlight_queued)
    assert context.window.highlights.highlight_selection() is not None
    qtbot.waitUntil(lambda: len(queued.calls) == 1, timeout=10_000)
    qtbot.waitUntil(lambda: reader.highlight_painter.painted_ids() != [], timeout=10_000)


def _shown_again(qtbot: Any, reader: ReaderPane, refresh: str) -> None:
    """Read to the end of the item, then show it again, as a sync or a new text size does."""
    bar = reader.browser.verticalScrollBar()
    assert bar.maximum() > 2 * reader.browser.viewport().height()  # several screens long
    bar.setValue(bar.maximum())
    shown = Emitted(reader.entity_shown)
    if refresh == "sync":
        reader.on_store_changed(ChangeSet(entity_ids=frozenset({"talk"})))
    else:
        reader.bigger_text()
    shown.wait(qtbot)


@pytest.mark.parametrize("refresh", ["sync", "text size"])
def test_an_item_with_highlights_shown_again_is_laid_out_to_its_end(
    qtbot: Any, context: AppContext, refresh: str
) -> None:
    reader = context.window.reader_pane
    _highlight_line(qtbot, context, LINES[30])
    _highlight_line(qtbot, context, LINES[50])
    _shown_again(qtbot, reader, refresh)
    document = reader.browser.document()
    assert reader.highlight_painter.painted_ids() != []
    _wait_laid_out(qtbot, document)
    last = document.lastBlock()
    assert LINES[-1] in last.text()
    bottom = last.layout().position().y() + last.layout().boundingRect().height()
    assert document.size().height() >= bottom


def test_the_moment_gone_to_marked_again_leaves_the_item_laid_out_to_its_end(
    qtbot: Any, context: AppContext
) -> None:
    reader = context.window.reader_pane
    reader.scroll_to("t-60")  # the line spoken at 1:00 is marked
    _shown_again(qtbot, reader, "sync")
    document = reader.browser.document()
    assert reader.highlight_painter.painted_ids() == []
    _wait_laid_out(qtbot, document)


def test_an_item_opened_at_a_moment_is_laid_out_to_its_end(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    context = window_factory(library=LIBRARY)
    reader = context.window.reader_pane
    shown = Emitted(reader.entity_shown)
    reader.show_entity("talk", "t-10")  # a link to the talk at 0:10, its line marked
    shown.wait(qtbot)
    _wait_laid_out(qtbot, reader.browser.document())


WIDE = "https://pics.example.org/wide.png"


def test_a_long_page_whose_picture_is_fitted_as_it_opens_is_laid_out_to_its_end(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    words = [f"Paragraph {n} of a long page about rain barrels and drip lines." for n in range(60)]
    page = {
        "id": "page",
        "type": "web",
        "title": "Rainwater on a rooftop",
        "url": "https://blog.example.org/rain",
        "created_at": T0,
        "html": f'<p><img src="{WIDE}" alt="a barrel"></p>'
        + "".join(f"<p>{text}</p>" for text in words),
    }
    cache = tmp_path / "data" / "cache.db"
    cache.parent.mkdir(parents=True)
    writer = StoreWriter(cache)
    try:
        writer.ingest_json([page]).result(timeout=30)
    finally:
        writer.close()
    source = ImageSource.limited(paths.image_cache_path(cache.parent), 50)
    kept = source.cache()
    assert kept is not None
    kept.keep({WIDE: check_image(png_bytes(1600, 500))})  # wider than the reader
    kept.allow_item("page")
    pane = ReaderPane(cache, runner, images=source)
    qtbot.addWidget(pane)
    pane.resize(600, 500)
    pane.show()
    shown = Emitted(pane.entity_shown)
    pane.show_entity("page")
    shown.wait(qtbot)
    document = pane.browser.document()
    assert document.toPlainText().rstrip().endswith(words[-1])
    _wait_laid_out(qtbot, document)
