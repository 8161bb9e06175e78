"""Emulator switches that disagree with the client, each next to the default behaviour."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from support.emulator import (
    EmulatorFactory,
    http_client,
    make_config,
    small_library,
    small_library_ids,
    wait_until,
)

from memex_desktop.emulator import EmulatorConfig, RunningEmulator
from memex_desktop.emulator.config import PROFILES, profile_settings

MINUTE_MS = 60_000
BASE_MS = 1_767_225_600_000  # a whole minute


def _post(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    data = response.json()
    assert isinstance(data, dict)
    return data


def _search(client: httpx.Client, **body: Any) -> dict[str, Any]:
    return _post(client, "/search", {"raw": True, **body})


def _ids(body: dict[str, Any]) -> list[str]:
    return [result["id"] for result in body["results"]]


def _content_ids(body: dict[str, Any]) -> list[str]:
    """Result ids as the library file names them, whatever id the profile serves."""
    return [result.get("content_id", result["id"]) for result in body["results"]]


def _web(entity_id: str, created_at: int) -> dict[str, Any]:
    return {
        "id": entity_id,
        "type": "web",
        "url": f"https://example.org/{entity_id}",
        "title": f"Page {entity_id}",
        "created_at": created_at,
        "updated_at": created_at,
        "metadata": {"status": "indexing-done"},
    }


def _library(*entities: dict[str, Any]) -> dict[str, Any]:
    return {"results": list(entities)}


def _page_through(client: httpx.Client, limit: int, **body: Any) -> list[list[str]]:
    """Every page of an empty-query listing, stopping only at an empty page."""
    pages: list[list[str]] = []
    offset = 0
    while True:
        page = _search(client, query="", sortBy="date-desc", limit=limit, offset=offset, **body)
        if not page["results"]:
            return pages
        pages.append(_content_ids(page))
        offset += limit
        assert len(pages) < 100, "the listing never ended"


def _wait_listed(client: httpx.Client, served_id: str) -> None:
    wait_until(
        lambda: served_id in _ids(_search(client, query="", limit=100)), what="the save to index"
    )


# ---------------------------------------------------------------------------------- profiles


def test_profile_settings_name_the_switches() -> None:
    default = profile_settings("default")
    first_party = profile_settings("first-party")
    assert PROFILES == ("default", "first-party")
    assert set(default) == set(first_party)
    config = EmulatorConfig()
    assert {key: getattr(config, key) for key in default} == default
    assert first_party["profile"] == "first-party"
    assert first_party["max_page_size"] == 40
    assert first_party["echo_requested_limit"] is True
    assert first_party["distinct_library_ids"] is True
    assert first_party["dedupe_notes_by_external_id"] is False
    assert first_party["unlisted_types"] == frozenset({"selector"})
    for variant in ("ignore_offset", "ignore_sort_by", "moved_to"):
        assert variant not in first_party
    with pytest.raises(ValueError, match="no-such-profile"):
        profile_settings("no-such-profile")


def test_make_config_applies_the_profile_then_the_overrides() -> None:
    assert make_config().distinct_library_ids is False
    config = make_config(profile="first-party", max_page_size=7)
    assert config.profile == "first-party"
    assert config.distinct_library_ids is True
    assert config.max_page_size == 7


def test_config_rejects_an_unknown_collection_key_style() -> None:
    with pytest.raises(ValueError, match="collection_keys"):
        EmulatorConfig(collection_keys="views")


def test_every_listable_item_is_listed_under_each_profile(
    emulator_factory: EmulatorFactory,
    emulator_profile: str,
) -> None:
    running = emulator_factory(profile=emulator_profile)
    with http_client(running) as client:
        pages = _page_through(client, 5, includeNotes=True)
    seen = {entity_id for page in pages for entity_id in page}
    unlisted = running.state.unlisted_ids()
    assert seen == small_library_ids() - unlisted
    assert (unlisted == set()) is (emulator_profile == "default")


# ---------------------------------------------------------------------------------- paging


def test_echo_requested_limit(emulator_factory: EmulatorFactory) -> None:
    applied = emulator_factory(max_page_size=4)
    echoed = emulator_factory(max_page_size=4, echo_requested_limit=True)
    with http_client(applied) as one, http_client(echoed) as other:
        assert _search(one, limit=10)["meta"]["limit"] == 4
        assert _search(one)["meta"]["limit"] == 4
        asked = _search(other, limit=10)
        default = _search(other)
    assert asked["meta"]["limit"] == 10
    assert len(asked["results"]) == 4  # the cap still applies, silently
    assert asked["meta"]["returnedCount"] == 4
    assert default["meta"]["limit"] == 30  # the default page size, as if asked for


def test_unlisted_rows_make_short_pages_in_the_middle(emulator_factory: EmulatorFactory) -> None:
    every_row = emulator_factory()
    dropping = emulator_factory(unlisted_every=7)
    with http_client(every_row) as client:
        full_pages = _page_through(client, 5)
    with http_client(dropping) as client:
        short_pages = _page_through(client, 5)
        page = _search(client, query="", limit=5, offset=5)
        nested = _search(client, contentTypes=["web"], includeNotes=True, limit=100)
        text_hit = _ids(_search(client, query="free-threading"))
    with http_client(every_row) as client:
        assert "tweet-2" in _ids(_search(client, query="free-threading"))
    assert every_row.state.unlisted_ids() == set()
    assert [len(p) for p in full_pages] == [5, 5, 5, 3]
    # seq is the load order of the library file: its 7th and 14th entities.
    assert dropping.state.unlisted_ids() == {"note-1", "tweet-2"}
    assert [len(p) for p in short_pages] == [5, 4, 4, 3]
    assert page["meta"]["returnedCount"] == 4
    assert page["meta"]["limit"] == 5
    assert {i for p in short_pages for i in p} == small_library_ids() - {"note-1", "tweet-2"}
    assert "tweet-2" not in text_hit  # it matches, but is never a top-level result
    web_1 = next(result for result in nested["results"] if result["id"] == "web-1")
    assert "note-1" in [note["id"] for note in web_1["annotations"]]  # still nested


def test_created_at_resolution_rounds_served_and_filtered_values(
    emulator_factory: EmulatorFactory,
) -> None:
    library = _library(*(_web(f"w{i}", BASE_MS + 7_000 * i + 1) for i in range(5)))
    exact = emulator_factory(library)
    coarse = emulator_factory(library, created_at_resolution_ms=MINUTE_MS)
    window = {"start": BASE_MS + 7_001, "end": BASE_MS + 14_001}
    with http_client(exact) as client:
        exact_times = sorted(r["created_at"] for r in _search(client)["results"])
        exact_window = sorted(_ids(_search(client, timeRange=window)))
    with http_client(coarse) as client:
        coarse_times = {r["created_at"] for r in _search(client)["results"]}
        coarse_window = _ids(_search(client, timeRange=window))
        at_minute = _ids(_search(client, timeRange={"start": BASE_MS, "end": BASE_MS}))
    assert exact_times == [BASE_MS + 7_000 * i + 1 for i in range(5)]
    assert exact_window == ["w1", "w2"]
    assert coarse_times == {BASE_MS}  # a bulk import ties
    assert coarse_window == []
    assert sorted(at_minute) == [f"w{i}" for i in range(5)]
    assert coarse.state.entity("w3") == {**library["results"][3], "created_at": BASE_MS}


def test_unstable_ties_repeat_and_skip_across_offset_pages(
    emulator_factory: EmulatorFactory,
) -> None:
    tied = [_web(f"t{i:02d}", BASE_MS) for i in range(12)]
    library = _library(_web("newest", BASE_MS + MINUTE_MS), *tied, _web("oldest", BASE_MS - 1))
    everyone = {"newest", "oldest", *(entity["id"] for entity in tied)}
    stable = emulator_factory(library)
    unstable = emulator_factory(library, unstable_ties=True)
    with http_client(stable) as client:
        stable_pages = _page_through(client, 5)
        stable_whole = _content_ids(_search(client, limit=14))
    with http_client(unstable) as client:
        unstable_pages = _page_through(client, 5)
        again = _page_through(client, 5)
        unstable_whole = _content_ids(_search(client, limit=14))
    stable_seen = [i for page in stable_pages for i in page]
    unstable_seen = [i for page in unstable_pages for i in page]
    assert stable_seen == stable_whole
    assert sorted(stable_seen) == sorted(everyone)
    assert again == unstable_pages  # reproducible: the same request, the same order
    assert unstable_seen[0] == "newest"
    assert unstable_seen[-1] == "oldest"
    assert len(set(unstable_seen)) < len(unstable_seen)  # repeats...
    assert set(unstable_seen) < everyone  # ...and skips
    assert sorted(unstable_whole) == sorted(everyone)


def test_ignore_offset_always_pages_from_zero(emulator_factory: EmulatorFactory) -> None:
    honoured = emulator_factory()
    ignored = emulator_factory(ignore_offset=True)
    with http_client(honoured) as client:
        first = _ids(_search(client, limit=5))
        second = _search(client, limit=5, offset=5)
    with http_client(ignored) as client:
        ignored_first = _ids(_search(client, limit=5))
        ignored_second = _search(client, limit=5, offset=5)
    assert not set(first) & set(_ids(second))
    assert ignored_first == first
    assert _ids(ignored_second) == first
    assert ignored_second["meta"]["offset"] == 5


def test_ignore_sort_by_orders_an_empty_query_by_no_date(
    emulator_factory: EmulatorFactory,
) -> None:
    honoured = emulator_factory()
    ignored = emulator_factory(ignore_sort_by=True)
    with http_client(honoured) as client:
        newest = _search(client, limit=100, sortBy="date-desc")
        oldest = _ids(_search(client, limit=100, sortBy="date-asc"))
        bogus = client.post("/search", json={"sortBy": "bogus"})
    with http_client(ignored) as client:
        desc = _search(client, limit=100, sortBy="date-desc")
        asc = _ids(_search(client, limit=100, sortBy="date-asc"))
        unsorted = _ids(_search(client, limit=100))
        accepted = _ids(_search(client, limit=100, sortBy="bogus"))
        view = _ids(_search(client, limit=100, viewIds=["view-videos"]))
        relevance = _ids(_search(client, query="packaging", sortBy="date-asc"))
    times = [result["created_at"] for result in newest["results"]]
    assert times == sorted(times, reverse=True)
    assert oldest == list(reversed(_ids(newest)))
    assert bogus.status_code == 400
    ignored_times = [result["created_at"] for result in desc["results"]]
    assert ignored_times not in (sorted(ignored_times), sorted(ignored_times, reverse=True))
    assert _ids(desc) == asc == unsorted == accepted
    assert sorted(_ids(desc)) == sorted(small_library_ids())
    assert view == [i for i in _ids(desc) if i in ("yt-1", "yt-2")]  # the view's sortBy too
    assert relevance[0] == "web-2"


def test_time_range_is_inclusive_and_offset_counts_within_it(
    emulator_factory: EmulatorFactory,
    emulator_profile: str,
) -> None:
    library = _library(*(_web(f"m{i:02d}", BASE_MS + i * MINUTE_MS) for i in range(30)))
    running = emulator_factory(library, profile=emulator_profile)
    window = {"start": BASE_MS + 5 * MINUTE_MS, "end": BASE_MS + 24 * MINUTE_MS}
    inside = [f"m{i:02d}" for i in range(24, 4, -1)]  # newest first, both bounds included
    listable = [i for i in inside if i not in running.state.unlisted_ids()]
    with http_client(running) as client:
        pages = _page_through(client, 6, timeRange=window)
        whole = _content_ids(_search(client, timeRange=window, limit=40))
        later = _search(client, timeRange=window, limit=6, offset=6)
    seen = [i for page in pages for i in page]
    assert seen == listable
    assert whole == listable
    assert later["meta"]["offset"] == 6
    # The offset skips six rows of the window, listed or not.
    assert _content_ids(later) == [i for i in inside[6:12] if i in listable]


# ---------------------------------------------------------------------------------- identity


def test_distinct_library_ids_serve_library_rows_and_link_content(
    emulator_factory: EmulatorFactory,
) -> None:
    same = emulator_factory()
    distinct = emulator_factory(distinct_library_ids=True)
    with http_client(same) as client:
        plain = _search(client, limit=100, includeNotes=True)
    assert sorted(_ids(plain)) == sorted(small_library_ids())
    assert all("content_id" not in result for result in plain["results"])

    state = distinct.state
    with http_client(distinct) as client:
        body = _search(client, limit=100, includeNotes=True)
        notes_page = _search(client, limit=100, contentTypes=["annotation"])
    results = {result["content_id"]: result for result in body["results"]}
    assert set(results) == small_library_ids()
    for content_id, result in results.items():
        assert result["id"] == state.served_id(content_id)
        assert result["id"].startswith("ul-")
        assert result["id"] != content_id
        assert state.content_id_of(result["id"]) == content_id
    note_1 = results["note-1"]
    assert note_1["reference_content_ids"] == ["web-1", "yt-1"]  # links name content ids
    assert [ref["content_id"] for ref in note_1["references"]] == ["web-1", "yt-1"]
    assert {ref["id"] for ref in note_1["references"]} == {
        state.served_id("web-1"),
        state.served_id("yt-1"),
    }
    nested = results["web-1"]["annotations"]
    assert {note["content_id"] for note in nested} == {"note-1", "note-2"}
    assert all(note["id"] == state.served_id(note["content_id"]) for note in nested)
    refs = body["referencesByResultId"]
    assert set(refs) >= {state.served_id(i) for i in results}
    assert "note-1" not in refs
    assert refs[state.served_id("note-1")]["contentEntityIds"][:2] == ["web-1", "yt-1"]
    assert "note-1" in refs[state.served_id("web-1")]["contentEntityIds"]
    referenced = notes_page["referencedEntities"]
    assert referenced
    assert all(entity["id"] == state.served_id(entity["content_id"]) for entity in referenced)


def test_distinct_library_ids_in_saves_and_id_taking_endpoints(
    emulator_factory: EmulatorFactory,
) -> None:
    running = emulator_factory(distinct_library_ids=True)
    state = running.state
    web_3 = state.served_id("web-3")
    with http_client(running) as client:
        page = _post(client, "/save-content-by-url", {"url": "https://example.net/distinct"})
        note = _post(
            client,
            "/save-content-entity",
            {
                "data": {"type": "annotation", "text": "On FTS5", "reference_content_ids": [web_3]},
                "sourceContentId": state.served_id("pdf-1"),
                "relatedContentIds": [state.served_id("yt-2")],
            },
        )
        again = _post(
            client,
            "/save-content-entity",
            {"data": {"id": note["entity"]["id"], "type": "annotation", "text": "Edited"}},
        )
        link = _post(
            client, "/ensure-shared-library-entry-link", {"contentId": web_3, "access": "view"}
        )["link"]
        by_content_id = _post(client, "/ensure-shared-library-entry-link", {"contentId": "web-3"})
        links = _post(client, "/list-shared-library-entry-links", {"contentId": web_3})["links"]
    for saved in (page["entity"], note["entity"], *note["entities"]):
        assert saved["id"] == state.served_id(saved["content_id"])
        assert saved["id"] != saved["content_id"]
    content_id = note["entity"]["content_id"]
    assert note["entity"]["reference_content_ids"] == ["pdf-1", "web-3", "yt-2"]
    assert again["isNew"] is False
    assert again["entity"]["content_id"] == content_id
    stored = state.entity(note["entity"]["id"])
    assert stored is not None
    assert stored["id"] == content_id
    assert stored["text"] == "Edited"
    assert (link["contentId"], link["libraryEntryId"]) == ("web-3", web_3)
    assert by_content_id["link"]["sharedResourceId"] == link["sharedResourceId"]
    assert [found["contentId"] for found in links] == ["web-3"]


def test_distinct_library_ids_leave_the_default_save_ids_alone(
    emulator_factory: EmulatorFactory,
) -> None:
    running = emulator_factory()
    with http_client(running) as client:
        saved = _post(client, "/save-content-by-url", {"url": "https://example.net/same"})
        link = _post(client, "/ensure-shared-library-entry-link", {"contentId": "web-3"})["link"]
    assert "content_id" not in saved["entity"]
    assert running.state.entity(saved["entity"]["id"]) is not None
    assert link["contentId"] == link["libraryEntryId"] == "web-3"


def test_strip_annotation_references_leaves_links_to_the_entries(
    emulator_factory: EmulatorFactory,
) -> None:
    library = small_library()
    # An entry that does not list the note's link: only the stripped payload field had it.
    library["referencesByResultId"]["note-2"] = {"contentEntityIds": [], "tagIds": []}
    kept = emulator_factory(library)
    stripped = emulator_factory(library, strip_annotation_references=True)
    with http_client(kept) as client:
        before = _search(client, limit=100, includeNotes=True)
    with http_client(stripped) as client:
        after = _search(client, limit=100, includeNotes=True)
        saved = _post(
            client,
            "/save-content-entity",
            {"data": {"type": "annotation", "text": "Kept", "reference_content_ids": ["web-3"]}},
        )
    by_id = {result["id"]: result for result in before["results"]}
    assert by_id["note-2"]["reference_content_ids"] == ["web-1"]
    assert before["referencesByResultId"]["note-2"]["contentEntityIds"] == []

    def annotations(body: dict[str, Any]) -> list[dict[str, Any]]:
        found = [r for r in body["results"] if r["type"] == "annotation"]
        for result in body["results"]:
            found += result.get("annotations", [])
            found += [ref for ref in result.get("references", []) if ref["type"] == "annotation"]
        return found

    assert len(annotations(after)) > 6
    assert all("reference_content_ids" not in note for note in annotations(after))
    results = {result["id"]: result for result in after["results"]}
    assert results["chat-1"]["reference_content_ids"] == ["web-2", "yt-1"]  # not a note
    refs = after["referencesByResultId"]
    assert refs["note-2"]["contentEntityIds"] == ["web-1"]
    assert refs["note-1"]["contentEntityIds"][:2] == ["web-1", "yt-1"]
    assert refs["reply-1"]["contentEntityIds"][0] == {"id": "note-1", "type": "reply"}
    assert saved["entity"]["reference_content_ids"] == ["web-3"]  # save responses keep them


# ---------------------------------------------------------------------------------- note saves


def test_default_note_saves_take_reference_content_ids(emulator_factory: EmulatorFactory) -> None:
    running = emulator_factory()
    with http_client(running) as client:
        saved = _post(
            client,
            "/save-content-entity",
            {"data": {"type": "annotation", "text": "Hi", "reference_content_ids": ["web-3"]}},
        )
        unknown = client.post(
            "/save-content-entity",
            json={"data": {"type": "annotation", "text": "Hi"}, "sourceContentExternalId": "nope"},
        )
    assert saved["entity"]["reference_content_ids"] == ["web-3"]
    assert unknown.status_code == 404


def test_note_links_from_related_ids_as_the_first_party_save(
    emulator_factory: EmulatorFactory,
) -> None:
    running = emulator_factory(note_links_from_related_ids=True)
    note = {"type": "annotation", "text": "On the talk", "reference_content_ids": ["pdf-1"]}
    with http_client(running) as client:
        unlinked = client.post("/save-content-entity", json={"data": note})
        unknown_source = client.post(
            "/save-content-entity", json={"data": note, "sourceContentExternalId": "nope"}
        )
        in_content = client.post(
            "/save-content-entity",
            json={
                "data": {
                    "type": "annotation",
                    "content": {
                        "type": "doc",
                        "content": [
                            {"type": "paragraph", "content": [{"type": "text", "text": "Hi"}]}
                        ],
                    },
                }
            },
        )
        unresolved = client.post(
            "/save-content-entity",
            json={"data": note, "relatedContentIds": ["web-3", "missing-1", "missing-2"]},
        )
        empty = _post(client, "/save-content-entity", {"data": {"type": "annotation"}})
        saved = _post(
            client,
            "/save-content-entity",
            {"data": note, "sourceContentExternalId": "abc123", "relatedContentIds": ["web-3"]},
        )
        by_related = _post(
            client, "/save-content-entity", {"data": note, "relatedContentIds": ["web-2"]}
        )
        _wait_listed(client, saved["entity"]["id"])
        listed = _search(client, limit=100, includeNotes=True)
    message = "Annotation comment selector requires a referenced content external_id"
    for refused in (unlinked, unknown_source, in_content):
        assert refused.status_code == 500
        assert refused.json()["error"] == message
    assert unresolved.status_code == 400
    assert unresolved.json()["error"] == (
        "Failed to resolve reference content IDs: missing-1, missing-2"
    )
    assert empty["entity"]["reference_content_ids"] == []
    assert saved["entity"]["reference_content_ids"] == ["yt-1", "web-3"]  # source first
    assert by_related["entity"]["reference_content_ids"] == ["web-2"]
    results = {result["id"]: result for result in listed["results"]}
    note_id = saved["entity"]["id"]
    assert results[note_id]["reference_content_ids"] == ["yt-1", "web-3"]
    assert listed["referencesByResultId"][note_id]["contentEntityIds"] == ["yt-1", "web-3"]
    assert note_id in [nested["id"] for nested in results["yt-1"]["annotations"]]


def test_notes_without_external_id_dedupe_are_idempotent_by_data_id(
    emulator_factory: EmulatorFactory,
) -> None:
    deduping = emulator_factory()
    not_deduping = emulator_factory(dedupe_notes_by_external_id=False)
    data = {"type": "annotation", "external_id": "desktop-note-1", "text": "A note"}
    body = {"data": data, "relatedContentIds": ["web-3"]}
    with http_client(deduping) as client:
        first = _post(client, "/save-content-entity", body)
        second = _post(client, "/save-content-entity", body)
    assert second["isNew"] is False
    assert second["entity"]["id"] == first["entity"]["id"]
    with http_client(not_deduping) as client:
        first = _post(client, "/save-content-entity", body)
        second = _post(client, "/save-content-entity", body)
        with_id = {**body, "data": {**data, "id": "client-note-1"}}
        created = _post(client, "/save-content-entity", with_id)
        repeated = _post(client, "/save-content-entity", with_id)
        edited = _post(
            client, "/save-content-entity", {**with_id, "data": {**with_id["data"], "text": "B"}}
        )
        url = {"type": "web", "url": "https://example.net/dedupe"}
        page = _post(client, "/save-content-entity", {"data": url})
        page_again = _post(client, "/save-content-entity", {"data": url})
    assert first["isNew"] is second["isNew"] is True
    assert first["entity"]["id"] != second["entity"]["id"]
    assert (created["isNew"], repeated["isNew"], edited["isNew"]) == (True, False, False)
    assert created["entity"]["id"] == repeated["entity"]["id"] == "client-note-1"
    assert edited["entity"]["text"] == "B"
    assert page_again["isNew"] is False  # other types still dedupe by URL
    assert page_again["entity"]["id"] == page["entity"]["id"]


def test_rejected_fields_are_refused_by_name(emulator_factory: EmulatorFactory) -> None:
    accepting = emulator_factory()
    refusing = emulator_factory(
        rejected_fields=frozenset(
            {"relatedContentIds", "data.id", "reference_content_ids", "sortBy"}
        )
    )
    note = {"type": "annotation", "text": "A note"}
    bodies = {
        "relatedContentIds": {"data": note, "relatedContentIds": ["web-3"]},
        "id": {"data": {**note, "id": "client-id"}, "sourceContentId": "web-3"},
        "reference_content_ids": {"data": {**note, "reference_content_ids": ["web-3"]}},
    }
    with http_client(accepting) as client:
        for body in bodies.values():
            assert client.post("/save-content-entity", json=body).status_code == 200
        assert client.post("/search", json={"sortBy": "date-asc"}).status_code == 200
    with http_client(refusing) as client:
        for name, body in bodies.items():
            refused = client.post("/save-content-entity", json=body)
            assert refused.status_code == 400
            assert refused.json()["error"] == f"Unknown field: {name}"
        batch = client.post("/save-content-entity", json={"items": [bodies["relatedContentIds"]]})
        search = client.post("/search", json={"sortBy": "date-asc"})
        top_level_id = client.post("/save-content-entity", json={"data": note, "id": "x"})
        plain = client.post("/save-content-entity", json={"data": note, "sourceContentId": "web-3"})
    assert batch.json()["error"] == "Unknown field: relatedContentIds"
    assert search.status_code == 400
    assert search.json()["error"] == "Unknown field: sortBy"
    assert "Unknown field" not in top_level_id.json()["error"]  # data.id is not a top-level id
    assert plain.status_code == 200


# ---------------------------------------------------------------------------------- collections


@pytest.mark.parametrize("style", ["default", "items", "data", "bare"])
def test_collection_keys(emulator_factory: EmulatorFactory, style: str) -> None:
    running = emulator_factory(collection_keys=style)
    with http_client(running) as client:
        answers = {
            key: client.post(path, json={}).json()
            for key, path in (
                ("views", "/list-views"),
                ("feeds", "/list-feeds"),
                ("tagNames", "/get-available-tag-names"),
            )
        }
    lists: dict[str, Any] = {}
    for key, answer in answers.items():
        if style == "bare":
            lists[key] = answer
        else:
            expected_key = key if style == "default" else style
            assert list(answer) == [expected_key]
            lists[key] = answer[expected_key]
    assert [view["id"] for view in lists["views"]] == ["view-python", "view-videos"]
    assert [feed["id"] for feed in lists["feeds"]] == ["feed-blog", "feed-yt"]
    assert lists["tagNames"] == ["python", "read-later", "research"]


def test_unlisted_types_are_only_nested_and_referenced(emulator_factory: EmulatorFactory) -> None:
    listed = emulator_factory()
    unlisted = emulator_factory(unlisted_types=frozenset({"selector", "annotation"}))
    mention = {
        "id": "note-on-selector",
        "type": "annotation",
        "text": "About that highlight",
        "reference_content_ids": ["web-2", "sel-1"],
        "created_at": BASE_MS - MINUTE_MS,
        "updated_at": BASE_MS - MINUTE_MS,
        "metadata": {"status": "indexing-done"},
    }
    unlisted.state.put_entity(mention)
    with http_client(listed) as client:
        everything = _ids(_search(client, limit=100))
    with http_client(unlisted) as client:
        top = _search(client, limit=100, includeNotes=True)
        asked = _ids(_search(client, limit=100, contentTypes=["selector"]))
        text = _ids(_search(client, query="fragile"))
    assert "sel-1" in everything
    assert {"sel-1", "note-1", "reply-1"} <= set(everything)
    assert not {"sel-1", "note-1", "reply-1"} & set(_ids(top))
    assert unlisted.state.unlisted_ids() >= {"sel-1", "note-1", "note-on-selector"}
    results = {result["id"]: result for result in top["results"]}
    assert {note["id"] for note in results["web-1"]["annotations"]} == {"note-1", "note-2"}
    web_2_note = results["web-2"]["annotations"][0]
    assert web_2_note["id"] == "note-on-selector"
    assert [ref["id"] for ref in web_2_note["references"]] == ["sel-1"]
    assert asked == ["sel-1"]  # asked for by type
    assert "sel-1" in text  # a query with words still finds it


# ---------------------------------------------------------------------------------- moved


def test_moved_to_answers_301_everywhere(emulator_factory: EmulatorFactory) -> None:
    staying = emulator_factory()
    moved = emulator_factory(moved_to="https://memex.garden/api/")
    with http_client(staying) as client:
        assert client.post("/search", json={}).status_code == 200
    with httpx.Client(base_url=moved.base_url, timeout=10.0) as client:
        answers = {
            "/search": client.post("/search?x=1", json={}),
            "/list-views": client.post("/list-views", json={}, headers={"x-api-key": "wrong"}),
            "/.well-known/oauth-authorization-server": client.get(
                "/.well-known/oauth-authorization-server"
            ),
            "/no-such-path": client.get("/no-such-path"),
        }
    for path, answer in answers.items():
        assert answer.status_code == 301, path
        expected = "https://memex.garden/api" + path + ("?x=1" if path == "/search" else "")
        assert answer.headers["location"] == expected
        assert answer.json()["location"] == expected


def test_running_emulator_exposes_profile_helpers(emulator: RunningEmulator) -> None:
    state = emulator.state
    assert state.served_id("web-1") == "web-1"
    assert state.content_id_of("web-1") == "web-1"
    assert state.content_id_of("missing") is None
    assert state.unlisted_ids() == set()
