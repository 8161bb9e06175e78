"""Column extraction: computing the body text only when needed changes nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store.extract import columns, searchable_texts

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _entities() -> list[dict[str, Any]]:
    """Generated items, every render fixture, and texts whose snippet needs several parts."""
    cases = json.loads((FIXTURES / "render" / "entities.json").read_text(encoding="utf-8"))
    fixtures = [entity for case in cases.values() for entity in [case["entity"], *case["library"]]]
    short_rich = {"type": "doc", "content": [{"type": "paragraph", "content": [
        {"type": "text", "text": "a rich line the text lacks"}]}]}  # fmt: skip
    return [
        *generate_library(400, seed=5, words_per_entity=80)["results"],
        *fixtures,
        {"id": "t1", "type": "twitter", "text": "a tweet\nsecond line"},
        {"id": "h1", "type": "web", "html": "<p>  Only <b>html</b> here</p>"},
        {"id": "n1", "type": "pdf", "pages": "untyped prose field"},
        {"id": "e1", "type": "web"},
        {"id": "s1", "type": "annotation", "text": "short", "content": short_rich},
        {"id": "s2", "type": "youtube", "text": "x" * 299, "transcript": {"en": [{"text": "y"}]}},
        {"id": "s3", "type": "web", "text": "x" * 300, "full_text": "z" * 50},
        {"id": "s4", "type": "web", "text": "", "full_text": "z" * 10, "pages": "p" * 400},
    ]


def test_columns_without_body_match_columns_with_it() -> None:
    for entity in _entities():
        full = columns(entity)
        lean = columns(entity, body=False)
        assert lean["text_body"] is None
        assert {**lean, "text_body": full["text_body"]} == full, entity["id"]


def test_reindexing_texts_are_the_texts_columns_index() -> None:
    # The contentless index removes a row's old terms by re-deriving them: any difference
    # between the two would leave terms behind.
    for entity in _entities():
        full = columns(entity)
        texts = (full["text_title"], full["text_author"], full["text_summary"], full["text_body"])
        assert searchable_texts(entity) == texts, entity.get("id")


def test_a_snippet_of_the_start_of_the_body_is_the_snippet_of_all_of_it() -> None:
    from memex_desktop.api.plain_text import SNIPPET_WINDOW
    from memex_desktop.store.extract import body_parts, body_text
    from memex_desktop.store.query import python_snippet, snippet_terms, text_and_first_match

    queries = ["words ", "rich ", "tweet ", "html ", "pros", "zzz ", "x ", "a line ", '"a line"']
    for entity in _entities():
        for query in queries:
            marked = snippet_terms(query)
            start, _span = text_and_first_match(body_parts(entity), marked, SNIPPET_WINDOW)
            whole = body_text(entity)
            assert whole.startswith(start)
            assert python_snippet(start, marked, SNIPPET_WINDOW) == python_snippet(
                whole, marked, SNIPPET_WINDOW
            ), (entity.get("id"), query)
            text, span = text_and_first_match(body_parts(entity), marked, SNIPPET_WINDOW)
            assert text == start
            assert python_snippet(text, marked, SNIPPET_WINDOW, span=span) == python_snippet(
                whole, marked, SNIPPET_WINDOW
            ), (entity.get("id"), query)
