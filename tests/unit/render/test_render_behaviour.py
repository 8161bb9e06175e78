"""Specific reader behaviours: links, placeholders, transcripts, notices, cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, markdown_to_safe_html, render_entity, sanitize_html
from memex_desktop.render.entities import format_offset
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.sync.export import render_for_cli


def _render(data: dict[str, Any], **options: Any) -> Any:
    return render_entity(parse_content_entity(data), RenderContext(**options))


def test_remote_images_are_placeholders_unless_allowed() -> None:
    page = {"id": "w", "type": "web", "html": '<p><img src="https://t.example/p.gif" alt="p"></p>'}
    blocked = _render(page)
    assert "<img" not in blocked.html
    assert "[image: p — https://t.example/p.gif]" in blocked.text
    assert blocked.remote_resources == ["https://t.example/p.gif"]
    allowed = _render(page, allow_remote=True)
    assert '<img src="https://t.example/p.gif"' in allowed.html
    assert allowed.remote_resources == ["https://t.example/p.gif"]


def test_relative_urls_resolve_against_the_page_or_are_dropped() -> None:
    source = '<a href="/about">a</a><a href="//other.example/x">b</a><img src="pic.png">'
    resolved, remote = sanitize_html(source, allow_remote=False, base_url="https://s.example/d/p")
    assert 'href="https://s.example/about"' in resolved
    assert 'href="https://other.example/x"' in resolved
    assert remote == ["https://s.example/d/pic.png"]
    dropped, remote = sanitize_html(source, allow_remote=False)
    assert "href" not in dropped
    assert remote == []
    unusable, _ = sanitize_html(source, allow_remote=False, base_url="file:///home/me/")
    assert "file:" not in unusable
    assert "href" not in unusable


def test_only_allowed_link_schemes_survive() -> None:
    source = "".join(
        f'<a href="{url}">x</a>'
        for url in (
            "https://a.example",
            "http://b.example",
            "mailto:c@d.example",
            "memex://entity/e",
            "ftp://f.example",
            "smb://g",
            "tel:123",
            "file:///etc",
        )
    )
    safe, _ = sanitize_html(source, allow_remote=False)
    assert safe.count("href=") == 4


def test_markdown_raw_html_is_shown_as_text() -> None:
    safe, _ = markdown_to_safe_html(
        "Hi <b>there</b>\n\n<div onclick=x>block</div>", allow_remote=False
    )
    assert "<b>" not in safe
    assert "&lt;b&gt;" in safe
    assert "onclick" not in safe.replace("&lt;div onclick=x&gt;", "")


def test_transcript_anchor_per_segment_in_chosen_language() -> None:
    video = {
        "id": "v/1",
        "type": "youtube",
        "title": "t",
        "transcript": {
            "en": [{"offset": 0, "text": "zero"}, {"offset": "75.9", "text": "later"}],
            "fr": [{"offset": 3725, "text": "une heure"}, {"offset": "bad", "text": "sans"}],
        },
    }
    first = _render(video)
    assert "[00:00] zero" in first.text
    assert "[01:15] later" in first.text
    assert 'href="memex://entity/v%2F1?t=75"' in first.html
    chosen = _render(video, transcript_language="fr")
    assert "[1:02:05] une heure" in chosen.text
    assert "sans" in chosen.text
    assert chosen.html.count('class="timestamp"') == 1
    assert "Also available in: en" in chosen.text
    assert format_offset(59.99) == "00:59"


def test_processing_notice_only_when_not_done() -> None:
    pending = _render({"id": "p", "type": "web", "title": "t", "metadata": {"status": "running"}})
    assert "Still processing" in pending.text
    done = _render(
        {"id": "d", "type": "web", "title": "t", "metadata": {"status": "indexing-done"}}
    )
    assert "Still processing" not in done.text


def test_reply_and_note_captions_and_unknown_ids() -> None:
    parent = parse_content_entity({"id": "n1", "type": "annotation", "text": "parent note"})
    page = parse_content_entity({"id": "w1", "type": "web", "title": "A page"})
    library = {"n1": parent, "w1": page}
    reply = _render(
        {"id": "n2", "type": "annotation", "text": "yes", "reference_content_ids": ["n1"]},
        lookup=library.get,
    )
    assert "Reply to parent note [Note]" in reply.text
    note = _render(
        {"id": "n3", "type": "annotation", "text": "hm", "reference_content_ids": ["w1", "zz"]},
        lookup=library.get,
    )
    assert "Note on A page [Web page]" in note.text
    assert "[item zz — not in the cache yet]" in note.text
    no_cache = _render(
        {"id": "n4", "type": "annotation", "text": "x", "reference_content_ids": ["w1"]}
    )
    assert "not in the cache yet" in no_cache.text


def test_unknown_type_hides_nothing_but_bookkeeping() -> None:
    data = {
        "id": "u",
        "type": "audiobook",
        "user_id": "someone",
        "start_time": 12.5,
        "deep": {"list": ["one", {"two": "three"}]},
    }
    doc = _render(data)
    assert (
        '<dt class="field-name">Deep</dt><dd><dl class="fields">'
        '<dt class="field-name">List</dt><dd><ul><li>one</li><li><dl class="fields">'
        '<dt class="field-name">Two</dt><dd>three</dd></dl></li></ul></dd></dl></dd>'
    ) in doc.html
    assert '<dt class="field-name">Start time</dt><dd>12.5</dd>' in doc.html
    assert "someone" not in doc.text


def test_known_type_extra_fields_are_shown() -> None:
    html = _render({"id": "w", "type": "web", "title": "t", "reading_time": "7 min"}).html
    assert '<dt class="field-name">Reading time</dt><dd>7 min</dd>' in html


def test_typed_entity_with_bad_fields_still_renders_everything() -> None:
    data = {"id": "t", "type": "twitter", "text": "hello", "images": "not-a-list"}
    text = _render(data).text
    assert "hello" in text
    assert "not-a-list" in text


def test_deeply_nested_note_does_not_overflow() -> None:
    node: dict[str, Any] = {"type": "text", "text": "bottom"}
    for _ in range(5000):
        node = {"type": "blockquote", "content": [node]}
    doc = _render({"id": "n", "type": "annotation", "content": {"type": "doc", "content": [node]}})
    assert "bottom" in doc.text


def test_a_tweet_names_its_author_in_its_header() -> None:
    tweet = {
        "id": "tw",
        "type": "twitter",
        "text": "Tomatoes are ripening.",
        "author_name": "Rosa",
        "author_handle": "rosa_grows",
    }
    assert "Tweet · by Rosa (@rosa_grows)" in _render(tweet).text
    handle_only = _render({**tweet, "author_name": None, "author_handle": "@rosa_grows"})
    assert "Tweet · by @rosa_grows" in handle_only.text
    assert "Tweet · by Rosa\n" in _render({**tweet, "author_handle": " "}).text
    assert " by " not in _render({**tweet, "author_name": "", "author_handle": None}).text


def test_the_command_lines_show_names_a_tweets_author(tmp_path: Path) -> None:
    cache = tmp_path / "cache.db"
    writer = StoreWriter(cache)
    try:
        tweet = {
            "id": "tw",
            "type": "twitter",
            "created_at": 1,
            "text": "Tomatoes are ripening.",
            "author_name": "Rosa",
            "author_handle": "rosa_grows",
        }
        writer.ingest_json([tweet]).result(timeout=30)
    finally:
        writer.close()
    with CacheReader(cache) as reader:
        entity = reader.entity("tw")
        assert entity is not None
        shown = render_for_cli(entity, reader, "text")
    assert "by Rosa (@rosa_grows)" in shown


def test_a_tweet_or_a_note_without_a_title_says_its_words_once() -> None:
    words = "Balcony tomatoes are finally ripening (they took their time this year, " * 3
    for item in (
        {"id": "tw", "type": "twitter", "text": words, "author_name": "Rosa"},
        {"id": "n", "type": "annotation", "text": words},
        {"id": "r", "type": "reddit", "text": words},
    ):
        doc = _render(item)
        assert "<h1>" not in doc.html
        assert doc.text.count("Balcony tomatoes") == 3  # the body's three, no heading's
        assert doc.title.startswith("Balcony tomatoes")  # the list's and the window's title
    titled = _render({"id": "tw", "type": "twitter", "title": "Harvest", "text": words})
    assert "<h1>Harvest</h1>" in titled.html
    untitled_image = _render({"id": "i", "type": "image", "description": words})
    assert "<h1>Image</h1>" in untitled_image.html


def test_a_saved_picture_is_named_by_its_own_title_before_its_source_page_s() -> None:
    """The picture's placeholder said "Worm Bins for Flat Dwellers", the page it came from."""
    picture = {
        "id": "i",
        "type": "image",
        "original_url": "https://media.example/worm-compost.jpg",
        "source_title": "Worm Bins for Flat Dwellers",
    }
    named = _render({**picture, "title": "Worm compost ready to harvest"})
    assert "[image: Worm compost ready to harvest — https://media.example/" in named.text
    assert "<h1>Worm compost ready to harvest</h1>" in named.html
    untitled = _render(picture)
    assert "[image: Worm Bins for Flat Dwellers — https://media.example/" in untitled.text
    bare = _render({"id": "img-7f3", "type": "image", "original_url": picture["original_url"],
                    "description": "Two hands holding dark compost."})  # fmt: skip
    assert "[image: https://media.example/worm-compost.jpg]" in bare.text
    assert "<h1>Image</h1>" in bare.html
    own_title_only = _render({**picture, "source_title": None, "title": "Worm compost"})
    assert "<h1>Worm compost</h1>" in own_title_only.html


