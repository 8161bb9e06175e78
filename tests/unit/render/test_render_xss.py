"""The XSS corpus through every path content takes into the reader: nothing unsafe survives."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support.render_safety import problems

from memex_desktop.api.models import ContentEntityBase, parse_content_entity
from memex_desktop.render import RenderContext, render_entity, sanitize_html
from memex_desktop.render.markdown_html import markdown_to_safe_html

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "render"
VECTORS: list[str] = json.loads((FIXTURES / "xss_vectors.json").read_text(encoding="utf-8"))


def _hostile_lookup(entity_id: str) -> ContentEntityBase:
    """A cache whose every entry is hostile: title, type and URL from the vector itself."""
    return parse_content_entity(
        {
            "id": entity_id,
            "type": "web",
            "title": f"<b>{entity_id}</b>",
            "url": "javascript:alert(1)",
            "description": entity_id,
        }
    )


def _web_html(vector: str) -> ContentEntityBase:
    return parse_content_entity(
        {
            "id": "x1",
            "type": "web",
            "title": vector,
            "url": "https://site.example/a/",
            "html": vector,
        }
    )


def _web_markdown(vector: str) -> ContentEntityBase:
    return parse_content_entity(
        {"id": "x2", "type": "web", "title": "t", "url": vector, "full_text": vector}
    )


def _tweet(vector: str) -> ContentEntityBase:
    return parse_content_entity(
        {
            "id": "x3",
            "type": "twitter",
            "author_name": vector,
            "author_handle": vector,
            "text": vector,
            "images": [vector],
            "quote_tweet": vector,
            "videos": [{"variants": [{"url": vector}], "preview_url": vector}],
        }
    )


def _annotation_text(vector: str) -> ContentEntityBase:
    return parse_content_entity(
        {"id": "x4", "type": "annotation", "text": vector, "reference_content_ids": [vector]}
    )


def _annotation_content(vector: str) -> ContentEntityBase:
    paragraph = [
        {"type": "text", "text": vector},
        {"type": "text", "text": "link", "marks": [{"type": "link", "attrs": {"href": vector}}]},
        {"type": "memex-reference", "attrs": {"content_id": vector, "title": vector}},
        {"type": "memex-reference", "attrs": {"tag_id": vector}},
        {"type": "image", "attrs": {"src": vector, "alt": vector, "contentId": vector}},
        {"type": vector, "text": vector, "attrs": {"onclick": vector}},
        {"type": "heading", "attrs": {"level": vector}, "content": [{"type": "text", "text": "h"}]},
    ]
    return parse_content_entity(
        {
            "id": vector,
            "type": "annotation",
            "text": vector,
            "reference_content_ids": [vector, "other"],
            "content": {"type": "doc", "content": [{"type": "paragraph", "content": paragraph}]},
        }
    )


def _chat(vector: str) -> ContentEntityBase:
    return parse_content_entity(
        {
            "id": "x6",
            "type": "chatThread",
            "title": vector,
            "summary": vector,
            "messages": [
                {"role": vector, "llmMessage": {"content": f"{vector} {{{{content:{vector}}}}}"}}
            ],
        }
    )


def _unknown(vector: str) -> ContentEntityBase:
    return parse_content_entity(
        {"id": "x7", "type": "pdf", "title": vector, "url": vector, "nested": {"html": [vector]}}
    )


BUILDERS: dict[str, Callable[[str], ContentEntityBase]] = {
    "web_html": _web_html,
    "web_markdown": _web_markdown,
    "tweet": _tweet,
    "annotation_text": _annotation_text,
    "annotation_content": _annotation_content,
    "chat": _chat,
    "unknown": _unknown,
}


def test_corpus_is_large_enough() -> None:
    assert len(VECTORS) >= 150


@pytest.mark.parametrize("path", sorted(BUILDERS))
def test_every_vector_renders_safely(path: str) -> None:
    context = RenderContext(lookup=_hostile_lookup)
    failures = []
    for vector in VECTORS:
        doc = render_entity(BUILDERS[path](vector), context)
        found = problems(doc.html)
        if found:
            failures.append((vector, found, doc.html[:300]))
    assert not failures, failures[:3]


def test_every_vector_is_safe_as_markdown() -> None:
    failures = []
    for vector in VECTORS:
        for base in (None, "https://site.example/dir/page"):
            safe, _ = markdown_to_safe_html(vector, allow_remote=False, base_url=base)
            if problems(safe):
                failures.append((vector, problems(safe), safe[:300]))
    assert not failures, failures[:3]


def test_a_large_document_is_as_safe() -> None:
    """Through render_entity, every vector alone and all of them in one document."""
    failures = []
    joined = "\n\n".join(VECTORS)
    for vector in [*VECTORS, joined]:
        doc = render_entity(_web_markdown(vector), RenderContext(lookup=_hostile_lookup))
        if problems(doc.html):
            failures.append((vector[:200], problems(doc.html)))
    assert not failures, failures[:3]


def test_allowing_remote_keeps_only_web_images() -> None:
    failures = []
    for vector in VECTORS:
        safe, remote = sanitize_html(vector, allow_remote=True, base_url="https://site.example/")
        found = problems(safe, allow_remote=True)
        if found or any(not url.startswith(("http://", "https://")) for url in remote):
            failures.append((vector, found, remote))
    assert not failures, failures[:3]


def test_the_checker_catches_unsafe_output() -> None:
    """The independent check itself must flag each kind of construct."""
    for bad in (
        "<script>x</script>",
        '<p onclick="x">a</p>',
        '<a href="javascript:x">a</a>',
        '<a href=" jav&#x61;script:x">a</a>',
        '<img src="https://t.example/p.gif">',
        '<p style="background:url(https://t.example)">a</p>',
        '<table background="https://t.example/b.gif"></table>',
        "<svg></svg>",
        '<a href="/relative">a</a>',
    ):
        assert problems(bad), bad
