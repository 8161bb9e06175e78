"""The reader and the cache read an entity the same way (api/content.py is the one reading).

Over every render fixture, a generated library and hand-made hard cases (chat messages given
as lists of parts, notes with inline, block, selector and image references, citations with
spaces): every word the reader shows of an item is found by local search for that item, every
reference card it shows is a stored edge and a backlink, and every stored edge is shown.
"""

from __future__ import annotations

import json
import re
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.api.models import parse_content_entity
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.render import RenderContext, render_entity
from memex_desktop.store import CacheReader, StoreWriter

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "render"
# Parts of a rendered item that are the reader's own words, other items' words (cards) or
# addresses, not what the item says: labels, dates, section headings, cards, placeholders.
_NOT_THE_ITEMS_WORDS = frozenset(
    {
        "meta", "section", "role", "field-name", "timestamp", "ref-card", "ref", "ref-type",
        "ref-missing", "remote-image", "notice", "media", "fact",
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W_]+")
_CARD = re.compile(r'href="memex://entity/([^"?]+)"')
_FTS_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})


def _doc(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"type": "doc", "content": list(blocks)}


def _paragraph(*nodes: dict[str, Any]) -> dict[str, Any]:
    return {"type": "paragraph", "content": list(nodes)}


def _text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


HARD_CASES: list[dict[str, Any]] = [
    {
        "id": "page-1",
        "type": "web",
        "title": "Zebrafish fin regrowth",
        "url": "https://a.example/z",
    },
    {"id": "page-2", "type": "web", "title": "Axolotl limbs", "url": "https://b.example/x"},
    {"id": "sel-1", "type": "selector", "target_id": "page-1", "text": "fins regrow in days"},
    {"id": "img-1", "type": "image", "source_title": "Plate of fins"},
    {
        "id": "chat-parts",
        "type": "chatThread",
        "title": "Regrowth questions",
        "summary": "Mentions {{ content:page-2 }} with spaces.",
        "messages": [
            {
                "role": "assistant",
                "llmMessage": {
                    "content": [
                        {"type": "text", "text": "The zebrafish genome"},
                        {"type": "text", "text": "second part cites {{content:page-1}}"},
                    ]
                },
            },
            {"role": "user", "content": "a plain-string message about salamanders"},
            {
                "role": "assistant",
                "llmMessage": {"content": "only text here"},
                "content": _doc(
                    _paragraph(
                        _text("only text here "),
                        {"type": "memex-inline-reference", "attrs": {"contentId": "img-1"}},
                    )
                ),
            },
        ],
    },
    {
        "id": "note-refs",
        "type": "annotation",
        "text": "inline block selector image",
        "reference_content_ids": ["page-1", "page-2"],
        "content": _doc(
            _paragraph(
                _text("inline "),
                {"type": "memex-inline-reference", "attrs": {"contentId": "page-2"}},
                _text(" selector "),
                {"type": "memex-reference", "attrs": {"selector_id": "sel-1"}},
            ),
            {"type": "memex-block-reference", "attrs": {"content_id": "chat-parts"}},
            {"type": "image", "attrs": {"src": "https://img.example/p.png", "imageId": "img-1"}},
        ),
    },
    {
        "id": "note-rich-only",
        "type": "annotation",
        "text": "",
        "content": _doc(
            _paragraph(
                _text("newts heal too "),
                {"type": "memex-reference", "attrs": {"content_id": "page-2"}},
            )
        ),
    },
]


def _corpus() -> list[dict[str, Any]]:
    """Every entity of the render fixtures, a generated library and the hard cases, by id."""
    found: dict[str, dict[str, Any]] = {}
    cases = json.loads((FIXTURES / "entities.json").read_text(encoding="utf-8"))
    for case in cases.values():
        for entity in [case["entity"], *case["library"]]:
            found.setdefault(entity["id"], entity)
    for entity in generate_library(40, seed=1, words_per_entity=60)["results"]:
        found.setdefault(entity["id"], entity)
    for entity in HARD_CASES:
        found.setdefault(entity["id"], entity)
    return list(found.values())


class _ItemWords(HTMLParser):
    """The text of rendered HTML outside the reader's labels, cards and placeholders."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self._open: list[bool] = []  # per open element: whether it hides its text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "img", "hr"):
            return
        classes = set((dict(attrs).get("class") or "").split())
        hidden = bool(classes & _NOT_THE_ITEMS_WORDS) or (bool(self._open) and self._open[-1])
        self._open.append(hidden)

    def handle_endtag(self, tag: str) -> None:
        if self._open and tag not in ("br", "img", "hr"):
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1]:
            return
        for word in data.split():
            if not word.startswith(("http://", "https://")):
                self.words.extend(_WORD.findall(word))


def _shown_words(html: str) -> set[str]:
    parser = _ItemWords()
    parser.feed(html)
    return {word for word in parser.words if word not in _FTS_OPERATORS}


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("agree") / "cache.db"
    writer = StoreWriter(path)
    corpus = _corpus()
    writer.ingest_json(corpus).result()
    # A page this size is indexed after it commits; until then a search reads the backlog's
    # JSON, which this test is not about.
    writer.flush_index().result()
    reader = CacheReader(path)
    edges = sqlite3.connect(path)
    yield corpus, reader, edges
    edges.close()
    reader.close()
    writer.close()


def _render(reader: CacheReader, entity: dict[str, Any]) -> str:
    context = RenderContext(lookup=reader.entity)
    return render_entity(parse_content_entity(entity), context).html


def test_the_corpus_has_the_hard_cases(cache: Any) -> None:
    corpus, _reader, _edges = cache
    kinds = {entity["type"] for entity in corpus}
    assert {"web", "twitter", "youtube", "reddit", "image", "annotation", "chatThread"} <= kinds
    assert {"pdf", "selector", "audioRecording", "book"} <= kinds
    assert len(corpus) > 60


def test_every_word_the_reader_shows_is_found_by_search(cache: Any) -> None:
    corpus, reader, _edges = cache
    unfound: dict[str, list[str]] = {}
    for entity in corpus:
        for word in sorted(_shown_words(_render(reader, entity))):
            if entity["id"] not in reader.search_ids(word, include_deleted=True):
                unfound.setdefault(entity["id"], []).append(word)
    assert not unfound, f"words shown but not found: {unfound}"


def test_reference_cards_and_stored_edges_are_the_same(cache: Any) -> None:
    corpus, reader, edges = cache
    mismatched: dict[str, tuple[set[str], set[str]]] = {}
    for entity in corpus:
        source = entity["id"]
        cards = set(_CARD.findall(_render(reader, entity))) - {source}
        stored = {
            target
            for (target,) in edges.execute("SELECT target FROM edges WHERE source = ?", [source])
        }
        if cards != stored:
            mismatched[source] = (cards - stored, stored - cards)
        for target in cards & stored:
            assert source in {link.source.id for link in reader.backlinks(target)}
    assert not mismatched, f"(cards not stored, stored not shown): {mismatched}"


def test_the_hard_cases_are_linked(cache: Any) -> None:
    *_, edges = cache
    stored = set(edges.execute("SELECT source, target FROM edges"))
    assert {
        ("chat-parts", "page-1"),
        ("chat-parts", "page-2"),
        ("chat-parts", "img-1"),
        ("note-refs", "page-1"),
        ("note-refs", "page-2"),
        ("note-refs", "sel-1"),
        ("note-refs", "chat-parts"),
        ("note-refs", "img-1"),
        ("note-rich-only", "page-2"),
    } <= stored
