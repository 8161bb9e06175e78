"""Every byte of a rendered document passed nh3: the final HTML cleans to itself.

Reference cards, image placeholders and fragments are all put together around the
sanitiser; if any of them were spliced in after it (inside an attribute value, a link inside a
link, an escaper that differs from nh3's), cleaning the result again would change it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support.html_soup import html_ish
from support.render_safety import problems

from memex_desktop.api.models import ContentEntityBase, parse_content_entity
from memex_desktop.render import RenderContext, render_entity, sanitize_html

LIBRARY = {
    item["id"]: parse_content_entity(item)
    for item in [
        {"id": "k1", "type": "web", "title": "T<\"&'> <b>x</b>", "url": "https://k1.example/"},
        {"id": "k2", "type": "web", "title": "{{content:k1}} looks like a citation"},
        {"id": "k3", "type": "annotation", "text": 'a note " onclick="x'},
    ]
}
CITATIONS = ["{{content:k1}}", "{{content:k2}}", "{{content:k3}}", "{{content:missing}}"]
ALTS = ["<>\"'", "a&amp;b", "\xa0", 'x" onerror="y', "</a><script>", ""]
SNIPPETS = [
    "see {c}",
    "[link {c}](https://x.example/{c})",
    '[t](https://x.example/ "{c} {alt}")',
    "![{alt} {c}](https://img.example/{c}.png)",
    "![{alt}](https://img.example/<x>{alt}.png)",
    "[![{c}](https://img.example/a.png) and {c}](https://l.example/)",
    "`{c}`",
    "# {c} {alt}",
    "| a | b |\n|---|---|\n| {c} | {alt} |",
    "<b>{c}</b> <img src=x alt='{c}'>",
    "<{c}>",
    "[{c}]({c})",
    "> {c}\n\n```\n{c}\n```",
]


@st.composite
def chat_text(draw: st.DrawFn) -> str:
    """Markdown with citations in text, link text, link targets, titles and image alts."""
    parts = [
        draw(st.sampled_from(SNIPPETS)).format(
            c=draw(st.sampled_from(CITATIONS)), alt=draw(st.sampled_from(ALTS))
        )
        for _ in range(draw(st.integers(1, 4)))
    ]
    return draw(st.sampled_from(["\n\n", " "])).join(parts)


def _chat(texts: list[str]) -> ContentEntityBase:
    return parse_content_entity(
        {
            "id": "c1",
            "type": "chatThread",
            "title": texts[0],
            "summary": texts[-1],
            "messages": [{"role": "user", "llmMessage": {"content": text}} for text in texts],
            "reference_content_ids": ["k1", "missing"],
        }
    )


def _note(alt: str, html: str) -> ContentEntityBase:
    paragraph: list[dict[str, Any]] = [
        {"type": "text", "text": html},
        {"type": "image", "attrs": {"src": f"https://img.example/{alt}", "alt": alt}},
        {"type": "memex-reference", "attrs": {"content_id": "k1"}},
        {
            "type": "text",
            "text": alt,
            "marks": [{"type": "link", "attrs": {"href": f"https://l.example/{alt}"}}],
        },
    ]
    return parse_content_entity(
        {
            "id": "n1",
            "type": "annotation",
            "reference_content_ids": ["k1", "k2"],
            "content": {"type": "doc", "content": [{"type": "paragraph", "content": paragraph}]},
        }
    )


def assert_cleans_to_itself(entity: ContentEntityBase, allow_remote: bool) -> None:
    """The rendered HTML is safe and unchanged by another pass of the same sanitiser."""
    doc = render_entity(entity, RenderContext(allow_remote=allow_remote, lookup=LIBRARY.get))
    again, _ = sanitize_html(doc.html, allow_remote=allow_remote, app_markup=True)
    assert again == doc.html
    assert not problems(doc.html, allow_remote=allow_remote)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(chat_text(), min_size=1, max_size=3), allow_remote=st.booleans())
def test_a_chat_with_citations_anywhere_cleans_to_itself(
    texts: list[str], allow_remote: bool
) -> None:
    assert_cleans_to_itself(_chat(texts), allow_remote)


@settings(max_examples=150, deadline=None)
@given(
    source=html_ish(),
    alt=st.sampled_from(ALTS),
    allow_remote=st.booleans(),
    base=st.sampled_from([None, "https://s.example/a/"]),
)
def test_saved_pages_and_notes_clean_to_themselves(
    source: str, alt: str, allow_remote: bool, base: str | None
) -> None:
    page = parse_content_entity(
        {"id": "w1", "type": "web", "title": alt, "url": base, "html": source + alt}
    )
    assert_cleans_to_itself(page, allow_remote)
    assert_cleans_to_itself(_note(alt, source), allow_remote)


def test_a_citation_inside_a_link_target_stays_text_of_the_target() -> None:
    doc = render_entity(
        _chat(["[link](https://x.example/{{content:k1}})"]),
        RenderContext(lookup=LIBRARY.get),
    )
    assert '<a href="https://x.example/{{content:k1}}">link</a>' in doc.html


def test_a_citation_inside_link_text_becomes_a_card_beside_the_link() -> None:
    doc = render_entity(
        _chat(["[see {{content:k1}}](https://x.example/)"]), RenderContext(lookup=LIBRARY.get)
    )
    assert '<a href="https://x.example/">see </a><a class="ref" href="memex://entity/k1">' in (
        doc.html
    )


def test_an_image_placeholder_escapes_what_nh3_escapes() -> None:
    safe, remote = sanitize_html('<img src="https://i.example/<x>" alt="<q>">', allow_remote=False)
    assert safe == (
        '<a class="remote-image" href="https://i.example/&lt;x&gt;">'
        "[image: &lt;q&gt; — https://i.example/&lt;x&gt;]</a>"
    )
    assert remote == ["https://i.example/<x>"]
