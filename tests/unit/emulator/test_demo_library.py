"""The bundled demo library: valid, complete, consistent, and self-contained."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import pytest

from memex_desktop.api.models import (
    AvailablePlansOutput,
    Feed,
    SearchRawResponse,
    View,
    parse_content_entity,
)
from memex_desktop.paths import resource_path

Library = dict[str, Any]
KNOWN_TYPES = {
    "web",
    "twitter",
    "youtube",
    "reddit",
    "image",
    "pdf",
    "annotation",
    "chatThread",
    "selector",
}
CITATION = re.compile(r"\{\{content:([^}]+)\}\}")


@pytest.fixture(scope="module")
def library() -> Library:
    data: Library = json.loads(resource_path("demo", "library.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def by_id(library: Library) -> dict[str, dict[str, Any]]:
    return {entity["id"]: entity for entity in library["results"]}


def _reference_nodes(node: Any) -> list[str]:
    """Every ``memex-reference`` content id inside a ProseMirror document."""
    if isinstance(node, list):
        return [found for child in node for found in _reference_nodes(child)]
    if not isinstance(node, dict):
        return []
    found = [node["attrs"]["content_id"]] if node.get("type") == "memex-reference" else []
    return found + _reference_nodes(node.get("content", []))


def test_demo_library_validates(library: Library) -> None:
    response = SearchRawResponse.model_validate(library)
    assert len(response.results) >= 60
    assert response.meta.returned_count == len(response.results)
    for entity in library["results"]:
        parsed = parse_content_entity(entity)
        if entity["type"] in {"web", "twitter", "youtube", "image", "reddit", "annotation"}:
            assert type(parsed).__name__ != "OtherContentEntity", entity["id"]


def test_every_content_type_is_present(library: Library) -> None:
    types = Counter(entity["type"] for entity in library["results"])
    assert set(types) >= KNOWN_TYPES
    assert set(types) - KNOWN_TYPES, "at least one type the client has no model for"
    entities = library["results"]
    webs = [e for e in entities if e["type"] == "web"]
    assert sum(1 for e in webs if e.get("full_text", "").count("\n\n") >= 4) >= 10
    assert any("html" in e and "full_text" not in e for e in webs)
    tweets = [e for e in entities if e["type"] == "twitter"]
    assert any(e.get("quote_tweet") for e in tweets)
    assert any(e.get("images") and e.get("image_analysis") for e in tweets)
    assert any(e.get("videos") for e in tweets)
    videos = [e for e in entities if e["type"] == "youtube"]
    assert any(30 <= len(e["transcript"]["en"]) <= 60 for e in videos)
    assert all(e["summary"]["en"] and e["channel_title"] for e in videos)


def test_entities_are_well_formed(library: Library) -> None:
    entities = library["results"]
    assert len({e["id"] for e in entities}) == len(entities)
    urls = [e["url"] for e in entities if "url" in e]
    assert len(urls) == len(set(urls))
    for entity in entities:
        assert entity["metadata"] == {"status": "indexing-done"}
        assert isinstance(entity["created_at"], int)
        assert entity["updated_at"] >= entity["created_at"]


def test_reply_threads_go_three_levels_deep(library: Library, by_id: dict[str, Any]) -> None:
    notes = [e for e in library["results"] if e["type"] == "annotation"]
    deepest = 0
    for note in notes:
        depth, current = 0, note
        while by_id[current["reference_content_ids"][0]]["type"] == "annotation":
            current = by_id[current["reference_content_ids"][0]]
            depth += 1
        deepest = max(deepest, depth)
        parent = by_id[note["reference_content_ids"][0]]
        assert note["created_at"] > parent["created_at"]
        assert _reference_nodes(note["content"]) == note["reference_content_ids"][1:]
        first = library["referencesByResultId"][note["id"]]["contentEntityIds"][0]
        expected = (
            {"id": parent["id"], "type": "reply"}
            if parent["type"] == "annotation"
            else parent["id"]
        )
        assert first == expected
    assert deepest == 3
    assert sum(1 for note in notes if len(note["reference_content_ids"]) > 1) >= 8


def test_every_referenced_id_exists(library: Library, by_id: dict[str, Any]) -> None:
    tag_ids = {tag["id"] for tag in library["referencedTags"]}
    for source, refs in library["referencesByResultId"].items():
        assert source in by_id
        for target in refs["contentEntityIds"]:
            assert (target if isinstance(target, str) else target["id"]) in by_id
        assert set(refs["tagIds"]) <= tag_ids
    for entity in library["results"]:
        assert set(entity.get("reference_content_ids", [])) <= set(by_id), entity["id"]
        for target in entity.get("reference_content_ids", []):
            # Nothing mentions an item that was saved after it.
            assert by_id[target]["created_at"] < entity["created_at"], (entity["id"], target)
        assert set(entity.get("tag_ids", [])) <= tag_ids, entity["id"]
        for key in ("target_id", "quote_tweet"):
            if key in entity:
                assert entity[key] in by_id
        for message in entity.get("messages", []):
            cited = CITATION.findall(message["llmMessage"]["content"])
            assert set(cited) <= set(entity["reference_content_ids"])
            assert _reference_nodes(message["content"]) == cited


def test_chat_threads_cite_saved_items(library: Library) -> None:
    chats = [e for e in library["results"] if e["type"] == "chatThread"]
    assert chats
    for chat in chats:
        assert {m["role"] for m in chat["messages"]} == {"user", "assistant"}
        assert any(CITATION.search(m["llmMessage"]["content"]) for m in chat["messages"])


def test_tags_views_feeds_and_plans(library: Library) -> None:
    assert 10 <= len(library["referencedTags"]) <= 20
    used = {tag for e in library["results"] for tag in e.get("tag_ids", [])}
    assert used == {tag["id"] for tag in library["referencedTags"]}
    views = [View.model_validate(view) for view in library["views"]]
    assert len(views) == 2
    assert all(view.name and view.definition for view in views)
    feeds = [Feed.model_validate(feed) for feed in library["feeds"]]
    assert len(feeds) >= 2
    assert AvailablePlansOutput.model_validate(library["plans"]).plans


def test_links_point_only_at_reserved_or_invented_addresses(library: Library) -> None:
    text = json.dumps(library)
    hosts = {urlsplit(url).hostname or "" for url in re.findall(r"https?://[^\s\"'<>)\]]+", text)}
    for host in hosts:
        assert host == "www.youtube.com" or host.split(".")[-2] == "example", host
