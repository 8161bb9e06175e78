"""Search in the emulator: listing, paging, filters, notes nesting, views and feeds."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from support.emulator import EmulatorFactory, http_client, small_library_ids

from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library

BASE_MS = 1767225600000  # created_at of the first entity of the small library
HOUR_MS = 3_600_000


def _search(client: httpx.Client, **body: Any) -> dict[str, Any]:
    response = client.post("/search", json=body)
    assert response.status_code == 200, response.text
    data = response.json()
    assert isinstance(data, dict)
    return data


def _ids(body: dict[str, Any]) -> list[str]:
    return [result["id"] for result in body["results"]]


def test_full_sync_paging_sees_every_entity_once(emulator: RunningEmulator) -> None:
    seen: list[str] = []
    with http_client(emulator) as client:
        offset = 0
        while True:
            body = _search(
                client,
                query="",
                raw=True,
                includeNotes=True,
                sortBy="date-desc",
                limit=5,
                offset=offset,
            )
            assert body["meta"]["offset"] == offset
            assert body["meta"]["returnedCount"] == len(body["results"])
            seen += _ids(body)
            if body["meta"]["returnedCount"] < 5:
                break
            offset += 5
    assert len(seen) == len(set(seen))
    assert set(seen) == small_library_ids()  # notes, replies, the chat thread included


def test_date_sorting_both_ways(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        newest = _ids(_search(client, raw=True, sortBy="date-desc", limit=3))
        oldest = _ids(_search(client, raw=True, sortBy="date-asc", limit=3))
        listing = _ids(_search(client, raw=True, query="", limit=3))
    assert newest == ["web-4", "chat-1", "note-3"]
    assert oldest == ["web-1", "web-2", "web-3"]
    assert listing == newest


def test_limit_is_capped_and_reported(emulator_factory: EmulatorFactory) -> None:
    running = emulator_factory(max_page_size=4)
    with http_client(running) as client:
        body = _search(client, raw=True, limit=50)
        default = _search(client, raw=True)
    assert body["meta"]["limit"] == 4
    assert len(body["results"]) == 4
    assert default["meta"]["limit"] == 4


def test_relevance_search_over_title_and_text(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        title_hit = _ids(_search(client, raw=True, query="packaging"))
        body_hit = _ids(_search(client, raw=True, query="whiteboard"))
        transcript_hit = _ids(_search(client, raw=True, query="merging edits"))
        nothing = _search(client, raw=True, query="zyzzyva")
    assert title_hit[0] == "web-2"
    assert "tweet-1" in body_hit  # found through the image analysis text
    assert transcript_hit[0] == "yt-1"
    assert nothing["results"] == []


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"contentTypes": ["youtube"]}, {"yt-1", "yt-2"}),
        ({"contentTypes": ["chatThread", "selector"]}, {"chat-1", "sel-1"}),
        ({"tag_ids": ["tag-python", "tag-research"]}, {"web-3"}),
        (
            {"tag_ids": ["tag-python", "tag-research"], "tagMatchStrategy": "OR"},
            {"web-1", "web-2", "web-3", "tweet-2", "reddit-1", "note-1"},
        ),
        ({"tag": "research"}, {"web-1", "web-3", "note-1"}),
        ({"query": "#python #research"}, {"web-3"}),
        ({"tag": "no-such-tag"}, set()),
        (
            {"timeRange": {"start": BASE_MS + 3 * HOUR_MS, "end": BASE_MS + 5 * HOUR_MS}},
            {"tweet-1", "tweet-2", "yt-1"},
        ),
        ({"dateFrom": "2026-01-01T16:00:00Z"}, {"chat-1", "web-4"}),
        ({"dateTo": "2025-12-31"}, set()),
        ({"feedIds": ["feed-blog"]}, {"web-4"}),
        ({"feedScope": "all"}, {"web-4", "yt-2"}),
        ({"viewIds": ["view-python"]}, {"web-2", "tweet-2", "reddit-1"}),
    ],
)
def test_filters(emulator: RunningEmulator, filters: dict[str, Any], expected: set[str]) -> None:
    with http_client(emulator) as client:
        body = _search(client, raw=True, limit=100, **filters)
    assert set(_ids(body)) == expected


def test_view_sort_order_applies(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        via_search = _ids(_search(client, raw=True, viewIds=["view-videos"]))
        response = client.post("/execute-view-search", json={"viewId": "view-videos"})
        compact_view = _search(client, viewIds=["view-videos"])
    assert via_search == ["yt-1", "yt-2"]
    assert response.status_code == 200
    assert _ids(response.json()) == ["yt-1", "yt-2"]  # always the raw shape
    assert "referencesByResultId" in response.json()
    assert [r["title"] for r in compact_view["results"]] == [
        "CRDTs: the hard parts",
        "SQLite internals",
    ]


def test_include_notes_nests_annotations_with_references(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        body = _search(client, raw=True, includeNotes=True, limit=100)
        bare = _search(client, raw=True, limit=100)
    results = {result["id"]: result for result in body["results"]}
    page = results["web-1"]
    assert [note["id"] for note in page["annotations"]] == ["note-1", "note-2"]
    note_1 = page["annotations"][0]
    assert [ref["id"] for ref in note_1["resolvedReferences"]] == ["yt-1"]
    assert [ref["id"] for ref in note_1["references"]] == ["yt-1"]
    # A note mentioning another note gets that note's own references one level deeper.
    on_tweet = results["tweet-1"]["annotations"][0]
    assert on_tweet["id"] == "note-3"
    mentioned = on_tweet["references"][0]
    assert mentioned["id"] == "note-2"
    assert [ref["id"] for ref in mentioned["references"]] == ["web-1"]
    assert "references" not in on_tweet["resolvedReferences"][0]
    # Replies nest under the note they answer, which is itself a result.
    assert [reply["id"] for reply in results["note-1"]["annotations"]] == ["reply-1"]
    assert [reply["id"] for reply in results["reply-1"]["annotations"]] == ["reply-2"]
    refs = body["referencesByResultId"]
    assert refs["reply-1"]["contentEntityIds"][0] == {"id": "note-1", "type": "reply"}
    assert {"note-1", "note-2"} <= set(refs["web-1"]["contentEntityIds"])
    assert {tag["id"] for tag in body["referencedTags"]} == {"tag-research", "tag-python"}
    assert all("annotations" not in result for result in bare["results"])


def test_chat_threads_and_notes_expose_their_references(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        body = _search(client, raw=True, contentTypes=["chatThread"])
        compact = _search(client, contentTypes=["chatThread"], includeNotes=True)
    chat = body["results"][0]
    assert [ref["id"] for ref in chat["references"]] == ["web-2", "yt-1"]
    assert {entity["id"] for entity in body["referencedEntities"]} == {"web-2", "yt-1"}
    assert (
        "[CRDTs: the hard parts](https://www.youtube.com/watch?v=abc123)"
        in (compact["results"][0]["text"])
    )
    assert set(compact["results"][0]["references"]) == {
        "https://packaging.python.org/en/latest/tutorials/packaging-projects/",
        "https://www.youtube.com/watch?v=abc123",
    }


def test_compact_user_notes(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        body = _search(
            client, query="Local-first software", contentTypes=["web"], includeNotes=True, limit=1
        )
    result = body["results"][0]
    assert result["title"] == "Local-first software"
    notes = result["user_notes"]
    assert [note["type"] for note in notes] == ["annotation", "annotation"]
    assert notes[0]["url"] == "https://www.inkandswitch.com/local-first/"
    assert "kind: commentary" in notes[0]["text"]
    assert "CRDTs: the hard parts" in notes[0]["text"]
    assert list(notes[0]["references"]) == ["https://www.youtube.com/watch?v=abc123"]


def test_projection_fields(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        body = _search(client, raw=True, includeFields=["title"], contentTypes=["web"])
        excluded = _search(client, raw=True, excludeFields=["html"], contentTypes=["web"])
    assert all(set(result) <= {"id", "type", "title"} for result in body["results"])
    assert all("html" not in result for result in excluded["results"])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"query": "x", "surprise": 1, "alsoThis": 2}, "alsoThis, surprise"),
        ({"contentTypes": ["web", "podcast"]}, "Unsupported contentTypes filter values: podcast"),
        ({"limit": "ten"}, "limit must be an integer"),
        ({"limit": 0}, "limit must be at least 1"),
        ({"offset": -1}, "offset must be at least 0"),
        ({"raw": "yes"}, "raw must be a boolean"),
        ({"sortBy": "popular"}, "sortBy must be one of"),
        ({"timeRange": {"from": 1}}, "Unknown timeRange field"),
        ({"viewIds": ["view-nope"]}, "Unknown viewIds"),
        ({"feedScope": "some"}, "feedScope"),
    ],
)
def test_bad_requests_are_400_with_a_message(
    emulator: RunningEmulator, body: dict[str, Any], message: str
) -> None:
    with http_client(emulator) as client:
        response = client.post("/search", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_unsupported_content_type_message_lists_supported_values(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        error = client.post("/search", json={"contentTypes": ["podcast"]}).json()["error"]
    assert error.startswith("Unsupported contentTypes filter values: podcast. Supported values: ")
    assert "chatThread" in error


def test_search_content_alias(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        body = client.post("/search-content", json={"query": "packaging", "raw": True}).json()
    assert body["results"][0]["id"] == "web-2"


def test_deleted_entities_disappear(emulator: RunningEmulator) -> None:
    assert emulator.state.delete_entity("web-2") is True
    assert emulator.state.delete_entity("web-2") is False
    with http_client(emulator) as client:
        ids = _ids(_search(client, raw=True, limit=100))
    assert "web-2" not in ids
    assert len(ids) == len(small_library_ids()) - 1
    assert emulator.state.entity("web-2") is None


def test_every_view_of_a_generated_library_runs_on_the_emulator(
    emulator_factory: EmulatorFactory,
) -> None:
    library = generate_library(300, seed=4, words_per_entity=8)
    running = emulator_factory(library=library)
    with http_client(running) as client:
        for view in library["views"]:
            response = client.post("/execute-view-search", json={"viewId": view["id"]})
            assert response.status_code == 200, (view["name"], response.text)
    videos = next(v for v in library["views"] if v["name"] == "Videos this year")
    # The documented bounds of a time range (research/memex-api.md: ``{start?, end?}``).
    assert set(videos["definition"]["timeRange"]) == {"start", "end"}
