"""The emulator answers in the documented shapes (the examples of response-shape.txt)."""

from __future__ import annotations

import json
import re
from typing import Any

from support.emulator import FIXTURES, EmulatorFactory, http_client

from memex_desktop.api.models import (
    SaveContentByUrlResponse,
    SaveContentEntityReceiptResponse,
    SaveContentEntityResponse,
    SearchLlmReadyResponse,
    SearchRawResponse,
)
from memex_desktop.emulator import RunningEmulator

RAW_KEYS = {
    "results",
    "extraEntities",
    "referencesByResultId",
    "referencedEntities",
    "referencedTags",
    "meta",
}
COMPACT_RESULT_KEYS = {"type", "url", "createdAt", "title", "text", "media", "references"}
META_KEYS = {
    "offset",
    "limit",
    "returnedCount",
    "rerankApplied",
    "usageMicrosCharged",
    "remainingUsageBalance",
}


def _example(name: str) -> dict[str, Any]:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _assert_subset(expected: Any, actual: Any, where: str = "$") -> None:
    """Every key and item of ``expected`` is in ``actual`` with the same value."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), where
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} missing"
            _assert_subset(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), where
        assert len(actual) == len(expected), f"{where}: {len(actual)} != {len(expected)}"
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            _assert_subset(left, right, f"{where}[{index}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def test_raw_example_library_reproduces_the_documented_raw_example(
    emulator_factory: EmulatorFactory,
) -> None:
    example = _example("raw_example.json")
    library = _example("raw_example.json")
    library["results"].append({"id": "page-2", "type": "web", "metadata": {}})
    running = emulator_factory(library=library)
    with http_client(running) as client:
        body = client.post(
            "/search",
            json={"query": "", "raw": True, "includeNotes": True, "contentTypes": ["web"]},
        ).json()
    assert set(body) == RAW_KEYS
    page = next(result for result in body["results"] if result["id"] == "page-1")
    _assert_subset(example["results"][0], page)
    for result_id, entry in example["referencesByResultId"].items():
        assert body["referencesByResultId"][result_id] == entry
    assert body["referencedEntities"] == []
    assert body["extraEntities"] == []
    assert set(body["meta"]) == META_KEYS
    assert set(body["meta"]["remainingUsageBalance"]) == set(
        example["meta"]["remainingUsageBalance"]
    )
    SearchRawResponse.model_validate(body)


def test_compact_example_library_reproduces_the_documented_compact_example(
    emulator_factory: EmulatorFactory,
) -> None:
    example = _example("compact_example.json")
    created = 1775723502786  # 2026-04-09T08:31:42.786Z
    library = {
        "results": [
            {
                "id": "page",
                "type": "web",
                "url": "https://example.com/article",
                "title": "Example article",
                "full_text": "Body text...",
                "created_at": created,
                "updated_at": created,
            },
            {
                "id": "video",
                "type": "youtube",
                "url": "https://www.youtube.com/watch?v=abc123",
                "title": "Referenced video",
                "summary": {"en": "Video summary..."},
                "transcript": {"en": [{"offset": 0, "text": "Transcript chunk 1", "duration": 2}]},
                "created_at": created,
                "updated_at": created,
            },
            {
                "id": "note",
                "type": "annotation",
                "text": "Important passage",
                "reference_content_ids": ["page", "video"],
                "created_at": created,
                "updated_at": created,
            },
        ]
    }
    running = emulator_factory(library=library)
    with http_client(running) as client:
        body = client.post(
            "/search",
            json={
                "query": "Example article",
                "includeNotes": True,
                "contentTypes": ["web"],
                "limit": 10,
            },
        ).json()
    expected = example["results"][0]
    result = body["results"][0]
    note_text = result["user_notes"][0].pop("text")
    expected_note_text = expected["user_notes"][0].pop("text")
    assert note_text.startswith(expected_note_text)
    assert result == expected
    assert set(body) == {"results", "meta"}
    assert body["meta"] == {
        **example["meta"],
        "remainingUsageBalance": body["meta"]["remainingUsageBalance"],
    }
    SearchLlmReadyResponse.model_validate(body)


def test_compact_results_keep_the_slim_contract(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        body = client.post("/search", json={"query": "", "limit": 100}).json()
    assert len(body["results"]) == 18
    for result in body["results"]:
        assert set(result) <= COMPACT_RESULT_KEYS, result
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", result["createdAt"])
        assert result["url"].startswith("https://")
        assert isinstance(result["text"], str)
    web = next(r for r in body["results"] if r.get("title") == "Local-first software")
    assert web["text"].startswith("# Local-first software")
    assert "**convenient**" in web["text"]
    assert "[CRDTs](https://example.org/crdt)" in web["text"]
    assert "- Offline" in web["text"]
    assert "<" not in web["text"]
    tweet = next(r for r in body["results"] if r["type"] == "twitter" and r.get("media"))
    assert tweet["media"][0]["imageDescription"] == "A whiteboard sketch of a sync protocol"
    SearchLlmReadyResponse.model_validate(body)


def test_raw_results_keep_every_stored_field(emulator: RunningEmulator) -> None:
    library = json.loads((FIXTURES / "small_library.json").read_text(encoding="utf-8"))
    stored = {entity["id"]: entity for entity in library["results"]}
    with http_client(emulator) as client:
        body = client.post("/search", json={"raw": True, "limit": 100}).json()
    assert {result["id"] for result in body["results"]} == set(stored)
    for result in body["results"]:
        decorations = {"annotations", "references"}
        assert {k: v for k, v in result.items() if k not in decorations} == stored[result["id"]]
    parsed = SearchRawResponse.model_validate(body)
    assert {entity.type for entity in parsed.results} >= {"chatThread", "selector", "pdf"}


def test_save_responses_parse_as_the_documented_models(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        by_url = client.post("/save-content-by-url", json={"url": "https://example.net/x"})
        entity = client.post(
            "/save-content-entity",
            json={"data": {"type": "annotation", "text": "hi", "reference_content_ids": ["web-1"]}},
        )
        receipt = client.post(
            "/save-content-entity",
            json={"data": {"url": "https://example.net/y"}, "responseMode": "receipt"},
        )
    assert SaveContentByUrlResponse.model_validate(by_url.json()).is_new is True
    assert set(by_url.json()) == {"entity", "tags", "isNew"}
    assert set(entity.json()) == {"entity", "entities", "tags", "isNew"}
    SaveContentEntityResponse.model_validate(entity.json())
    assert receipt.json()["ok"] is True
    SaveContentEntityReceiptResponse.model_validate(receipt.json())
