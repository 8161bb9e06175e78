"""The Markdown export writes an item's content as Markdown: the reader's structure (headings,
emphasis, web links, lists, quotes, code, line breaks) and nothing its text did not mark.

Each file is read back with markdown-it (CommonMark, with GitHub's tables and strikethrough), a
Markdown reader independent of the code that wrote it.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from markdown_it import MarkdownIt

from memex_desktop.render.html_markdown import MAX_DEPTH, html_to_markdown
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.sync.export import export_markdown, import_json


def _text(text: str, *marks: dict[str, Any]) -> dict[str, Any]:
    """A ProseMirror text node with ``marks``."""
    node: dict[str, Any] = {"type": "text", "text": text}
    return {**node, "marks": list(marks)} if marks else node


def _block(kind: str, *content: dict[str, Any], **attrs: Any) -> dict[str, Any]:
    """A ProseMirror node of ``kind`` holding ``content``."""
    node: dict[str, Any] = {"type": kind, "content": list(content)}
    return {**node, "attrs": attrs} if attrs else node


def _link(href: str) -> dict[str, Any]:
    return {"type": "link", "attrs": {"href": href}}


def _item(text: str) -> dict[str, Any]:
    return _block("listItem", _block("paragraph", _text(text)))


RICH_NOTE = _block(
    "doc",
    _block("heading", _text("Compost plan"), level=2),
    _block(
        "paragraph",
        _text("Turn it "),
        _text("weekly", {"type": "bold"}),
        _text(", keep it "),
        _text("damp", {"type": "italic"}),
        _text(", read "),
        _text("the guide", _link("https://compost.example/guide?a=1&b=(2)")),
        _text("."),
        {"type": "hardBreak"},
        _text("Ratio "),
        _text("3:1", {"type": "code"}),
        _text(" to start."),
    ),
    _block(
        "bulletList",
        _block(
            "listItem",
            _block("paragraph", _text("Greens")),
            _block("orderedList", _item("peels"), _item("coffee")),
        ),
        _item("Browns"),
    ),
    _block("blockquote", _block("paragraph", _text("Patience is the main ingredient."))),
    _block("codeBlock", _text("ratio = browns / greens\n\n    # weekly\n```")),
)
HOSTILE_LINKS_NOTE = _block(
    "doc",
    _block(
        "paragraph",
        _text("web", _link("https://ok.example/")),
        _text(" script", _link("javascript:alert(1)")),
        _text(" data", _link("data:text/html,<script>alert(2)</script>")),
        _text(" mail", _link("mailto:someone@example.com")),
        _text(" item", _link("memex://entity/page")),
    ),
)
# Plain text that Markdown (or Obsidian) would read as markup if it were written as it is.
MARKDOWN_LOOKING = [
    "*not emphasis* and _not this_ and __nor__ **this**",
    "[a link](https://x.example) [ref] [[wiki link]] ![image](https://x.example/i.png)",
    "# not a heading",
    "- not a list",
    "+ nor this",
    "1. not numbered",
    "2) nor this",
    "> not a quote",
    "---",
    "=== not an underline",
    "`not code` and ``nor this``",
    "~~not struck~~",
    "<b>not HTML</b> <https://x.example> <javascript:alert(1)>",
    "&amp; &copy; &#65; stay as typed",
    "a back\\slash \\* and one at the end \\",
    "$x$ no maths, ==no highlight==, %%no comment%%, #no-tag",
    "| not | a table |",
    "snake_case_names stay readable",
    "[x]: javascript:alert(3)",
]
MARKDOWN_LOOKING_NOTE = _block("doc", *(_block("paragraph", _text(t)) for t in MARKDOWN_LOOKING))
LIBRARY: dict[str, Any] = {
    "results": [
        {"id": "page", "type": "web", "title": "A page", "url": "https://page.example/"},
        {"id": "rich", "type": "annotation", "content": RICH_NOTE},
        {"id": "links", "type": "annotation", "content": HOSTILE_LINKS_NOTE},
        {"id": "looking", "type": "annotation", "content": MARKDOWN_LOOKING_NOTE},
        {
            "id": "saved",
            "type": "web",
            "title": "Worm bins",
            "url": "https://worms.example/bins",
            "html": (
                "<article><h2>Bedding</h2><p>Shred <strong>cardboard</strong>, not "
                "<em>glossy</em> paper (<a href='/guide'>guide</a>).</p><ul><li>Moisture"
                "<ul><li>like a wrung sponge</li></ul></li></ul>"
                "<pre><code>bins = 2\n</code></pre><p>Say *hi* to the worms.</p></article>"
            ),
        },
    ],
    "referencedTags": [],
    "referencesByResultId": {},
}
VIEWER = MarkdownIt("commonmark").enable("table").enable("strikethrough")


@pytest.fixture(scope="module")
def bodies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What the Markdown export writes after each item's front matter, by item id."""
    folder = tmp_path_factory.mktemp("export")
    library = folder / "library.json"
    library.write_text(json.dumps(LIBRARY), encoding="utf-8")
    with StoreWriter(folder / "cache.db") as writer:
        import_json(writer, library)
    reader = CacheReader(folder / "cache.db")
    try:
        exported = export_markdown(reader, folder / "out")
    finally:
        reader.close()
    found: dict[str, str] = {}
    for path in exported.glob("*.md"):
        if path.name != "index.md":
            _, front_matter, body = path.read_text(encoding="utf-8").split("---\n", 2)
            found[json.loads(front_matter.split("\n")[0].removeprefix("id: "))] = body
    return found


