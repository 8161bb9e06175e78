"""Column extraction: computing the body text only when needed changes nothing else."""

from __future__ import annotations

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store.extract import columns


def test_columns_without_body_match_columns_with_it() -> None:
    library = generate_library(400, seed=5, words_per_entity=80)
    entities = [
        *library["results"],
        {"id": "t1", "type": "twitter", "text": "a tweet\nsecond line"},
        {"id": "h1", "type": "web", "html": "<p>  Only <b>html</b> here</p>"},
        {"id": "n1", "type": "pdf", "pages": "untyped prose field"},
        {"id": "e1", "type": "web"},
    ]
    for entity in entities:
        full = columns(entity)
        lean = columns(entity, body=False)
        assert lean["text_body"] is None
        assert {**lean, "text_body": full["text_body"]} == full, entity["id"]
