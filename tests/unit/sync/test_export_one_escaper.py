"""One escaper for all the Markdown the export writes: a highlight's quote, a note, a reference's
title and an index line show their characters as the item's content does, never as markup."""

from __future__ import annotations

import json
from pathlib import Path

import markdown  # type: ignore[import-untyped]
import pytest

from memex_desktop.render.html_markdown import escape_markdown, plain_text_to_markdown
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.sync.export import export_markdown, import_json

T0 = 1_700_000_000_000
# Text Markdown (CommonMark, Obsidian) would read as emphasis, a tag, a highlight, maths, a
# comment, a list item or a heading.
MARKED = "a *b* c #tag here ==lit== $x$ %%hidden%%"


@pytest.fixture
def page_file(tmp_path: Path) -> str:
    """The exported file of a page whose text, highlight, note and reference say MARKED."""
    page = {
        "id": "p1",
        "type": "web",
        "title": f"Page {MARKED}",
        "url": "https://a.example/p",
        "html": f"<p>{MARKED}</p>",
        "created_at": T0,
        "reference_content_ids": ["p2"],
    }
    other = {
        "id": "p2",
        "type": "web",
        "title": f"Other {MARKED}",
        "url": "https://a.example/q",
        "created_at": T0 + 1,
    }
    quote = {
        "id": "s1",
        "type": "selector",
        "target_id": "p1",
        "selector_type": "text_selector",
        "text": f"- {MARKED}",
        "reference_content_ids": ["p1"],
        "created_at": T0 + 2,
    }
    note = {
        "id": "n1",
        "type": "annotation",
        "text": f"# {MARKED}",
        "reference_content_ids": ["p1"],
        "created_at": T0 + 3,
    }
    refs = {"p1": {"contentEntityIds": ["p2"], "tagIds": []}}
    library = {"results": [page, other, quote, note], "referencesByResultId": refs}
    path = tmp_path / "library.json"
    path.write_text(json.dumps(library), encoding="utf-8")
    with StoreWriter(tmp_path / "cache.db") as writer:
        import_json(writer, path)
    reader = CacheReader(tmp_path / "cache.db")
    try:
        folder = export_markdown(reader, tmp_path / "out")
    finally:
        reader.close()
    (found,) = [p for p in folder.glob("*.md") if p.name != "index.md" and "page" in p.name]
    return found.read_text(encoding="utf-8") + (folder / "index.md").read_text(encoding="utf-8")


def test_every_text_of_the_file_is_escaped_alike(page_file: str) -> None:
    # Titles are plain words ("*b*" reads "b"): the rest of MARKED is in every text.
    escaped = escape_markdown(MARKED.partition(" c ")[2])
    # The content, the heading, the highlight, the note, the reference and the index lines.
    assert page_file.count(escaped) == 7, page_file
    assert escape_markdown(MARKED) in page_file.partition("## Highlights")[2]
    assert MARKED.partition(" c ")[2] not in page_file.partition("---\n\n")[2]


def test_a_viewer_shows_the_characters_not_markup(page_file: str) -> None:
    shown = markdown.markdown(page_file)
    assert "<em>" not in shown
    assert "<blockquote>\n<ul>" not in shown  # the quote "- ..." is no list
    assert "*b*" in shown
    assert "<h1>Memex export</h1>" in shown
    assert shown.count("<h1>") == 2  # the item's heading and the index's, not the note


@pytest.mark.parametrize(
    ("text", "markdown_text"),
    [
        ("a *b* c", "a \\*b\\* c"),
        ("#tag here", "\\#tag here"),
        ("- not a list", "\\- not a list"),
        ("1. not a list", "1\\. not a list"),
        ("==lit== $x$ %%c%%", "\\==lit\\== \\$x\\$ \\%%c\\%%"),
        ("one\n> two", "one\\\n\\> two"),
        ("a <b> c", "a &lt;b> c"),
        ("[x](javascript:y)", "\\[x\\](javascript:y)"),
        ("Q&A &lt;b&gt;", "Q&A &amp;lt;b&amp;gt;"),
    ],
)
def test_plain_text_as_markdown_is_escaped_inline_and_at_line_starts(
    text: str, markdown_text: str
) -> None:
    assert plain_text_to_markdown(text) == markdown_text
