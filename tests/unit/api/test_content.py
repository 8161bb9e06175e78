"""The one reading of entity JSON: times, chat text, references, citations, titles, sites."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memex_desktop.api import content


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1_700_000_000, 1_700_000_000_000),  # seconds
        (1_700_000_000_000, 1_700_000_000_000),  # milliseconds
        (1_700_000_000.5, 1_700_000_000_500),
        ("1700000000", 1_700_000_000_000),  # a numeric string follows the number rule
        (" 1700000000000 ", 1_700_000_000_000),
        ("2023-11-14T22:13:20Z", 1_700_000_000_000),
        ("2023-11-14T22:13:20", 1_700_000_000_000),  # no offset: UTC, not local time
        ("2023-11-14T23:13:20+01:00", 1_700_000_000_000),
        ("2023-11-14", 1_699_920_000_000),
        (True, None),
        (None, None),
        ("", None),
        ("yesterday", None),
        (float("nan"), None),
        (float("inf"), None),
        (2**63, None),  # beyond SQLite's INTEGER
        (10**30, None),
        ([1], None),
    ],
)
def test_epoch_ms_has_one_rule(value: Any, expected: int | None) -> None:
    assert content.epoch_ms(value) == expected


def test_times_are_shown_in_local_time() -> None:
    ms = 1_700_000_000_000
    local = datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone()
    assert content.time_text(ms) == local.strftime("%Y-%m-%d %H:%M")
    assert content.time_text(ms // 1000) == content.time_text(ms)
    assert content.time_text("2023-11-14T22:13:20Z") == content.time_text(ms)
    assert content.time_text("sometime in May") == "sometime in May"
    assert content.time_text(None) is None
    assert content.date_text(ms) == f"{local.day} {local:%b %Y}"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"llmMessage": {"content": "plain"}}, "plain"),
        (
            {"llmMessage": {"content": [{"type": "text", "text": "one"}, {"text": "two"}]}},
            "one\n\ntwo",
        ),
        ({"llmMessage": {"content": [{"type": "text", "text": 3}]}}, None),
        ({"content": "a plain-string message"}, "a plain-string message"),
        ({"content": {"type": "doc"}}, None),
        ({"llmMessage": "not an object"}, None),
    ],
)
def test_message_text(message: dict[str, Any], expected: str | None) -> None:
    assert content.message_text(message) == expected


def test_reference_nodes_of_every_form_and_key() -> None:
    doc = {
        "type": "doc",
        "content": [
            {"type": "memex-reference", "attrs": {"content_id": "a", "startTime": 12}},
            {"type": "memex-inline-reference", "attrs": {"contentId": "b"}},
            {"type": "memex-block-reference", "attrs": {"selectorId": "c"}},
            {"type": "memex-reference", "attrs": {"selector_id": "d"}},
            {"type": "image", "attrs": {"src": "x.png", "imageId": "e"}},
            {"type": "image", "attrs": {"src": "y.png", "image_id": "f"}},
            {"type": "paragraph", "content": [{"type": "mention", "attrs": {"id": "person"}}]},
            {"type": "memex-reference", "attrs": {"tag_id": "t1"}},
            {"type": "memex-reference", "attrs": "broken"},
        ],
    }
    found = content.rich_text_references(doc)
    assert [r.target for r in found] == ["a", "b", "c", "d", "e", "f"]
    assert found[0].seconds == 12.0


def test_rich_text_is_one_line_per_block_and_survives_deep_nesting() -> None:
    doc = {
        "type": "doc",
        "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": "one "}]},
            {"type": "heading", "content": [{"type": "text", "text": "two"}]},
        ],
    }
    assert [line.strip() for line in content.rich_text(doc).split("\n")] == ["one", "two"]
    deep: dict[str, Any] = {"type": "text", "text": "bottom"}
    for _ in range(5000):
        deep = {"type": "blockquote", "content": [deep]}
    assert content.rich_text(deep) == "bottom"


def test_citations_with_and_without_spaces() -> None:
    text = "see {{content:a}} and {{ content:b }} but not {{ref-2}} or {{content: }}"
    assert content.citations(text) == ["a", "b"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"title": "  A title  ", "text": "ignored"}, "A title"),
        ({"type": "twitter", "text": "hello world\nsecond line"}, "hello world"),
        ({"type": "annotation", "text": "", "content": {"type": "doc", "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": "rich note"}]}]}},
         "rich note"),
        ({"type": "chatThread", "messages": [{"llmMessage": {"content": "first message"}}]},
         "first message"),
        ({"type": "web", "url": "https://a.example/x"}, "https://a.example/x"),
        ({"id": "only-id"}, "only-id"),
        ({"title": 42, "description": "a description"}, "a description"),
    ],
)  # fmt: skip
def test_display_title(data: dict[str, Any], expected: str) -> None:
    assert content.display_title(data) == expected


def test_long_titles_are_cut_at_a_word() -> None:
    title = content.display_title({"text": "word " * 100})
    assert len(title) <= content.TITLE_CHARS
    assert title.endswith("word…")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"url": "https://www.Example.com/a"}, "example.com"),
        ({"url": "https://x.com:99999/p"}, "x.com"),  # a bad port still names a host
        ({"url": "https://[::1/x"}, ""),
        ({"url": 7}, ""),
        ({"subreddit_name": "canals", "url": "https://reddit.com/r/canals"}, "r/canals"),
        ({"subreddit_name": "r/canals"}, "r/canals"),
    ],
)
def test_site_of(data: dict[str, Any], expected: str) -> None:
    assert content.site_of(data) == expected


def test_list_fields_of_the_wrong_type_read_as_empty() -> None:
    assert content.strings_in(5) == []
    assert content.strings_in(["a", 1, None, "", "b"]) == ["a", "b"]


def test_field_instants_are_dates_only_for_time_fields() -> None:
    assert content.field_instant("published_at", 1_700_000_000_000) == 1_700_000_000_000
    assert content.field_instant("publishedAt", "2023-11-14T22:13:20Z") == 1_700_000_000_000
    assert content.field_instant("start_time", 12.5) is None  # a video moment in seconds
    assert content.field_instant("page_count", 22) is None
    # Thirteen digits from 2000 to 2100 can only be epoch milliseconds, whatever the name...
    assert content.field_instant("lastPlayed", 1_700_000_000_000) == 1_700_000_000_000
    # ...and an ISBN-13 given as a number is above them.
    assert content.field_instant("isbn", 9_780_000_000_017) is None
    assert content.field_instant("score", 1_700_000_000) is None  # ten digits: ambiguous
    assert content.field_instant("created_at", True) is None


@pytest.mark.parametrize(
    ("entity_type", "expected"),
    [
        ("youtube", "Video"),
        ("reddit", "Reddit post"),
        ("audioRecording", "Audio recording"),
        ("rssFeed", "RSS feed"),
        ("podcastEpisode", "Podcast episode"),
        ("HTMLPage", "HTML page"),
        ("invented_type", "Invented type"),
        ("", "Item"),
        ("   ", "Item"),
    ],
)
def test_a_type_has_one_name_for_people(entity_type: str, expected: str) -> None:
    assert content.type_label(entity_type) == expected


def test_every_type_the_search_language_knows_has_a_name() -> None:
    from memex_desktop.store.search_language import CONTENT_TYPES

    assert set(CONTENT_TYPES) <= set(content.TYPE_LABELS)
