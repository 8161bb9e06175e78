"""No text is lost to a stray tag: every text node an HTML5 parser shows survives the sanitiser.

The reference is html5lib (a different parser from nh3's html5ever): every text node it puts
outside elements whose content is never shown must appear in the reader's text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import html5lib
import pytest
from hypothesis import assume, example, given, settings
from support.html_soup import tag_soup
from support.render_safety import problems

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, html_to_text, render_entity, sanitize_html

HIDDEN = frozenset(
    {
        "script",
        "style",
        "title",
        "textarea",
        "iframe",
        "noscript",
        "template",
        "xmp",
        "noembed",
        "noframes",
        "plaintext",
    }
)


def shown_texts(source: str) -> list[str]:
    """The text nodes html5lib places outside hidden elements, in document order."""
    root: Any = html5lib.parseFragment(source, treebuilder="etree", namespaceHTMLElements=False)
    texts: list[str] = []

    def walk(element: Any, hidden: bool) -> None:
        name = element.tag.rsplit("}", 1)[-1].lower() if isinstance(element.tag, str) else None
        inside_hidden = hidden or name is None or name in HIDDEN
        if not inside_hidden and element.text:
            texts.append(element.text)
        for child in element:
            walk(child, inside_hidden)
            if not inside_hidden and child.tail:
                texts.append(child.tail)

    walk(root, False)
    return texts


_FOREIGN_RE = re.compile(r"<(?:svg|math)", re.IGNORECASE)
_TABLE_RE = re.compile(r"<table(?=[\s/>])", re.IGNORECASE)
# A ``</p>`` or ``</br>`` followed, later, by the start of an element whose text is hidden.
_BREAKOUT_END_RE = re.compile(
    r"</(?:p|br)(?=[\s/>]).*<(?:" + "|".join(sorted(HIDDEN)) + r")(?=[\s/>])",
    re.IGNORECASE | re.DOTALL,
)


def _normal(text: str) -> str:
    """Whitespace collapsed, replacement characters removed (the parsers differ on NUL)."""
    return " ".join(text.replace("\ufffd", "").split())


def lost_texts(source: str, output_text: str) -> list[str]:
    """The shown text nodes of ``source`` that ``output_text`` does not contain."""
    kept = _normal(output_text)
    return [text for text in map(_normal, shown_texts(source)) if text and text not in kept]


@settings(max_examples=200, deadline=None)
@given(source=tag_soup())
@example(source=" w0 <p<b><svg><</b><</p>")  # a stray end tag in a drawing splits no word
def test_every_shown_text_node_survives_the_sanitiser(source: str) -> None:
    # html5lib predates the standard's rule that ``</p>`` and ``</br>`` inside SVG or MathML
    # leave the drawing (html5ever, and browsers, follow it): after one, a ``<script/>`` is
    # an HTML script whose content nothing shows, where html5lib shows it as a drawing's text
    # (``<svg> w0 <tr></tr<p></p><script/> w1``).
    assume(not (_FOREIGN_RE.search(source) and _BREAKOUT_END_RE.search(source)))
    # Inside a drawing, text and end tags a table sends before itself (foster parenting)
    # land in different places for html5lib and for html5ever, the sanitiser's parser: in
    # ``<p><math><mi><</p<p x="…"><table><</p>`` html5lib keeps ``<<`` together where the
    # sanitiser's tree has a paragraph between the two; no text is lost.
    assume(not (_FOREIGN_RE.search(source) and _TABLE_RE.search(source)))
    safe, _ = sanitize_html(source, allow_remote=False)
    assert not lost_texts(source, html_to_text(safe))
    assert not problems(safe)


def test_an_end_p_in_a_drawing_leaves_it_as_the_standard_says() -> None:
    """``</p>`` in SVG ends the drawing: the ``<script/>`` after it is an HTML script, and its
    text is a script's, never shown (as browsers and html5ever read it)."""
    safe, _ = sanitize_html("<b><svg> w0 <tr></tr<p></p><script/> w1 ", allow_remote=False)
    shown = html_to_text(safe)
    assert "w0" in shown
    assert "w1" not in shown
    assert not problems(safe)


STRAY_TAGS = {
    "autolink with quotes": 'before <http://example.com/"onmouseover="x> after',
    "namespaced": "before <foo:bar> after",
    "unclosed": "before <x after",
    "unclosed attribute": 'before <a title="x> after',
    "svg names outside svg": "before <root>r1</root> <set>s1</set> <animate>a1</animate> after",
    "more svg names": "before <g>g1</g> <desc>d1</desc> <circle>c1</circle> after",
    "inside svg": "before <svg><g><text>t1</text></g><desc>d1</desc></svg> after",
    "inside math": "before <math><mi>m1</mi><mtext>m2</mtext></math> after",
    "object fallback": "before <object>o1</object> after",
    "unclosed comment": "before <!-- after",
}


@pytest.mark.parametrize("source", STRAY_TAGS.values(), ids=STRAY_TAGS.keys())
def test_text_after_a_stray_tag_is_kept_in_the_reader_and_in_show(source: str) -> None:
    entity = parse_content_entity({"id": "s", "type": "web", "title": "t", "html": source})
    doc = render_entity(entity, RenderContext())
    words = [word for word in source.split() if word.isalnum() and word != "before"]
    assert "before" in doc.text
    for word in words:
        assert word in doc.text
        assert word in doc.html
    assert not problems(doc.html)


VECTORS: list[str] = json.loads(
    (Path(__file__).resolve().parents[2] / "fixtures" / "render" / "xss_vectors.json").read_text(
        encoding="utf-8"
    )
)
# html5lib still turns "<isindex>" into a form with a prompt of its own: not the page's text.
ISINDEX_PROMPT = "This is a searchable index. Enter search keywords:"


def test_no_vector_of_the_xss_corpus_loses_text() -> None:
    losing = {}
    for vector in VECTORS:
        safe, _ = sanitize_html(vector, allow_remote=False)
        lost = [text for text in lost_texts(vector, html_to_text(safe)) if text != ISINDEX_PROMPT]
        if lost:
            losing[vector] = lost
    assert not losing


def test_a_pasted_autolink_shows_as_text_and_links_nothing() -> None:
    safe, _ = sanitize_html('before <http://example.com/"onmouseover="x> after', allow_remote=False)
    assert safe == 'before &lt;http://example.com/"onmouseover="x&gt; after'
    safe, _ = sanitize_html("<mailto:a@b.example?subject=<script>> after", allow_remote=False)
    assert safe == "&lt;mailto:a@b.example?subject=&lt;script&gt;&gt; after"


def test_svg_scripts_and_styles_stay_hidden_its_title_and_text_show() -> None:
    source = "<svg><title>icon</title><style>.a{}</style><script>x()</script><text>t</text></svg>"
    safe, _ = sanitize_html(source, allow_remote=False)
    assert html_to_text(safe) == "[drawing: icon t]"


def test_an_svg_style_ends_at_a_breakout_tag() -> None:
    safe, _ = sanitize_html("<svg><style>.a{}<b>bold</b></style></svg>", allow_remote=False)
    assert safe == '<span class="svg-figure">[drawing]</span><b>bold</b>'


def test_hostile_input_of_unclosed_tags_is_scanned_in_bounded_time() -> None:
    source = "<a " * 50_000 + "x='>"  # every "<a" starts a tag that ends in an open quote
    safe, _ = sanitize_html(source, allow_remote=False)
    assert html_to_text(safe).count("<a") == 50_000