def test_a_note_s_rich_text_is_written_as_markdown(bodies: dict[str, str]) -> None:
    body = bodies["rich"]
    assert "\n## Compost plan\n" in body
    assert "Turn it **weekly**, keep it *damp*" in body
    assert "[the guide](https://compost.example/guide?a=1&b=\\(2\\))" in body
    assert "- Greens\n  1. peels\n  2. coffee\n- Browns\n" in body
    assert "\n> Patience is the main ingredient.\n" in body
    shown = VIEWER.render(body)
    assert "<h2>Compost plan</h2>" in shown
    assert "<strong>weekly</strong>" in shown
    assert "<em>damp</em>" in shown
    assert '<a href="https://compost.example/guide?a=1&amp;b=(2)">the guide</a>' in shown
    assert ".<br />\nRatio <code>3:1</code> to start." in shown
    assert re.search(
        r"<ul>\s*<li>Greens\s*<ol>\s*<li>peels</li>\s*<li>coffee</li>\s*</ol>\s*</li>"
        r"\s*<li>Browns</li>\s*</ul>",
        shown,
    )
    assert "<blockquote>\n<p>Patience is the main ingredient.</p>\n</blockquote>" in shown
    # The code keeps its lines, its indentation and the fence that was in it.
    assert "<pre><code>ratio = browns / greens\n\n    # weekly\n```\n</code></pre>" in shown


def test_a_saved_page_s_html_is_written_as_markdown(bodies: dict[str, str]) -> None:
    shown = VIEWER.render(bodies["saved"])
    assert "<h2>Bedding</h2>" in shown
    assert "Shred <strong>cardboard</strong>, not <em>glossy</em> paper" in shown
    # A relative link goes where the reader's goes: resolved against the page's address.
    assert '<a href="https://worms.example/guide">guide</a>' in shown
    assert re.search(r"<li>Moisture\s*<ul>\s*<li>like a wrung sponge</li>", shown)
    assert "<pre><code>bins = 2\n</code></pre>" in shown
    assert "<p>Say *hi* to the worms.</p>" in shown


def test_only_links_to_web_addresses_stay_links(bodies: dict[str, str]) -> None:
    body = bodies["links"]
    shown = VIEWER.render(body)
    assert re.findall(r'<a href="([^"]*)"', shown) == ["https://ok.example/"]
    assert '<p><a href="https://ok.example/">web</a> script data mail item</p>' in shown
    for scheme in ("javascript:", "data:", "mailto:", "memex:"):
        assert scheme not in body


def test_text_that_looks_like_markdown_stays_text(bodies: dict[str, str]) -> None:
    shown = VIEWER.render(bodies["looking"])
    assert set(re.findall(r"</?([a-z0-9]+)", shown)) == {"p"}  # paragraphs, no markup
    paragraphs = [html.unescape(p) for p in re.findall(r"<p>(.*?)</p>", shown, re.S)]
    assert paragraphs == ["Note", *MARKDOWN_LOOKING]  # each shows what was typed
    assert "snake_case_names" in bodies["looking"]  # "_" inside a word is left as typed


def test_tables_and_deep_nesting_are_written() -> None:
    table = html_to_markdown(
        "<table><thead><tr><th>Plant</th><th>a|b</th></tr></thead>"
        "<tbody><tr><td><b>Kale</b></td></tr></tbody></table>"
    )
    assert table == "| Plant | a\\|b |\n| --- | --- |\n| **Kale** |  |"
    assert "<td><strong>Kale</strong></td>\n<td></td>" in VIEWER.render(table)
    # Deeper than the walk goes, content is kept as its text, never lost to a recursion error.
    deep = "<blockquote>" * 3000 + "<p>x <b>y</b></p>" + "</blockquote>" * 3000
    assert html_to_markdown(deep) == "> " * MAX_DEPTH + "x y"
