"""Big items in the reader: cut at the text budget and marked, first screen first, lazily laid out.

The caches are real SQLite files written by the store's writer; the timing and memory
acceptance runs the reader pane in a fresh process (the benchmark's own measure), so the
test process's memory does not count.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from support.signals import Emitted

from memex_desktop.store import StoreWriter
from memex_desktop.ui.reader_pane import PREVIEW_CHARS, ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_big_item.py"


def _benchmark() -> ModuleType:
    """The big item benchmark module (its article generator and its measuring process)."""
    spec = importlib.util.spec_from_file_location("bench_big_item_for_tests", BENCHMARK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _benchmark()


def _cache(path: Path, **sizes: int) -> Path:
    """A cache at ``path`` holding one web article per id, of the given number of characters."""
    writer = StoreWriter(path)
    try:
        for entity_id, size in sizes.items():
            item = {
                "id": entity_id,
                "type": "web",
                "title": f"Article {entity_id}",
                "url": f"https://example.org/{entity_id}",
                "full_text": bench.article_text(size),
                "created_at": 1_700_000_000_000,
            }
            writer.ingest_json([item]).result(timeout=60)
    finally:
        writer.close()
    return path


def _pane(qtbot: Any, cache: Path, runner: TaskRunner, item_text_mb: float) -> ReaderPane:
    pane = ReaderPane(cache, runner, item_text_mb=item_text_mb)
    qtbot.addWidget(pane)
    pane.resize(700, 500)
    pane.show()
    return pane


def _open(qtbot: Any, pane: ReaderPane, entity_id: str) -> None:
    """Open an item and wait until its render (first screen and the rest) is done."""
    pane.show_entity(entity_id)
    qtbot.waitUntil(lambda: not pane.rendering and not pane.loading_more, timeout=60_000)


def test_an_item_past_the_budget_is_cut_and_marked(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    cache = _cache(tmp_path / "cache.db", big=300_000, small=2_000)
    pane = _pane(qtbot, cache, runner, item_text_mb=0.05)
    _open(qtbot, pane, "big")
    assert pane.truncated
    assert pane.truncation_bar.isVisible()
    assert pane.truncation_label.text() == "This item is 0.3 MB; showing the first 0.05 MB."
    assert pane.whole_button.isEnabled()
    shown = pane.current_document.toPlainText()
    assert 40_000 < len(shown) < 60_000
    assert bench.article_text(300_000)[:200].split("\n")[0].lstrip("# ") in shown

    pane.whole_button.click()
    qtbot.waitUntil(lambda: not pane.rendering and not pane.loading_more, timeout=60_000)
    assert not pane.truncated
    assert not pane.truncation_bar.isVisible()
    assert len(pane.current_document.toPlainText()) > 250_000

    _open(qtbot, pane, "small")
    assert not pane.truncated
    assert not pane.truncation_bar.isVisible()


def test_a_large_item_shows_its_first_screen_before_the_rest(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    cache = _cache(tmp_path / "cache.db", large=1_300_000)
    pane = _pane(qtbot, cache, runner, item_text_mb=8.0)
    shown = Emitted(pane.entity_shown)
    lengths: list[int] = []
    pane.entity_shown.connect(lambda _: lengths.append(len(pane.current_document.toPlainText())))
    pane.show_entity("large")
    shown.wait(qtbot, 30_000)
    assert pane.loading_more  # the first screen is up, the rest is on its way
    assert not pane.truncation_bar.isVisible()  # within the budget: nothing will be cut
    qtbot.waitUntil(lambda: not pane.rendering and not pane.loading_more, timeout=60_000)
    assert shown.calls == [["large"]]  # shown once, at its first screen
    assert lengths[0] <= PREVIEW_CHARS
    assert not pane.truncated
    assert len(pane.current_document.toPlainText()) > 1_000_000


def test_a_huge_document_is_laid_out_as_it_is_read(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    cache = _cache(tmp_path / "cache.db", huge=3_000_000)
    pane = _pane(qtbot, cache, runner, item_text_mb=8.0)
    _open(qtbot, pane, "huge")
    first = len(pane.current_document.toPlainText())
    assert first < 1_000_000  # only a few screens past what is visible are in
    bar = pane.browser.verticalScrollBar()
    for _ in range(5):
        bar.setValue(bar.maximum())
        qtbot.waitUntil(lambda: not pane.loading_more, timeout=30_000)
    assert len(pane.current_document.toPlainText()) > first


def test_ctrl_end_shows_the_end_of_a_huge_document(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    cache = _cache(tmp_path / "cache.db", huge=3_000_000)
    pane = _pane(qtbot, cache, runner, item_text_mb=8.0)
    _open(qtbot, pane, "huge")
    assert len(pane.current_document.toPlainText()) < 1_000_000  # laid out as it is read
    pane.browser.setFocus()
    qtbot.keyClick(pane.browser, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    text = pane.current_document.toPlainText()
    assert len(text) > 2_500_000  # all of it went in, and its last line shows
    end = QTextCursor(pane.current_document)
    end.movePosition(QTextCursor.MoveOperation.End)
    last_line = pane.browser.cursorRect(end)
    assert 0 <= last_line.top() < last_line.bottom() <= pane.browser.viewport().height()


def _open_in_new_process(cache: Path, entity_id: str, item_text_mb: float) -> dict[str, Any]:
    measured: dict[str, Any] = bench.open_item(cache, entity_id, item_text_mb)
    return measured


def test_a_huge_item_is_marked_from_its_first_screen(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    cache = _cache(tmp_path / "cache.db", huge=2_500_000)
    pane = _pane(qtbot, cache, runner, item_text_mb=2.0)
    shown = Emitted(pane.entity_shown)
    pane.show_entity("huge")
    shown.wait(qtbot, 30_000)
    assert pane.truncation_bar.isVisible()
    assert pane.truncation_label.text() == "This item is 2.5 MB; showing the first 2 MB."
    qtbot.waitUntil(lambda: not pane.rendering and not pane.loading_more, timeout=60_000)
    assert pane.truncated


def test_an_item_past_the_budget_opens_fast_and_small(tmp_path: Path) -> None:
    """12 MB under a 1 MB budget: the same path as 50 MB under 8 MB, in the fast suite."""
    cache = _cache(tmp_path / "cache.db", big=12_000_000)
    measured = _open_in_new_process(cache, "big", 1.0)
    assert measured["truncated"]
    assert measured["first_screen_ms"] < 1_000
    assert measured["peak_rss_mb"] < 400


@pytest.mark.slow
def test_a_50_mb_item_opens_its_first_screen_in_under_a_second(tmp_path: Path) -> None:
    cache = _cache(tmp_path / "cache.db", big=50_000_000)
    measured = _open_in_new_process(cache, "big", 8.0)
    assert measured["truncated"]
    assert measured["first_screen_ms"] < 1_000
    assert measured["peak_rss_mb"] < 400
