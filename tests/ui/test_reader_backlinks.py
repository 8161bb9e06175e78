"""The reader's "Referenced by" section: notes and items pointing at the item, moments in videos."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.caches import processed_item
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


def _note(note_id: str, target: str, text: str, at: int, attrs: dict[str, Any]) -> dict[str, Any]:
    """A note on another item citing ``target`` with ``attrs`` (e.g. a video moment)."""
    reference = {"type": "memex-reference", "attrs": {"content_id": target, **attrs}}
    content = [{"type": "paragraph", "content": [{"type": "text", "text": text}, reference]}]
    return processed_item(
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
    video = processed_item(
        "video",
        "youtube",
        T0,
        title="Hive inspection",
        url="https://video.example/hive",
        transcript={"en": [{"offset": 80, "text": "Open the hive slowly", "duration": 5}]},
    )
    moment = _note("note-moment", "video", "Smoke first <b>always</b>", T0 + 1, {"startTime": 83})
    page = processed_item(
        "page",
        "annotation",
        T0 + 2,
        title="Beekeeping diary",
        text="See the video",
        reference_content_ids=["elsewhere", "video"],
    )
    on_it = processed_item(
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


def _section(pane: ReaderPane) -> list[str]:
    """The lines of the "Referenced by" section on screen."""
    document = pane.current_document
    assert document is not None
    text = document.toPlainText()
    return [line for line in text[text.index("Referenced by") :].splitlines()[1:] if line]


def test_highlights_and_notes_are_told_by_their_quote_and_own_words(
    qtbot: Any, pane: ReaderPane, cache: tuple[Path, StoreWriter]
) -> None:
    """A highlight is told by its quote, never by the words around it (the context a
    highlight keeps to find its passage again); a note on a passage by its own words, not
    the quote it begins with; an item without a title (a note, a tweet) by its words in one
    piece, nothing of its other fields."""
    _path, writer = cache
    quote = "Track items per second, time to first usable screen and the number of retries."
    before, after = "restart everything from zero. Measure it ", " If you do not measure sync"
    page = processed_item(
        "page-sync",
        "web",
        T0,
        title="Sync is a feature",
        full_text=f"When it fails, {before}{quote}{after}, you are not designing it.",
    )
    highlight = processed_item(
        "hl-1",
        "selector",
        T0 + 10,
        target_id="page-sync",
        selector_type="text_selector",
        text=quote,
        prefix=before,
        suffix=after,
        reference_content_ids=["page-sync"],
    )
    words = "Worth measuring before anything else."
    on_passage = processed_item(
        "note-passage",
        "annotation",
        T0 + 12,
        text=f"> {quote}\n\n{words}",
        reference_content_ids=["page-sync", "hl-1"],
    )
    said = (
        "This is the demo every app should be able to give. If pulling the cable breaks your "
        "app, your users are the ones who find out, usually on a train."
    )
    tweet = processed_item("tweet-1", "twitter", T0 + 11, text=said, quote_tweet="page-sync")
    moment = processed_item(
        "hl-video",
        "selector",
        T0 + 13,
        target_id="video",
        selector_type="time_selector",
        text="Open the hive slowly",
        start_time=83.2,
        end_time=88.0,
        reference_content_ids=["video"],
    )
    # Longer than a title (120 characters), shorter than a line of the section.
    mention = (
        "The build video shows the drilling step much more clearly than the article: "
        "[Build a Worm Bin in 15 Minutes (Flat-Friendly)]"
    )
    cites = _note("note-cites", "video", mention, T0 + 14, {})
    # The article it names in brackets is an item it references.
    cites["reference_content_ids"].append("worm-bin")
    bin_title = "Build a Worm Bin in 15 Minutes (Flat-Friendly)"
    article = processed_item("worm-bin", "web", T0 - 1, title=bin_title, url="https://w.example")
    written = [page, highlight, on_passage, tweet, moment, article, cites]
    writer.ingest_search_page(_page(written)).result(timeout=30)

    shown = Emitted(pane.entity_shown)
    pane.show_entity("page-sync")
    assert shown.wait(qtbot) == ["page-sync"]
    lines = _section(pane)
    assert lines == [
        f"{words} · note",
        f"{said} · mentions this",
        f"Highlight · “{quote}”",
    ]
    for context in ("restart everything", "Measure it", "If you do not"):
        assert context not in "\n".join(lines)

    shown.calls.clear()
    pane.show_entity("video")
    assert shown.wait(qtbot) == ["video"]
    lines = _section(pane)
    assert lines[:2] == [
        # The item it references is named by its words, without the brackets around them.
        f"{mention.replace('[', '').replace(']', '')} · mentions this",
        "Highlight · [01:23] · “Open the hive slowly”",
    ]
