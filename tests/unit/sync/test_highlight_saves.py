"""Highlights as data: how a selector is read and written, found again in a text, queued,
merged with the server's copy, and sent to servers that take it in either shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.emulator import EmulatorFactory, http_client
from support.secrets import TEST_API_KEY

from memex_desktop.api.content import selector_passage
from memex_desktop.api.models import SearchRawResponse
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.store.highlights import item_highlights, same_passage
from memex_desktop.sync.highlights import (
    Passage,
    TimedLine,
    find_passage,
    moment_spans,
    passage_in,
    queue_highlight,
    queue_note_on_passage,
    selector_payload,
)

T0 = 1_700_000_000_000


def test_a_selector_is_read_under_every_name_seen_and_written_under_the_first() -> None:
    written = selector_payload(
        Passage("the heap", "you turn ", " so that"), target_id="page", external_id="x1"
    )
    assert written == {
        "type": "selector",
        "external_id": "x1",
        "target_id": "page",
        "selector_type": "text_selector",
        "text": "the heap",
        "prefix": "you turn ",
        "suffix": " so that",
    }
    assert selector_passage(written).quote == "the heap"
    w3c = {"selector": {"type": "TextQuoteSelector", "exact": "A", "prefix": "B", "suffix": "C"}}
    read = selector_passage(w3c)
    assert (read.quote, read.prefix, read.suffix) == ("A", "B", "C")
    moment = selector_passage(
        {"selector_type": "time_selector", "start_time": "12.5", "end_time": 3}
    )
    assert (moment.start_s, moment.end_s, moment.is_time) == (12.5, None, True)
    assert selector_passage({"start_time": 4}).selector_type == "time_selector"
    hostile = selector_passage({"text": 5, "prefix": ["x"], "start_time": True})
    assert (hostile.quote, hostile.prefix, hostile.start_s) == ("", "", None)


def test_a_passage_keeps_its_context_and_is_found_again_by_it() -> None:
    text = "Every week you turn the heap.\nIn winter you still turn  the heap, less often."
    second = text.index("turn  the heap")
    passage = passage_in(text, second - 1, second + len("turn  the heap"))
    assert passage is not None
    assert passage.quote == "turn  the heap"
    assert passage.prefix.endswith("you still ")
    assert passage.suffix.startswith(", less")
    assert passage_in(text, 3, 3) is None
    assert passage_in("a  \n  b", 2, 5) is None
    found = find_passage(text, "turn the heap", passage.prefix, passage.suffix)
    assert found is not None
    assert (found.start, found.end) == (second, second + len("turn  the heap"))
    # Without context the first place; a quote in other case or with its start only still
    # lands; a quote not in the text does not.
    first = find_passage(text, "turn the heap")
    assert first is not None
    assert first.start == text.index("turn the heap")
    assert find_passage(text.upper(), "turn the heap") is not None
    long_quote = "Every week you turn the heap and then a great deal more happened later on"
    partial = find_passage(text, long_quote)
    assert partial is not None
    assert partial.start == 0
    assert find_passage(text, "not in it at all") is None
    assert find_passage(text, "   ") is None


def test_a_moment_marks_the_line_being_spoken_and_those_until_its_end() -> None:
    lines = [TimedLine(s, s * 10, s * 10 + 5) for s in (0, 30, 60, 90)]
    assert [s.start for s in moment_spans(lines, 41, 75)] == [300, 600]
    assert [s.start for s in moment_spans(lines, 95, None)] == [900]
    assert [s.start for s in moment_spans(lines, 0, 30)] == [0]
    assert moment_spans([], 5, None) == []


@pytest.fixture
def stores(tmp_path: Path) -> Any:
    cache = tmp_path / "cache.db"
    page = {
        "id": "page",
        "type": "web",
        "title": "Compost",
        "created_at": T0,
        "updated_at": T0,
        "metadata": {"status": "indexing-done"},
    }
    writer = StoreWriter(cache)
    writer.ingest_search_page(
        SearchRawResponse.model_validate({"results": [page], "meta": {}})
    ).result(30)
    reader = CacheReader(cache)
    outbox = Outbox(tmp_path / "outbox.db", cache_path=cache)
    yield writer, reader, outbox
    outbox.close()
    reader.close()
    writer.close()


def test_a_queued_highlight_shows_once_pending_then_once_as_the_cached_copy(stores: Any) -> None:
    writer, reader, outbox = stores
    passage = Passage("turn the heap", "you still ", ", less")
    queued = queue_highlight(outbox, reader, passage, target_id="page")
    assert queued.result is not None
    assert queued.result.status == "queued"
    again = queue_highlight(
        outbox, reader, Passage("turn  the heap", "still ", ""), target_id="page"
    )
    assert again.result is None  # the same passage is highlighted once
    assert again.highlight.id == queued.highlight.id
    (pending,) = item_highlights(reader, outbox, "page")
    assert pending.pending
    assert pending.id.startswith("pending:")
    assert same_passage(pending, "turn the heap", "you still ", ", less")
    assert not same_passage(pending, "turn the heap", "Every week you ", "")

    # The server's copy arrives under its own id: the pending one is no longer shown.
    op = outbox.list()[0]
    assert op.payload is not None
    server_copy = {**op.payload, "id": "server-sel", "created_at": T0 + 5, "updated_at": T0 + 5}
    writer.ingest_search_page(
        SearchRawResponse.model_validate({"results": [server_copy], "meta": {}})
    ).result(30)
    outbox.mark_accepted(op.id, "server-sel")
    (shown,) = item_highlights(reader, outbox, "page")
    assert (shown.id, shown.pending, shown.quote) == ("server-sel", False, "turn the heap")


def test_a_note_on_a_passage_is_queued_after_its_highlight_naming_it(stores: Any) -> None:
    _writer, reader, outbox = stores
    highlight, note = queue_note_on_passage(
        outbox, reader, "> turn the heap\n\nTwice a month.", Passage("turn the heap"),
        target_id="page",
    )  # fmt: skip
    ops = outbox.list()
    assert [op.payload["type"] for op in ops if op.payload] == ["selector", "annotation"]
    assert note.op is not None
    assert note.op.payload is not None
    assert note.op.payload["reference_content_ids"] == ["page", highlight.highlight.id]
    (listed,) = item_highlights(reader, outbox, "page")
    assert listed.note_ids == (f"pending:{note.op.external_id}",)


def _page_id(library: dict[str, Any]) -> str:
    return next(e["id"] for e in library["results"] if e["type"] == "web")


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict-selectors"])
def test_the_emulator_takes_a_highlight_in_the_shape_its_switch_asks(
    emulator_factory: EmulatorFactory, strict: bool
) -> None:
    library = generate_library(10, seed=3, words_per_entity=8)
    page = _page_id(library)
    running = emulator_factory(library=library, strict_selectors=strict)
    data = selector_payload(
        Passage("a quote", "before ", " after"), target_id=page, external_id="e1"
    )
    with http_client(running) as client:
        with_context = client.post(
            "/save-content-entity", json={"data": data, "sourceContentId": page}
        )
        bare = {k: v for k, v in data.items() if k not in ("prefix", "suffix")}
        no_source = client.post("/save-content-entity", json={"data": bare})
        unknown_source = client.post(
            "/save-content-entity", json={"data": bare, "sourceContentId": "nothing-here"}
        )
        saved = client.post("/save-content-entity", json={"data": bare, "sourceContentId": page})
    if strict:
        assert with_context.status_code == 400
        assert with_context.json()["error"] == "Unknown field: data.prefix"
        assert no_source.status_code == 400
        assert "sourceContentId" in no_source.json()["error"]
        assert unknown_source.status_code == 400
        assert saved.status_code == 200
    else:
        assert with_context.status_code == 200
        stored = with_context.json()["entity"]
        assert (stored["prefix"], stored["suffix"]) == ("before ", " after")
        assert no_source.status_code == 200
        assert no_source.json()["entity"]["target_id"] == page
    assert saved.json()["entity"]["target_id"] == page


def test_the_engine_sends_a_highlight_both_shapes_accept(
    library_emulator: Any, harness_factory: Any, emulator_profile: str
) -> None:
    library = generate_library(30, seed=5, words_per_entity=8)
    emulator = library_emulator(library, profile=emulator_profile)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    assert harness.engine.run(full=True).ok
    page = next(
        e["id"]
        for e in library["results"]
        if e["type"] == "web" and harness.reader.get(e["id"]) is not None
    )
    queue_highlight(harness.outbox, harness.reader, Passage("q", "p ", " s"), target_id=page)
    drained = harness.engine.drain_outbox()
    assert drained.ok, drained.error
    (op,) = harness.outbox.list()
    assert op.state == "accepted"
    assert op.entity_id is not None
    stored = emulator.state.entity(emulator.state.db.resolve(op.entity_id) or op.entity_id)
    assert stored is not None
    assert stored["target_id"] == page
    assert ("prefix" in stored) is (emulator_profile == "default")
    # The server's answer is in the cache: the highlight is shown once, not pending.
    (shown,) = item_highlights(harness.reader, harness.outbox, page)
    assert not shown.pending
    assert shown.quote == "q"


def test_a_full_pass_reads_the_highlights_a_listing_leaves_out(
    library_emulator: Any, harness_factory: Any, emulator_profile: str
) -> None:
    done = {"status": "indexing-done"}
    page = {"id": "page", "type": "web", "title": "Compost", "url": "https://g.example/c",
            "created_at": T0, "updated_at": T0, "metadata": done}  # fmt: skip
    others = [
        {"id": f"sel-{n}", "type": "selector", "target_id": "page", "selector_type": "text_chunk",
         "text": f"passage {n}", "created_at": T0 + n, "updated_at": T0 + n, "metadata": done}
        for n in range(1, 4)
    ]  # fmt: skip
    library = {"results": [page, *others], "referencesByResultId": {}, "meta": {}}
    emulator = library_emulator(library, profile=emulator_profile)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    assert harness.engine.run(full=True).ok
    # Highlights the empty-query listing leaves out (first-party) are read by their type.
    left_out = {s["id"] for s in others} & emulator.state.unlisted_ids()
    assert bool(left_out) is (emulator_profile == "first-party")
    cached = {h.id for h in item_highlights(harness.reader, None, "page")}
    assert cached == {s["id"] for s in others}