def test_a_title_the_body_does_not_say_stays_as_the_heading() -> None:
    rich = {"type": "doc", "content": [{"type": "paragraph", "content": [
        {"type": "text", "text": "Compare this with the CRDT talk."}
    ]}]}  # fmt: skip
    note = {"id": "n", "type": "annotation", "content": rich}
    said = _render({**note, "text": "Compare this with the CRDT talk."})
    assert "<h1>" not in said.html
    unsaid = _render({**note, "text": "Compare this with the lock survey."})
    assert "<h1>Compare this with the lock survey.</h1>" in unsaid.html
    assert unsaid.text.startswith("Compare this with the lock survey.\n")
    assert _render({"id": "e", "type": "twitter", "text": "🌱🌱"}).text.count("🌱🌱") == 1


def test_a_reddit_header_names_the_author_once_and_groups_the_score() -> None:
    post = {"id": "r", "type": "reddit", "text": "x", "subreddit_name": "canals", "score": 12840.0}
    same = _render({**post, "author_handle": "u/tess", "author_name": "Tess"})
    assert "by u/tess · score 12,840\n" in same.text  # "Tess" is the handle again
    named = _render({**post, "author_handle": "u/towpath_tess", "author_name": "Tess Boat"})
    assert "by u/towpath_tess · Tess Boat · score 12,840" in named.text


