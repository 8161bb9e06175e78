"""Every type people have is laid out for reading: PDFs, books, audio recordings, highlights,
transcribed media and types no one knows yet, with labelled fields and no bookkeeping."""

from __future__ import annotations

import re
from typing import Any

import pytest
from support.render_cases import CASES, render_case

from memex_desktop.api.content import is_bookkeeping
from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, render_entity
from memex_desktop.render.fields import duration_text, field_label

NEW_TYPES = (
    "pdf_paper",
    "book_item",
    "audio_recording",
    "highlight_moment",
    "highlight_text",
    "transcribed_media",
    "invented_type",
)
EPOCH_MS = re.compile(r"(?<!\d)1\d{12}(?!\d)")
WORD = re.compile(r"[^\W_]+")


def _render(data: dict[str, Any], **options: Any) -> Any:
    return render_entity(parse_content_entity(data), RenderContext(**options))


def _text_words(value: Any, key: str = "") -> list[str]:
    """The words of every text field of an item (addresses and bookkeeping left out)."""
    if key and is_bookkeeping(key):
        return []
    if isinstance(value, str):
        return [] if value.startswith("http") else WORD.findall(value)
    if isinstance(value, dict):
        return [word for name, item in value.items() for word in _text_words(item, str(name))]
    if isinstance(value, list):
        return [word for item in value for word in _text_words(item, key)]
    return []


@pytest.mark.parametrize("name", NEW_TYPES)
def test_no_bookkeeping_and_every_text_field_is_shown(name: str) -> None:
    doc = render_case(name)
    for hidden in ("user_id", "tag_ids", "reader-42", "selector_type", "mime_type", "sha256"):
        assert hidden not in doc.text
    assert "tag-" not in doc.text
    assert not EPOCH_MS.search(doc.text)
    assert "##" not in doc.text
    entity = dict(CASES[name]["entity"])
    if isinstance(entity.get("summary"), dict):  # one language is shown, as for videos
        entity["summary"] = next(iter(entity["summary"].values()))
    missing = {word for word in _text_words(entity) if word not in doc.text}
    # Hashes and storage paths are bookkeeping however they are named.
    missing -= set(_text_words(entity.get("storage_path", "")))
    assert not missing


def test_a_pdf_shows_its_paper_facts_and_its_full_text_as_markdown() -> None:
    doc = render_case("pdf_paper")
    assert "PDF · by H. Okonkwo, L. Marsh · 18 pages · published 1 Mar 2025" in doc.text
    assert "<h2>Key results</h2>" in doc.html
    assert "<strong>mitre gap</strong>" in doc.html
    assert 'href="https://papers.example.org/abs/2503.01234"' in doc.html
    assert "Tags: canals, engineering" in doc.text  # the tag the cache cannot name is left out
    assert '<dt class="field-name">DOI</dt><dd>10.5555/locks.2025.12</dd>' in doc.html


def test_a_book_shows_author_publisher_year_isbn_and_cover() -> None:
    doc = render_case("book_item")
    assert "Book · by Agnes Whitlow · Towpath Press · 1998 · ISBN 9780000000451" in doc.text
    assert doc.remote_resources == ["https://covers.example.net/lock-keepers-handbook.jpg"]
    assert "Other fields" not in doc.text


def test_an_audio_recording_shows_its_summary_thread_transcript_and_notes() -> None:
    doc = render_case("audio_recording")
    assert "Audio recording · 21 min 5 s · recorded 1 Apr 2025" in doc.text
    assert 'href="memex://entity/chat-lock-meeting-summary"' in doc.html
    assert "<strong>bottom gate</strong>" in doc.html
    assert "{{" not in doc.text
    assert "Summary\n\nSummary" not in doc.text
    assert "[01:15]" in doc.text
    assert "Tomasz: The carpenter" in doc.text
    assert 'href="memex://entity/note-on-audio"' in doc.html


def test_an_audio_recording_without_its_thread_in_the_cache_names_it() -> None:
    data = dict(CASES["audio_recording"]["entity"])
    doc = _render(data)
    assert "Summary thread: [item chat-lock-meeting-summary — not in the cache yet]" in doc.text


