"""Large documents split at block boundaries and appended piece by piece lose nothing."""

from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QTextCursor, QTextDocument

from memex_desktop.api.models import parse_content_entity
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.render import RenderContext, render_entity
from memex_desktop.ui.progressive_document import DocumentFeeder, build_documents, split_html
from memex_desktop.ui.reader_pane import reader_css

pytestmark = pytest.mark.gui


def test_small_html_stays_whole() -> None:
    assert split_html("<p>short</p>", target=100) == ["<p>short</p>"]


def test_pieces_reopen_the_containers_they_were_cut_in() -> None:
    html = '<div class="doc"><div class="body">' + "<p>word</p>" * 50 + "</div></div>"
    pieces = split_html(html, target=100)
    assert len(pieces) > 3
    for piece in pieces:
        assert piece.startswith('<div class="doc"><div class="body">')
        assert piece.endswith("</div></div>")
    assert sum(piece.count("<p>word</p>") for piece in pieces) == 50


def test_no_cut_inside_a_paragraph_list_item_or_table() -> None:
    html = "<p>" + "word " * 40 + "</p><table>" + "<tr><td>x</td></tr>" * 40 + "</table>"
    assert split_html(html, target=50) == [
        html[: html.index("<table>")],
        html[html.index("<table>") :],
    ]
    item = "<ul><li>" + "<b>word</b> " * 40 + "</li></ul>"
    assert split_html(item, target=50) == [item]


def test_a_long_list_is_cut_between_items_and_reopened_at_its_depth() -> None:
    items = "".join(f"<li>item {n}</li>" for n in range(40))
    html = f'<ul><li>top<ol start="3">{items}</ol></li></ul><p>after</p>'
    pieces = split_html(html, target=100)
    assert len(pieces) > 3
    assert sum(piece.count("<li>item ") for piece in pieces) == 40
    for piece in pieces[1:-1]:
        assert piece.startswith("<ul><li")
        assert piece.endswith("</ol></li></ul>")
    for index, piece in enumerate(pieces):
        before = sum(earlier.count("<li>item ") for earlier in pieces[:index])
        assert re.findall(r'<ol start="(\d+)">', piece) == [str(3 + before)]


def test_a_cut_list_reads_as_the_whole_list(qtbot) -> None:
    del qtbot
    items = "".join(f"<li>item {n}<ul><li>sub {n}</li></ul></li>" for n in range(700))
    html = f"<div><ul>{items}</ul><ol>{items}</ol></div>"
    whole = QTextDocument()
    whole.setHtml(html)
    pieces = build_documents(html, QTextDocument, "")
    assert len(pieces) > 2
    shown = pieces[0]
    feeder = DocumentFeeder(shown, pieces[1:])
    feeder.finish_now()
    assert shown.toPlainText() == whole.toPlainText()
    assert _blocks(shown) == _blocks(whole)


def _blocks(document: QTextDocument) -> list[tuple[str, int, float]]:
    """Each block's text, heading level and left margin."""
    out = []
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        out.append((block.text(), fmt.headingLevel(), fmt.leftMargin()))
        block = block.next()
    return out


@pytest.mark.parametrize("kind", ["web", "pdf", "chatThread"])
def test_appended_pieces_equal_the_whole_document(qtbot, kind: str) -> None:
    library = generate_library(20, seed=4, words_per_entity=20_000)
    entity = next(e for e in library["results"] if e["type"] == kind)
    html = render_entity(parse_content_entity(entity), RenderContext()).html
    css = reader_css()
    whole = QTextDocument()
    whole.setDefaultStyleSheet(css)
    whole.setHtml(html)
    pieces = build_documents(html, QTextDocument, css)
    assert len(pieces) > 2
    shown = pieces[0]
    feeder = DocumentFeeder(shown, pieces[1:])
    with qtbot.waitSignal(feeder.finished, timeout=30_000):
        feeder.start()
    assert feeder.done
    assert shown.toPlainText() == whole.toPlainText()
    assert _blocks(shown) == _blocks(whole)


def test_a_lazy_feeder_appends_only_while_more_is_wanted(qtbot) -> None:
    html = "".join(f"<p>paragraph {n}</p>" for n in range(4000))
    pieces = build_documents(html, QTextDocument, "")
    assert len(pieces) > 3
    shown = pieces[0]
    wanted = [True]
    feeder = DocumentFeeder(shown, pieces[1:], wanted=lambda: wanted[0])
    wanted[0] = False
    feeder.start()
    qtbot.waitUntil(lambda: feeder.waiting, timeout=5_000)
    assert "paragraph 3999" not in shown.toPlainText()
    wanted[0] = True
    with qtbot.waitSignal(feeder.finished, timeout=10_000):
        feeder.resume()
    assert feeder.done
    assert "paragraph 3999" in shown.toPlainText()


def test_framed_pieces_keep_every_line_and_add_no_visible_gap(qtbot) -> None:
    del qtbot
    items = "".join(f"<li>item {n}<ul><li>sub {n}</li></ul></li>" for n in range(700))
    html = f"<div><ul>{items}</ul></div>"
    whole = QTextDocument()
    whole.setHtml(html)
    pieces = build_documents(html, QTextDocument, "")
    shown = pieces[0]
    feeder = DocumentFeeder(shown, pieces[1:], framed=True)
    feeder.finish_now()
    lines = [line for line in shown.toPlainText().split("\n") if line]
    assert lines == [line for line in whole.toPlainText().split("\n") if line]
    frames = shown.rootFrame().childFrames()
    assert len(frames) == len(pieces) - 1
    gap = frames[0].lastCursorPosition()
    gap.movePosition(QTextCursor.MoveOperation.NextBlock)
    assert gap.block().text() == ""
    assert gap.blockFormat().lineHeight() == 0