def test_a_tweet_header_says_when_it_was_posted_and_how_and_when_it_was_saved() -> None:
    tweet = {
        "id": "t",
        "type": "twitter",
        "text": "x",
        "author_name": "Rosa",
        "published_at": 1_756_917_398_824,
        "created_at": 1_756_924_598_824,
    }
    bookmarked = _render({**tweet, "save_type": "bookmark"}).text
    assert " · posted " in bookmarked
    assert bookmarked.count("saved") == 1
    assert " · saved as a bookmark 2025-09-0" in bookmarked
    assert " · saved 2025-09-0" in _render(tweet).text


def test_a_page_still_processing_says_its_text_is_to_come_not_that_it_has_none() -> None:
    page = {"id": "w", "type": "web", "url": "https://example.com/fresh"}
    pending = _render({**page, "metadata": {"status": "pending"}}).text
    assert "No text yet: a sync brings it once Memex has read the page." in pending
    assert "has no saved text" not in pending
    done = _render({**page, "metadata": {"status": "indexing-done"}}).text
    assert "This page has no saved text." in done
    failed = _render({**page, "metadata": {"status": "processing-failed"}}).text
    assert "This page has no saved text." in failed
    assert "Memex could not finish processing this item (status: processing-failed)" in failed
    assert "Still processing" not in failed
