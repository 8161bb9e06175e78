"""The snippet line of a result row shows why the item matched: its first match is on
screen, every word of the query and every phrase marked; a search without words shows the
start of the text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.caches import indexed_reader, web_item
from support.rows import made_up_row

from memex_desktop.store import CacheReader, EntityRow
from memex_desktop.ui.results_delegate import ICON_SIZE, PADDING, ResultDelegate, RowLayout
from memex_desktop.ui.results_model import ResultsModel, mark_terms
from memex_desktop.ui.results_view import ResultsView

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

SOURCE = (
    "Beerk kyn lil dy cais groa zi tag zul ziostbethondchiork hea lel dernoast rix batcryn "
    "jar papee fox jar outfox"
)


def _marked(snippet: str) -> list[str]:
    return re.findall("\x02([^\x03]*)\x03", snippet)


class _Reader:
    """A stand-in for CacheReader whose store snippets are left to the model (none match)."""

    closed = False

    def get_many(self, ids: Sequence[str]) -> dict[str, EntityRow]:
        return {
            entity_id: made_up_row(entity_id, type_="note", snippet_source=SOURCE)
            for entity_id in ids
        }

    def snippets(self, query: str, ids: Sequence[str]) -> dict[str, str]:
        return {}


def test_a_search_without_words_shows_the_start_of_the_text(qapp: Any) -> None:
    model = ResultsModel(_Reader())
    model.set_results(["a"], query="tag:zul")
    snippet = model.data(model.index(0, 0), ResultsModel.SnippetRole)
    assert snippet.startswith("Beerk kyn")
    assert "\x02" not in snippet


def test_an_excerpt_marked_in_the_list_marks_words_as_the_search_matched_them() -> None:
    marked = mark_terms(SOURCE, '"fox jar" papee ')
    assert _marked(marked) == ["papee", "fox jar"]
    assert _marked(mark_terms(SOURCE, "fox ")) == ["fox"]


# -- the row as painted ----------------------------------------------------------------------

# The report's item: the match stands just past what a row of the list shows.
REPORTED = (
    "Beerk kyn lil dy cais groa zi wes ploam jeet trus kougizusjeand vorm dasp tilk "
    "ziostbethondchiork hea lel dernoast rix batcryn jar papee fox jar sleem dorn"
)
# A row of the list at 1366 by 768 is about 260 pixels wide.
ROW_WIDTH = 260


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[CacheReader]:
    items = [
        web_item(1, "Beerk kyn lil dy cais groa zi", REPORTED),
        web_item(2, "Short", "fox jar at the start, then words and more words to fill a line"),
    ]
    yield from indexed_reader(tmp_path / "cache.db", lambda writer: writer.ingest_json(items))


def _painted(qtbot: Any, reader: CacheReader, query: str, width: int) -> dict[str, RowLayout]:
    """The layouts the list paints for the results of ``query`` in a row ``width`` wide, by
    the first word of their titles."""
    view = ResultsView()
    model = ResultsModel(reader, view)
    delegate = ResultDelegate(view)
    view.setItemDelegate(delegate)
    view.setModel(model)
    qtbot.addWidget(view)
    view.resize(width + view.width() - view.viewport().width(), 400)
    view.show()
    qtbot.waitExposed(view)
    model.set_results(reader.search_ids(query), query=query)
    qtbot.waitUntil(lambda: view.viewport().width() == width and model.rowCount() > 0)
    assert not view.grab().isNull()
    fonts = delegate._fonts_for(view.font())
    layouts = {}
    for row in range(model.rowCount()):
        rect = view.visualRect(model.index(row, 0))
        text_width = rect.width() - 3 * PADDING - ICON_SIZE - 1
        layout = delegate.layout_for(model.index(row, 0), fonts, text_width)
        layouts[layout.title.split()[0]] = layout
    return layouts


def _line(layout: RowLayout) -> str:
    """The snippet line as drawn, its marked runs between brackets."""
    return "".join(f"[{run.text}]" if run.matched else run.text for run in layout.snippet)


@pytest.mark.parametrize("width", [ROW_WIDTH, 200, 400, 700])
def test_the_first_match_is_on_screen_a_few_words_into_the_line(
    qtbot: Any, reader: CacheReader, width: int
) -> None:
    layout = _painted(qtbot, reader, "fox jar", width)["Beerk"]
    line = _line(layout)
    assert line.startswith("…"), line
    assert "[jar]" in line, line
    # The line begins shortly before the match, even where more of the words before it fit.
    first = next(run for run in layout.snippet if run.matched)
    assert first.text == "jar"
    assert first.x <= width // 3, line


def test_every_word_shown_is_marked(qtbot: Any, reader: CacheReader) -> None:
    line = _line(_painted(qtbot, reader, "fox jar", 400)["Beerk"])
    assert "[jar] papee [fox] [jar]" in line, line


def test_a_phrase_is_marked_as_one(qtbot: Any, reader: CacheReader) -> None:
    lines = [_line(layout) for layout in _painted(qtbot, reader, '"fox jar"', ROW_WIDTH).values()]
    assert len(lines) == 2
    assert all("[fox jar]" in line for line in lines), lines


def test_a_match_at_the_start_of_the_text_shows_the_text_from_its_start(
    qtbot: Any, reader: CacheReader
) -> None:
    line = _line(_painted(qtbot, reader, "fox jar", ROW_WIDTH)["Short"])
    assert line.startswith("[fox] [jar] at the start"), line
