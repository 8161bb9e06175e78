"""A big item reaches the GUI thread as HTML in pieces, each built into a document as it goes
in: the same text and blocks as the whole document, and no document built on a worker."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QTextDocument

from memex_desktop.render.pieces import split_html
from memex_desktop.store import StoreWriter
from memex_desktop.ui.progressive_document import DocumentFeeder, piece_maker
from memex_desktop.ui.reader_pane import (
    PREVIEW_ABOVE_BYTES,
    RenderResult,
    SafeTextDocument,
    reader_css,
    render_document,
)

pytestmark = pytest.mark.gui


def _blocks(document: QTextDocument) -> list[tuple[str, int, float]]:
    """Each block's text, heading level and left margin."""
    out = []
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        out.append((block.text(), fmt.headingLevel(), fmt.leftMargin()))
        block = block.next()
    return out


@pytest.mark.parametrize("framed", [False, True])
def test_html_pieces_built_as_they_go_in_equal_the_whole_document(qtbot: Any, framed: bool) -> None:
    items = "".join(f"<li>item {n}<ul><li>sub {n}</li></ul></li>" for n in range(700))
    html = f"<h1>Contents</h1><div><ul>{items}</ul><ol>{items}</ol></div><p>The end.</p>"
    css = reader_css()
    whole = QTextDocument()
    whole.setDefaultStyleSheet(css)
    whole.setHtml(html)
    pieces = split_html(html)
    assert len(pieces) > 2
    make = piece_maker(QTextDocument, css)
    shown = make(pieces[0])
    feeder = DocumentFeeder(shown, pieces[1:], framed=framed, make_piece=make)
    with qtbot.waitSignal(feeder.finished, timeout=30_000):
        feeder.start()
    assert feeder.done
    if framed:
        assert shown.toPlainText().split() == whole.toPlainText().split()
    else:
        assert shown.toPlainText() == whole.toPlainText()
        assert _blocks(shown) == _blocks(whole)


def test_a_big_item_leaves_the_worker_as_html_pieces(qtbot: Any, tmp_path: Path) -> None:
    del qtbot
    paragraphs = "".join(f"<p>Paragraph {n} of a long saved page.</p>" for n in range(40_000))
    page = f"<html><body><h1>Long</h1>{paragraphs}</body></html>"
    assert len(page) > PREVIEW_ABOVE_BYTES
    writer = StoreWriter(tmp_path / "cache.db")
    try:
        item = {"type": "web", "id": "long", "created_at": 1_700_000_000_000, "html": page}
        writer.ingest_json([item]).result(timeout=60)
    finally:
        writer.close()
    shown: list[RenderResult] = []
    done = render_document(
        tmp_path / "cache.db",
        "long",
        False,
        None,
        reader_css(),
        None,
        cancel=threading.Event(),
        progress=shown.append,
    )
    for result in (*shown, done):
        assert result.document is None
        assert all(isinstance(piece, str) for piece in result.pieces)
        assert result.make_piece is not None
    assert [result.preview for result in shown] == [True]
    assert len(done.pieces) > 10
    assert "Paragraph 39999 " in done.pieces[-1]
    assert done.make_piece is not None
    document = done.make_piece(done.pieces[0])
    assert isinstance(document, SafeTextDocument)
    assert "Long" in document.toPlainText()


def test_a_waiting_feeder_builds_the_pieces_ahead_and_then_appends_them_all(qtbot: Any) -> None:
    html = "".join(f"<p>paragraph {n}</p>" for n in range(4000))
    whole = QTextDocument()
    whole.setHtml(html)
    pieces = split_html(html)
    assert len(pieces) > 3
    make = piece_maker(QTextDocument, "")
    shown = make(pieces[0])
    feeder = DocumentFeeder(shown, pieces[1:], wanted=lambda: False, make_piece=make)
    assert not feeder.prepared
    feeder.start()
    qtbot.waitUntil(lambda: feeder.waiting and feeder.prepared, timeout=10_000)
    assert "paragraph 3999" not in shown.toPlainText()
    with qtbot.waitSignal(feeder.finished, timeout=1_000):
        feeder.finish_now()
    assert shown.toPlainText() == whole.toPlainText()
