"""Find in the article: Ctrl+F in the reader, Enter/F3 and Shift+F3, a count, Escape closes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QImage, QPalette, QTextCursor
from support.window import WindowFactory

from memex_desktop.store import StoreWriter
from memex_desktop.ui import theme
from memex_desktop.ui.find_bar import Match, count_text, find_matches
from memex_desktop.ui.palette import contrast_ratio
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

ARTICLE = "\n\n".join(
    [
        "# Compost at home",
        "Compost needs air. A compost heap that is turned stays warm.",
        "Worms like COMPOST too, and a wormery is compost's small cousin.",
        "Nothing else here.",
    ]
)


@pytest.mark.parametrize(
    ("text", "needle", "starts"),
    [
        ("Compost compost COMPOST", "compost", [0, 8, 16]),
        ("aaaa", "aa", [0, 2]),
        ("a.b a+b", "a+b", [4]),  # the needle is text, not a pattern
        ("İstanbul istanbul", "istanbul", [0, 9]),  # positions stay those of the text
        ("anything", "", []),
        ("anything", "   ", []),
    ],
)
def test_matches_ignore_case_and_keep_positions(text: str, needle: str, starts: list[int]) -> None:
    assert [match.start for match in find_matches(text, needle)] == starts


def test_the_count_reads_as_a_sentence() -> None:
    assert count_text(2, 17, "x") == "3 of 17"
    assert count_text(None, 0, "x") == "No matches"
    assert count_text(None, 0, "") == ""
    assert count_text(0, 12_000, "x") == "1 of 12,000"


def _cache(path: Path, **texts: str) -> Path:
    writer = StoreWriter(path)
    try:
        writer.ingest_json(
            [
                {"id": key, "type": "web", "title": key, "full_text": text, "created_at": 1}
                for key, text in texts.items()
            ]
        ).result(timeout=60)
    finally:
        writer.close()
    return path


@pytest.fixture
def pane(qtbot: Any, tmp_path: Path, runner: TaskRunner) -> ReaderPane:
    cache = _cache(tmp_path / "cache.db", article=ARTICLE, other="No match in this one.")
    reader = ReaderPane(cache, runner)
    qtbot.addWidget(reader)
    reader.resize(700, 500)
    reader.show()
    reader.show_entity("article")
    qtbot.waitUntil(lambda: not reader.rendering and reader.current_entity_id == "article")
    return reader


def _selected(pane: ReaderPane) -> tuple[int, str]:
    cursor = pane.browser.textCursor()
    return cursor.selectionStart(), cursor.selectedText()


def test_typing_counts_highlights_and_selects_the_first_match(qtbot: Any, pane: ReaderPane) -> None:
    pane.open_find()
    assert pane.find_bar.isVisible()
    assert pane.find_bar.field.hasFocus()
    qtbot.keyClicks(pane.find_bar.field, "compost")
    assert pane.find_bar.count_label.text() == "1 of 5"
    assert len(pane.browser.extraSelections()) == 5
    _start, text = _selected(pane)
    assert text.lower() == "compost"


def test_enter_f3_and_shift_f3_step_and_wrap(qtbot: Any, pane: ReaderPane) -> None:
    pane.open_find()
    qtbot.keyClicks(pane.find_bar.field, "compost")
    starts = [_selected(pane)[0]]
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Return)
    starts.append(_selected(pane)[0])
    assert pane.find_bar.count_label.text() == "2 of 5"
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert pane.find_bar.count_label.text() == "1 of 5"
    assert _selected(pane)[0] == starts[0]
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    assert pane.find_bar.count_label.text() == "5 of 5"  # wrapped to the last
    qtbot.keyClick(pane.browser, Qt.Key.Key_F3)
    assert pane.find_bar.count_label.text() == "1 of 5"
    assert starts[1] > starts[0]


def test_no_match_says_so_and_escape_closes(qtbot: Any, pane: ReaderPane) -> None:
    pane.open_find()
    qtbot.keyClicks(pane.find_bar.field, "rhubarb")
    assert pane.find_bar.count_label.text() == "No matches"
    assert not pane.find_bar.next_button.isEnabled()
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Escape)
    assert not pane.find_bar.isVisible()
    assert pane.browser.extraSelections() == []
    assert pane.browser.hasFocus()


def _marked_pixels(pane: ReaderPane) -> int:
    """How many pixels of the reader show a find mark or the selection's colour."""
    picture = pane.browser.viewport().grab().toImage()
    selection = pane.browser.palette().color(
        QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight
    )
    marked = 0
    for y in range(0, picture.height(), 2):
        for x in range(0, picture.width(), 2):
            colour = picture.pixelColor(x, y)
            yellowish = colour.red() > 200 and colour.green() > 120 and colour.blue() < 150
            if yellowish or colour.rgb() == selection.rgb():
                marked += 1
    return marked


def test_closing_the_bar_takes_the_last_match_off(qtbot: Any, pane: ReaderPane) -> None:
    pane.open_find()  # Ctrl+F in the window
    qtbot.keyClicks(pane.find_bar.field, "compost")
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_F3)
    assert pane.find_bar.count_label.text() == "2 of 5"
    assert _marked_pixels(pane) > 0
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Escape)
    assert not pane.find_bar.isVisible()
    assert pane.browser.extraSelections() == []
    assert not pane.browser.textCursor().hasSelection()
    assert _marked_pixels(pane) == 0