def test_a_video_highlight_quotes_links_its_item_and_its_moment() -> None:
    doc = render_case("highlight_moment")
    assert '<blockquote class="quote"><p>So we start with the heel post' in doc.html
    assert 'href="memex://entity/yt-canal-lock-01?t=13">at 00:13–00:18</a>' in doc.html
    assert "https://www.youtube.com/watch?v=Qx7canal01&amp;t=13s" in doc.html
    assert "Note\n\nThe heel post is where every leak starts" in doc.text
    assert "time_selector" not in doc.text


def test_a_highlight_without_a_quote_is_named_not_shown_by_its_id() -> None:
    doc = _render({"id": "sel-77", "type": "selector", "target_id": "w1"})
    assert "sel-77" not in doc.text
    assert doc.text.startswith("Highlight")
    assert "From [item w1 — not in the cache yet]" in doc.text


def test_a_transcript_of_any_type_is_shown_as_a_videos() -> None:
    doc = render_case("transcribed_media")
    assert 'href="memex://entity/media-towpath-interview?t=12"' in doc.html
    assert "Summary\n\nA keeper explains why gates leak" in doc.text
    assert "Offset" not in doc.text  # the transcript is not repeated as fields


def test_an_unknown_type_is_labelled_and_keeps_no_ids() -> None:
    doc = render_case("invented_type")
    assert doc.text.startswith("Episode 77: The last horse-drawn boat\n\nPodcast episode · ")
    for line in (
        "Episode number: 77",
        "Duration: 45 min 5 s",
        "Title: Slow Water Radio",
        "- Mary Beck",
        "Explicit: no",
    ):
        assert line in doc.text
    assert "Released: " in doc.text
    assert "Last played: " in doc.text
    assert "host-9" not in doc.text
    assert "c0ffee" not in doc.text
    assert "users/" not in doc.text


def test_labels_are_words() -> None:
    assert field_label("published_at") == "Published"
    assert field_label("page_count") == "Page count"
    assert field_label("mimeType") == "Mime type"
    assert field_label("source_urls") == "Source URLs"
    assert field_label("isbn") == "ISBN"
    assert field_label("is_reference") == "Reference"
    assert field_label("duration_s") == "Duration"
    assert field_label("releasedAt") == "Released"
    assert field_label("at") == "At"


def test_durations_read_as_people_say_them() -> None:
    assert duration_text(45) == "45 s"
    assert duration_text(412) == "6 min 52 s"
    assert duration_text(600) == "10 min"
    assert duration_text(41220) == "11 h 27 min"


def test_ids_and_hashes_inside_fields_are_never_shown() -> None:
    doc = _render(
        {
            "id": "x",
            "type": "mystery",
            "owner": {"user_id": "u-1", "name": "Ann", "avatarHash": "ab12"},
            "parts": [{"content_id": "c-9", "label": "intro"}],
            "checksum": "deadbeef",
            "blob": "0123456789abcdef0123456789abcdef",
        }
    )
    for hidden in ("u-1", "ab12", "c-9", "deadbeef", "0123456789abcdef"):
        assert hidden not in doc.text
    assert "Name: Ann" in doc.text
    assert "Label: intro" in doc.text


def test_an_epoch_under_any_name_is_a_date() -> None:
    doc = _render({"id": "x", "type": "mystery", "lastPlayed": 1744000000000, "plays": 12})
    assert "1744000000000" not in doc.text
    assert re.search(r"Last played: 2025-04-\d\d \d\d:\d\d", doc.text)
    assert "Plays: 12" in doc.text


def test_tags_are_named_in_every_header() -> None:
    names = {"t1": "canals", "t2": "locks"}.get
    for data in (
        {"id": "w", "type": "web", "title": "Page", "tag_ids": ["t1", "t2"]},
        {"id": "n", "type": "annotation", "text": "a note", "tag_ids": ["t1", "t2"]},
        {"id": "m", "type": "mystery", "tag_ids": ["t1", "t2", "t1"]},
    ):
        assert "Tags: canals, locks\n" in _render(data, tag_names=names).text + "\n"
        assert "Tags" not in _render(data).text


def test_fields_a_layout_cannot_read_are_listed_not_lost() -> None:
    doc = _render(
        {
            "id": "b",
            "type": "book",
            "title": "A book",
            "authors": [{"name": "Agnes Whitlow"}],
            "publisher": {"name": "Towpath Press"},
            "page_count": "about 200",
        }
    )
    for line in ("Name: Agnes Whitlow", "Name: Towpath Press", "Page count: about 200"):
        assert line in doc.text
