"""The reader's "Referenced by" section: notes and items pointing at the item, moments in videos."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.signals import Emitted

from memex_desktop.api.models import SearchRawResponse
from memex_desktop.store import Backlink, ChangeSet, EntityRow, StoreWriter
from memex_desktop.ui.links import classify_link
from memex_desktop.ui.reader_pane import ReaderPane, backlinks_html, clock_text
from memex_desktop.ui.tasks import TaskRunner

pytestmark = pytest.mark.gui

T0 = 1_700_000_000_000


def _row(entity_id: str, title: str, snippet: str = "", kind: str = "annotation") -> EntityRow:
    return EntityRow(entity_id, kind, title, None, None, None, T0, T0, None, None, snippet)


def _entity(entity_id: str, kind: str, at: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": entity_id,
        "type": kind,
        "created_at": at,
        "updated_at": at,
        "metadata": {"status": "indexing-done"},
        **fields,
    }


def _note(note_id: str, target: str, text: str, at: int, attrs: dict[str, Any]) -> dict[str, Any]:
    """A note on another item citing ``target`` with ``attrs`` (e.g. a video moment)."""
    reference = {"type": "memex-reference", "attrs": {"content_id": target, **attrs}}
    content = [{"type": "paragraph", "content": [{"type": "text", "text": text}, reference]}]
    return _entity(
        note_id,
        "annotation",
        at,
        text=text,
        content={"type": "doc", "content": content},
        reference_content_ids=["elsewhere", target],
    )


def _page(results: list[dict[str, Any]]) -> SearchRawResponse:
    return SearchRawResponse.model_validate(
        {"results": results, "referencesByResultId": {}, "meta": {}}
    )


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[tuple[Path, StoreWriter]]:
    """A video, a note citing it at 1:23, a note on it and a note mentioning it."""
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    video = _entity(
        "video",
        "youtube",
        T0,
        title="Hive inspection",
        url="https://video.example/hive",
        transcript={"en": [{"offset": 80, "text": "Open the hive slowly", "duration": 5}]},
    )
    moment = _note("note-moment", "video", "Smoke first <b>always</b>", T0 + 1, {"startTime": 83})
    page = _entity(
        "page",
        "annotation",
        T0 + 2,
        title="Beekeeping diary",
        text="See the video",
        reference_content_ids=["elsewhere", "video"],
    )
    on_it = _entity(
        "note-on", "annotation", T0 + 3, text="Good one", reference_content_ids=["video"]
    )
    writer.ingest_search_page(_page([video, moment, page, on_it])).result(timeout=30)
    yield path, writer
    writer.close()


@pytest.fixture
def pane(qtbot: Any, cache: tuple[Path, StoreWriter], runner: TaskRunner) -> ReaderPane:
    widget = ReaderPane(cache[0], runner)
    qtbot.addWidget(widget)
    widget.resize(600, 500)
    return widget


def test_clock_text_is_minutes_and_seconds_or_hours() -> None:
    assert clock_text(0) == "[00:00]"
    assert clock_text(83.9) == "[01:23]"
    assert clock_text(3_725) == "[1:02:05]"
    assert clock_text(-4) == "[00:00]"


def test_section_escapes_text_and_links_only_entities() -> None:
    hostile = _row("n1", '<script>alert("x")</script>', "a <img src=x onerror=y> note")
    bad_id = _row('x" onclick="evil', "Odd id")
    html = backlinks_html(
        [
            Backlink(hostile, "annotates", 83.0),
            Backlink(bad_id, "references", None),
            Backlink(_row("n-2", "Reply"), "reply", None),
        ]
    )
    assert "<script>" not in html
    assert "<img" not in html
    assert "onclick=" not in html.replace("onclick=&quot;", "")
    assert "&lt;script&gt;" in html
    assert "[01:23]" in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs == ["memex://entity/n1", "memex://entity/n-2"]
    assert backlinks_html([]) == ""


def test_a_source_is_listed_once_with_its_moment() -> None:
    row = _row("n1", "Note")
    html = backlinks_html([Backlink(row, "annotates", None), Backlink(row, "references", 61.0)])
    assert html.count("memex://entity/n1") == 1
    assert "[01:01]" in html


def test_a_moment_links_to_that_line_of_the_transcript() -> None:
    html = backlinks_html([Backlink(_row("n1", "Note"), "annotates", 83.4)], "video-1")
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs == ["memex://entity/n1", "memex://entity/video-1?t=83"]
    target = classify_link(hrefs[1])
    assert (target.entity_id, target.anchor) == ("video-1", "t-83")
    assert ">[01:23]</a>" in html


def test_an_untitled_note_says_its_text_once() -> None:
    """A note without a title is called by the start of its text (the store's title, cut at
    120 characters): the line shows it once, then only what the title leaves out."""
    text = (
        "Morning watering at the base fixed blight for me too, same as in this thread: "
        "[Brown spots on balcony tomato leaves: blight or just sunburn?] Worth a try."
    )
    title = (
        "Morning watering at the base fixed blight for me too, same as in this thread: "
        "Brown spots on balcony tomato leaves:…"
    )
    html = backlinks_html([Backlink(_row("n1", title, text), "references", None)])
    assert html.count("Morning watering") == 1
    assert html.count("blight or just sunburn?") == 1
    assert '<span class="backlink-snippet">…blight or just sunburn?] Worth a try.</span>' in html
    short = "Print this for the study group; it explains spacing better than any paragraph."
    html = backlinks_html([Backlink(_row("n2", short, short + "  "), "annotates", None)])
    assert html.count("Print this") == 1
    assert "backlink-snippet" not in html
    # A title of its own: the snippet says something else, and is shown.
    own = _row("n3", "Study routine", "Builds a routine.")
    html = backlinks_html([Backlink(own, "references", None)])
    assert '<span class="backlink-snippet">Builds a routine.</span>' in html


def test_long_lists_are_cut_with_a_count() -> None:
    links = [Backlink(_row(f"n{i}", f"Note {i}"), "references", None) for i in range(205)]
    html = backlinks_html(links)
    assert html.count("<a ") == 200
    assert "and 5 more" in html


def test_reader_lists_notes_and_items_with_the_video_moment(qtbot: Any, pane: ReaderPane) -> None:
    shown = Emitted(pane.entity_shown)
    pane.show_entity("video")
    assert shown.wait(qtbot) == ["video"]
    document = pane.current_document
    assert document is not None
    text = document.toPlainText()
    assert "Referenced by" in text
    assert "[01:23]" in text
    assert "Beekeeping diary" in text
    assert "Good one · note" in text
    assert text.count("Smoke first") == 1
    # A title's tags are dropped (titles are plain words), never applied as markup.
    assert "Smoke first always" in text
    assert "<b>" not in text
    html = document.toHtml()
    assert 'href="memex://entity/note-moment"' in html
    assert 'href="memex://entity/page"' in html
    # A backlink is followed inside the app, with history.
    followed = Emitted(pane.entity_shown)
    pane.follow_link("memex://entity/page")
    assert followed.wait(qtbot) == ["page"]
    assert pane.can_go_back()


def test_new_backlinks_refresh_the_reader_and_others_do_not(
    qtbot: Any, pane: ReaderPane, cache: tuple[Path, StoreWriter], runner: TaskRunner
) -> None:
    _path, writer = cache
    shown = Emitted(pane.entity_shown)
    pane.show_entity("video")
    shown.wait(qtbot)
    # Edges changed elsewhere: the cheap check finds the same backlinks; nothing re-renders.
    shown.calls.clear()
    pane.on_store_changed(
        ChangeSet(frozenset({"other"}), frozenset(), frozenset(), frozenset(), frozenset(), True)
    )
    qtbot.waitUntil(lambda: runner.active_count() == 0, timeout=10_000)
    assert shown.calls == []
    # A synced note on the video: its "Referenced by" gains it.
    note = _note("note-new", "video", "Watch the queen cells", T0 + 9, {"offset": 3_725})
    changes = writer.ingest_search_page(_page([note])).result(timeout=30)
    assert changes.edges_changed
    pane.on_store_changed(changes)
    assert shown.wait(qtbot) == ["video"]
    document = pane.current_document
    assert document is not None
    assert "Watch the queen cells" in document.toPlainText()
    assert "[1:02:05]" in document.toPlainText()