def test_closing_the_bar_leaves_the_text_where_it_was_scrolled(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    long_text = "\n\n".join(f"Paragraph {n}: a heap of compost words." for n in range(200))
    reader = ReaderPane(_cache(tmp_path / "long.db", long=long_text), runner)
    qtbot.addWidget(reader)
    reader.resize(700, 400)
    reader.show()
    reader.show_entity("long")
    qtbot.waitUntil(lambda: not reader.rendering and reader.current_document is not None)
    reader.open_find()
    qtbot.keyClicks(reader.find_bar.field, "heap")
    bar = reader.browser.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    qtbot.keyClick(reader.find_bar.field, Qt.Key.Key_Escape)
    assert bar.value() == bar.maximum() // 2
    assert not reader.browser.textCursor().hasSelection()


def test_closing_the_bar_keeps_a_passage_the_person_selected(qtbot: Any, pane: ReaderPane) -> None:
    pane.open_find()
    qtbot.keyClicks(pane.find_bar.field, "compost")
    cursor = pane.browser.textCursor()
    cursor.setPosition(0)
    cursor.setPosition(7, QTextCursor.MoveMode.KeepAnchor)
    pane.browser.setTextCursor(cursor)
    qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Escape)
    assert pane.browser.textCursor().selectedText() == pane.browser.toPlainText()[:7]


def test_another_item_is_searched_afresh(qtbot: Any, pane: ReaderPane) -> None:
    pane.open_find()
    qtbot.keyClicks(pane.find_bar.field, "compost")
    pane.show_entity("other")
    qtbot.waitUntil(lambda: not pane.rendering and pane.current_entity_id == "other")
    assert pane.browser.extraSelections() == []
    pane.find_step(1)
    assert pane.find_bar.count_label.text() == "No matches"


def test_ctrl_f_finds_in_the_reader_and_searches_the_library_elsewhere(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    from memex_desktop.emulator.synthetic import generate_library

    library = generate_library(20, seed=4, words_per_entity=40)
    context = window_factory(library=library)
    window = context.window
    target = next(e["id"] for e in library["results"] if e["type"] == "web")
    window.open_entity(target)
    qtbot.waitUntil(lambda: window.reader_pane.current_entity_id == target, timeout=10_000)
    window.reader_pane.browser.setFocus()
    qtbot.waitUntil(window.reader_pane.browser.hasFocus)
    qtbot.keyClick(window.reader_pane.browser, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.reader_pane.find_bar.isVisible()
    assert window.reader_pane.find_bar.field.hasFocus()
    window.results_view.setFocus()
    qtbot.waitUntil(window.results_view.hasFocus)
    qtbot.keyClick(window.results_view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.search_bar.field.hasFocus()


def _box_of(pane: ReaderPane, match: Match) -> QRect:
    """Where a match is drawn in the reader's viewport."""
    cursor = QTextCursor(pane.browser.document())
    cursor.setPosition(match.start)
    start = pane.browser.cursorRect(cursor)
    cursor.setPosition(match.start + match.length)
    end = pane.browser.cursorRect(cursor)
    return QRect(
        start.left() + 2, start.top() + 1, end.left() - start.left() - 4, start.height() - 2
    )


def _background(picture: QImage, box: QRect) -> str:
    """The colour most pixels of ``box`` have: the mark behind the letters."""
    counts: dict[str, int] = {}
    for y in range(box.top(), box.bottom() + 1):
        for x in range(box.left(), box.right() + 1):
            name = picture.pixelColor(x, y).name()
            counts[name] = counts.get(name, 0) + 1
    return max(counts, key=counts.__getitem__)


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_the_current_match_stands_out_from_the_others(
    qtbot: Any, pane: ReaderPane, qapp: Any, theme_name: str
) -> None:
    controller = theme.install(qapp, theme_name)
    try:
        pane.open_find()
        qtbot.keyClicks(pane.find_bar.field, "compost")
        qtbot.keyClick(pane.find_bar.field, Qt.Key.Key_Return)  # the second is current
        finder = pane._finder
        assert finder.current == 1
        picture = pane.browser.viewport().grab().toImage()
        page = _background(picture, pane.browser.viewport().rect())
        current = _background(picture, _box_of(pane, finder.matches[1]))
        others = {
            _background(picture, _box_of(pane, m)) for i, m in enumerate(finder.matches) if i != 1
        }
        assert len(others) == 1
        other = others.pop()
        # Apart from the other matches by brightness, not by hue alone, and further from the
        # page than they are.
        assert contrast_ratio(current, other) >= 1.5, (current, other)
        assert contrast_ratio(current, page) > contrast_ratio(other, page), (current, other, page)
        # The current match is still the selection: Ctrl+Shift+H highlights it.
        assert pane.selected_text().lower() == "compost"
        qtbot.keyClicks(pane.find_bar.field, "zzz")
        assert pane.find_bar.count_label.text() == "No matches"
        assert pane.browser.styleSheet() == ""  # no current match: no colours of its own
    finally:
        pane.find_bar.close_bar()
        controller.uninstall()
    # Closed, the reader's selection has its own colour again.
    assert pane.browser.styleSheet() == ""
