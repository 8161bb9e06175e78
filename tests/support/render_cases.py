"""The render fixtures (tests/fixtures/render/entities.json), rendered as the cache would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, RenderedDoc, render_entity

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "render"
CASES: dict[str, dict[str, Any]] = json.loads(
    (FIXTURES / "entities.json").read_text(encoding="utf-8")
)


def render_case(name: str, **options: Any) -> RenderedDoc:
    """Render one fixture with a lookup over its small library, its tag names (``tags``) and
    the notes of its library attached to each item, as the cache gives them."""
    case = CASES[name]
    library = {item["id"]: parse_content_entity(item) for item in case["library"]}
    tags: dict[str, str] = case.get("tags", {})

    def notes_on(entity_id: str) -> list[str]:
        return [
            item["id"]
            for item in case["library"]
            if item["type"] == "annotation"
            and item.get("reference_content_ids", [None])[0] == entity_id
        ]

    context = RenderContext(lookup=library.get, tag_names=tags.get, notes_on=notes_on, **options)
    return render_entity(parse_content_entity(case["entity"]), context)
