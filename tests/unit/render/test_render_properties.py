"""Property tests of the sanitiser and text preservation over generated articles."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from support.html_soup import html_ish
from support.render_articles import build_article, build_large_article
from support.render_safety import problems

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, markdown_html, render_entity, sanitize_html


@given(
    source=html_ish(),
    allow_remote=st.booleans(),
    base=st.sampled_from([None, "https://s.example/a/"]),
)
def test_sanitising_is_idempotent_and_safe(
    source: str, allow_remote: bool, base: str | None
) -> None:
    once, remote = sanitize_html(source, allow_remote=allow_remote, base_url=base)
    twice, remote_again = sanitize_html(once, allow_remote=allow_remote, base_url=base)
    assert twice == once
    assert not problems(once, allow_remote=allow_remote)
    assert all(url.startswith(("http://", "https://")) for url in remote)
    if allow_remote:
        assert remote_again == remote


@given(source=html_ish())
def test_markdown_of_anything_is_safe(source: str) -> None:
    safe, _ = markdown_html.markdown_to_safe_html(source, allow_remote=False)
    assert not problems(safe)


def _missing_paragraphs(paragraphs: tuple[tuple[str, ...], ...], text: str) -> list[Any]:
    """Paragraphs whose words do not appear, in order, in ``text`` (paragraphs in order too).

    Any punctuation or list/table markers may sit between words; link targets that the plain
    text adds in angle brackets are ignored.
    """
    without_urls = re.sub(r" <(?:https?|mailto):[^>\s]*>", "", text)
    missing = []
    position = 0
    for paragraph in paragraphs:
        pattern = re.compile(r"[\W_]*".join(re.escape(word) for word in paragraph))
        found = pattern.search(without_urls, position)
        if found is None:
            missing.append(paragraph)
        else:
            position = found.end()
    return missing


ARTICLES = [build_article(seed) for seed in range(50)]


def test_every_paragraph_survives_markdown() -> None:
    missing = []
    for seed, article in enumerate(ARTICLES):
        entity = parse_content_entity(
            {"id": f"a{seed}", "type": "web", "title": article.title, "full_text": article.markdown}
        )
        text = render_entity(entity, RenderContext()).text
        missing += [(seed, p) for p in _missing_paragraphs(article.paragraphs, text)]
    assert not missing, missing[:3]


def test_every_paragraph_survives_html() -> None:
    missing = []
    for seed, article in enumerate(ARTICLES):
        entity = parse_content_entity(
            {"id": f"h{seed}", "type": "web", "title": article.title, "html": article.html}
        )
        text = render_entity(entity, RenderContext()).text
        missing += [(seed, p) for p in _missing_paragraphs(article.paragraphs, text)]
    assert not missing, missing[:3]


def test_a_one_megabyte_article_keeps_its_words() -> None:
    article = build_large_article(1_000_000)
    entity = parse_content_entity(
        {"id": "big", "type": "web", "title": article.title, "full_text": article.markdown}
    )
    doc = render_entity(entity, RenderContext())
    missing = _missing_paragraphs(article.paragraphs, doc.text)
    assert not missing, missing[:3]
    assert not problems(doc.html)
