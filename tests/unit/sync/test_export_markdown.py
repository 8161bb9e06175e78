"""The Markdown export of hostile items: their text is kept, a Markdown viewer finds no markup."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import markdown  # type: ignore[import-untyped]
import pytest
from support.render_safety import problems

from memex_desktop.render.html_markdown import plain_text_to_markdown
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.sync.export import export_markdown, import_json, render_for_cli

HOSTILE_HTML = (
    "<p>Hello <script>alert(1)</script> world "
    '<a href="javascript:alert(2)">click</a> <img src=x onerror=alert(3)> '
    "<b onmouseover=alert(4)>bold</b></p>"
    "<p>[md](javascript:alert(5)) and &lt;script&gt;alert(6)&lt;/script&gt; tail</p>"
)
HOSTILE_MARKDOWN = (
    "Intro <script>alert(7)</script> words <img src=x onerror=alert(8)>\n\n"
    "[x](javascript:alert(9)) <javascript:alert(10)> [ref]\n\n"
    "[ref]: javascript:alert(11)\n\n"
    "<iframe src=javascript:alert(12)></iframe> closing words"
)
LIBRARY: dict[str, Any] = {
    "results": [
        {
            "id": "w1",
            "type": "web",
            "title": "<script>alert('title')</script> Page",
            "url": "https://site.example/a",
            "html": HOSTILE_HTML,
            "created_at": 1_700_000_000_000,
        },
        {
            "id": "w2",
            "type": "web",
            "title": "Markdown [t](javascript:alert(13))",
            "url": "https://site.example/b",
            "full_text": HOSTILE_MARKDOWN,
            "created_at": 1_700_000_000_001,
        },
        {
            "id": "n1",
            "type": "annotation",
            "text": "note <script>alert(14)</script> [n](javascript:alert(15)) kept",
            "reference_content_ids": ["w1"],
            "created_at": 1_700_000_000_002,
        },
        {
            "id": "c1",
            "type": "chatThread",
            "title": "A chat citing a hostile id",
            "messages": [{"role": "user", "content": "see {{content:w2}}"}],
            "reference_content_ids": ["w2", "x)[evil](javascript:alert(16)"],
            "created_at": 1_700_000_000_003,
        },
    ],
    "referencedTags": [],
    "referencesByResultId": {},
}


@pytest.fixture
def exported(tmp_path: Path) -> dict[str, str]:
    """The Markdown export of LIBRARY: file name -> text."""
    library = tmp_path / "library.json"
    library.write_text(json.dumps(LIBRARY), encoding="utf-8")
    with StoreWriter(tmp_path / "cache.db") as writer:
        import_json(writer, library)
    reader = CacheReader(tmp_path / "cache.db")
    try:
        folder = export_markdown(reader, tmp_path / "out")
    finally:
        reader.close()
    return {path.name: path.read_text(encoding="utf-8") for path in folder.glob("*.md")}


def _viewer_problems(text: str) -> list[str]:
    """What a Markdown viewer that passes raw HTML through would render unsafely."""
    rendered = markdown.markdown(text, extensions=["tables", "fenced_code"])
    return [
        problem
        for problem in problems(rendered)
        if not problem.endswith(".md' on <a> (scheme not allowed)")
    ]


def test_no_exported_file_holds_markup_or_a_script_link(exported: dict[str, str]) -> None:
    assert len(exported) == 4  # three items and the index; the note is inside its page
    for name, text in exported.items():
        assert "<script" not in text.lower(), name
        assert "<iframe" not in text.lower(), name
        assert not _viewer_problems(text), (name, _viewer_problems(text))


def test_the_text_of_hostile_items_is_kept(exported: dict[str, str]) -> None:
    everything = "\n".join(exported.values())
    rendered = markdown.markdown(everything)
    for words in ("Hello", "world", "click", "bold", "tail", "Intro", "closing words", "kept"):
        assert words in everything
    assert "alert(1)" not in everything  # a script is not text
    # Text that shows markup stays text: in the file, and in what a viewer shows.
    assert "&lt;script>alert(6)&lt;/script>" in everything
    assert "&lt;script&gt;alert(6)&lt;/script&gt;" in rendered
    assert "&lt;script>alert(7)&lt;/script>" in everything
    # A title is plain words: its tags are dropped, the words kept.
    assert "title: \"alert('title') Page\"" in everything


@pytest.mark.parametrize(
    ("text", "markdown_text"),
    [
        ("a <b> c", "a &lt;b> c"),
        ("see <https://x.example/a>", "see &lt;https://x.example/a>"),
        ("<javascript:alert(1)>", "&lt;javascript:alert(1)>"),
        ("[x](javascript:y)", "\\[x\\](javascript:y)"),
        ("[x\\](javascript:y)", "\\[x\\\\\\](javascript:y)"),
        ("[a]: javascript:z", "\\[a\\]: javascript:z"),
        ("[a] [b]", "\\[a\\] \\[b\\]"),
        ("Q&A &lt;b&gt;", "Q&A &amp;lt;b&amp;gt;"),
        ("[image: a — https://i.example/x.png]", "\\[image: a — https://i.example/x.png\\]"),
    ],
)
def test_plain_text_as_markdown(text: str, markdown_text: str) -> None:
    assert plain_text_to_markdown(text) == markdown_text
    assert not problems(markdown.markdown(markdown_text))


def test_show_keeps_the_text_after_a_stray_tag(tmp_path: Path) -> None:
    html = 'before <http://example.com/"onmouseover="x> middle <g>svg-named</g> <x after'
    library = tmp_path / "library.json"
    page = {"id": "s1", "type": "web", "title": "stray", "html": html}
    library.write_text(json.dumps({"results": [page]}), encoding="utf-8")
    with StoreWriter(tmp_path / "cache.db") as writer:
        import_json(writer, library)
    reader = CacheReader(tmp_path / "cache.db")
    try:
        entity = reader.entity("s1")
        assert entity is not None
        text = render_for_cli(entity, reader, "text")
        markup = render_for_cli(entity, reader, "html")
    finally:
        reader.close()
    for word in ("before", "middle", "svg-named", "after"):
        assert word in text
        assert word in markup
    assert not problems(markup)


def test_the_files_are_synced_once_together_and_the_index_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Syncing each file took about a third of a large export; the index, written once every
    item is on the disk, says the export is whole."""
    library = tmp_path / "library.json"
    library.write_text(json.dumps(LIBRARY), encoding="utf-8")
    with StoreWriter(tmp_path / "cache.db") as writer:
        import_json(writer, library)
    calls: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        calls.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "sync", lambda: calls.append("sync"))
    reader = CacheReader(tmp_path / "cache.db")
    try:
        folder = export_markdown(reader, tmp_path / "out")
    finally:
        reader.close()
    assert len(list(folder.glob("*.md"))) == 4
    assert calls[0] == "sync"
    assert [name.startswith(".index.md-") for name in calls[1:]] == [True]
    assert not list(folder.glob(".*.tmp"))
