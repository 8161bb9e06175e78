"""Auth, saves, metering and the smaller endpoints of the emulator."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from support.emulator import (
    EmulatorFactory,
    api_key_headers,
    bearer_headers,
    http_client,
    wait_until,
)
from support.secrets import TEST_API_KEY

from memex_desktop.api.models import (
    AvailablePlansOutput,
    CreateViewResponse,
    EnsureSharedLinkResponse,
    ListFeedsResponse,
    ListSharedLinksResponse,
    ListViewsResponse,
    TagNamesResponse,
)
from memex_desktop.emulator import RunningEmulator


def _ids(client: httpx.Client, **body: Any) -> list[str]:
    response = client.post("/search", json={"raw": True, "limit": 100, **body})
    assert response.status_code == 200, response.text
    return [result["id"] for result in response.json()["results"]]


# ---------------------------------------------------------------------------------- auth


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"x-api-key": "wrong-key"},
        {"x-api-key": TEST_API_KEY, "x-user-id": "someone-else"},
        {"authorization": "Bearer not-a-valid-token"},
        {"authorization": "Basic abc"},
        {"authorization": "Bearer"},
    ],
)
def test_bad_credentials_are_401_json(emulator: RunningEmulator, headers: dict[str, str]) -> None:
    with httpx.Client(base_url=emulator.base_url, headers=headers) as client:
        response = client.post("/search", json={"query": ""})
    assert response.status_code == 401
    assert isinstance(response.json()["error"], str)
    assert TEST_API_KEY not in response.text


@pytest.mark.parametrize(
    "headers", [api_key_headers(), api_key_headers(user_id=True), bearer_headers()]
)
def test_both_auth_modes_work(emulator: RunningEmulator, headers: dict[str, str]) -> None:
    with http_client(emulator, headers=headers) as client:
        assert client.post("/list-views", json={}).status_code == 200


def test_bearer_tokens_can_be_issued_and_revoked_while_running(emulator: RunningEmulator) -> None:
    headers = {"authorization": "Bearer freshly-issued"}
    with http_client(emulator, headers=headers) as client:
        assert client.post("/list-feeds", json={}).status_code == 401
        emulator.state.add_bearer_token("freshly-issued")
        assert client.post("/list-feeds", json={}).status_code == 200
        emulator.state.revoke_bearer_token("freshly-issued")
        assert client.post("/list-feeds", json={}).status_code == 401


def test_unknown_paths_methods_and_bodies(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        missing = client.post("/no-such-endpoint", json={})
        wrong_method = client.get("/search")
        not_json = client.post("/search", content=b"{nope", headers={"content-type": "text/plain"})
        not_object = client.post("/search", json=[1, 2])
        empty = client.post("/list-views")
        extra = client.post("/list-views", json={"page": 2})
    assert missing.status_code == 404
    assert "error" in missing.json()
    assert wrong_method.status_code == 405
    assert not_json.status_code == 400
    assert not_object.status_code == 400
    assert empty.status_code == 200
    assert extra.status_code == 400
    assert "page" in extra.json()["error"]


# ---------------------------------------------------------------------------------- saves


def test_save_by_url_is_pending_then_indexed(emulator: RunningEmulator) -> None:
    emulator.state.set_processing_delay(0.3)
    with http_client(emulator) as client:
        saved = client.post("/save-content-by-url", json={"url": "https://example.net/post"})
        assert saved.status_code == 200
        entity = saved.json()["entity"]
        assert saved.json()["isNew"] is True
        assert entity["metadata"]["status"] == "pending"
        assert entity["type"] == "web"
        assert entity["id"] not in _ids(client)  # not searchable while processing
        wait_until(lambda: entity["id"] in _ids(client), what="the save to be indexed")
        indexed = emulator.state.entity(entity["id"])
    assert indexed is not None
    assert indexed["metadata"]["status"] == "indexing-done"
    assert indexed["updated_at"] >= entity["updated_at"]


def test_same_normalized_url_is_not_new(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        first = client.post(
            "/save-content-by-url", json={"url": "https://www.example.net/a/?utm_source=x&b=2"}
        ).json()
        again = client.post("/save-content-by-url", json={"url": "http://example.net/a?b=2"})
        library = client.post(
            "/save-content-by-url", json={"url": "https://inkandswitch.com/local-first"}
        ).json()
    assert again.json()["isNew"] is False
    assert again.json()["entity"]["id"] == first["entity"]["id"]
    assert library["isNew"] is False
    assert library["entity"]["id"] == "web-1"


def test_save_by_url_detects_types_and_validates(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        video = client.post(
            "/save-content-by-url", json={"url": "https://youtu.be/zzz999", "tags": ["talks"]}
        ).json()
        bad = client.post("/save-content-by-url", json={"url": "ftp://example.net/file"})
        unknown_tag = client.post(
            "/save-content-by-url", json={"url": "https://example.net/t", "tag_ids": ["nope"]}
        )
        names = client.post("/get-available-tag-names", json={}).json()["tagNames"]
    assert video["entity"]["type"] == "youtube"
    assert video["entity"]["external_id"] == "zzz999"
    assert [tag["name"] for tag in video["tags"]] == ["talks"]
    assert "talks" in names
    assert bad.status_code == 400
    assert unknown_tag.status_code == 400


def test_save_entity_by_external_id_is_idempotent(emulator: RunningEmulator) -> None:
    data = {
        "type": "annotation",
        "external_id": "desktop-note-1",
        "text": "A note from the desktop",
        "reference_content_ids": ["web-3"],
    }
    # Processing ending between the saves would change the entity (status, updated_at).
    emulator.state.set_processing_delay(60.0)
    with http_client(emulator) as client:
        first = client.post("/save-content-entity", json={"data": data}).json()
        again = client.post("/save-content-entity", json={"data": data}).json()
        edited = client.post(
            "/save-content-entity", json={"data": {**data, "text": "Edited"}}
        ).json()
    assert first["isNew"] is True
    assert again["isNew"] is False
    assert again["entity"] == first["entity"]  # nothing changed, not even updated_at
    assert edited["isNew"] is False
    assert edited["entity"]["id"] == first["entity"]["id"]
    assert edited["entity"]["text"] == "Edited"
    assert len([i for i in emulator.state.entity_ids() if i == first["entity"]["id"]]) == 1


def test_saved_note_becomes_a_nested_annotation(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        saved = client.post(
            "/save-content-entity",
            json={
                "data": {"type": "annotation", "text": "On the PDF"},
                "sourceContentId": "pdf-1",
                "relatedContentIds": ["yt-2"],
            },
        ).json()["entity"]
        assert saved["reference_content_ids"] == ["pdf-1", "yt-2"]

        def nested() -> list[str]:
            body = client.post(
                "/search", json={"raw": True, "contentTypes": ["pdf"], "includeNotes": True}
            ).json()
            return [note["id"] for note in body["results"][0]["annotations"]]

        wait_until(lambda: nested() == [saved["id"]], what="the note to be indexed")


def test_receipt_mode_and_batches(emulator: RunningEmulator) -> None:
    items = [
        {"data": {"type": "web", "url": "https://example.net/one", "title": "One"}},
        {"data": {"type": "web", "url": "https://example.net/two", "title": "Two"}},
    ]
    with http_client(emulator) as client:
        batch = client.post("/save-content-entity", json={"items": items}).json()
        receipt = client.post(
            "/save-content-entity",
            json={"items": items, "responseMode": "receipt"},
        ).json()
        bad_mode = client.post(
            "/save-content-entity", json={"data": {"url": "https://x.org"}, "responseMode": "x"}
        )
        no_data = client.post("/save-content-entity", json={"sourceContentId": "web-1"})
        unknown = client.post("/save-content-entity", json={"data": {}, "wat": True})
    assert [result["isNew"] for result in batch["results"]] == [True, True]
    assert set(receipt) == {"ok", "processingRequestId"}
    assert receipt["ok"] is True
    assert bad_mode.status_code == 400
    assert no_data.status_code == 400
    assert unknown.status_code == 400
    assert "wat" in unknown.json()["error"]


# ---------------------------------------------------------------------------------- metering


def test_plain_search_is_free_and_rerank_is_charged(emulator_factory: EmulatorFactory) -> None:
    running = emulator_factory(balance_micros=5_000, rerank_cost_micros=2_000)
    with http_client(running) as client:
        plain = client.post("/search", json={"query": "sync", "raw": True}).json()["meta"]
        reranked = client.post(
            "/search", json={"query": "sync", "raw": True, "enableRerank": True}
        ).json()["meta"]
    assert plain["usageMicrosCharged"] == 0
    assert plain["rerankApplied"] is False
    assert plain["remainingUsageBalance"]["total"] == 5_000
    assert reranked["usageMicrosCharged"] == 2_000
    assert reranked["rerankApplied"] is True
    assert reranked["remainingUsageBalance"] == {
        "usageBalancePaygMicros": 3_000,
        "usageBalanceSubscriptionMicros": 0,
        "total": 3_000,
    }


def test_uncovered_calls_are_402_with_upgrade_options(emulator_factory: EmulatorFactory) -> None:
    running = emulator_factory(
        balance_micros=1_000, rerank_cost_micros=2_000, save_cost_micros=1_500
    )
    with http_client(running) as client:
        search = client.post("/search", json={"query": "sync", "enableRerank": True})
        save = client.post("/save-content-by-url", json={"url": "https://example.net/paid"})
        entity = client.post("/save-content-entity", json={"data": {"url": "https://e.net/x"}})
        still_free = client.post("/search", json={"query": "sync"})
    assert search.status_code == 402
    assert search.json()["errorCode"] == "INSUFFICIENT_CREDITS"
    assert search.json()["error"]
    plans = AvailablePlansOutput.model_validate(search.json()["upgradeOptions"])
    assert plans.plans
    assert save.status_code == 402
    assert save.json()["errorCode"] == "SAVE_CONTENT_INSUFFICIENT_CREDITS"
    assert AvailablePlansOutput.model_validate(save.json()["upgradeOptions"]).plans
    assert entity.status_code == 402
    assert entity.json()["upgradeOptions"] == save.json()["upgradeOptions"]
    assert still_free.status_code == 200
    assert running.state.balance_micros == 1_000  # nothing was charged
    assert len(running.state.entity_ids()) == 18  # nothing was saved


def test_saves_are_charged(emulator_factory: EmulatorFactory) -> None:
    running = emulator_factory(balance_micros=10_000, save_cost_micros=1_500)
    with http_client(running) as client:
        client.post("/save-content-by-url", json={"url": "https://example.net/a"})
        client.post("/save-content-by-url", json={"url": "https://example.net/a"})  # not new
    assert running.state.balance_micros == 8_500


# ---------------------------------------------------------------------------------- others


def test_views(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        created = client.post(
            "/create-view",
            json={
                "name": "Tweets",
                "definition": {"contentTypes": ["twitter"], "sortBy": "date-asc"},
            },
        )
        view = CreateViewResponse.model_validate(created.json()).view
        listed = ListViewsResponse.model_validate(client.post("/list-views", json={}).json())
        results = client.post("/execute-view-search", json={"viewId": view.id, "limit": 1}).json()
        bad = client.post("/create-view", json={"name": "x", "definition": {"colour": "red"}})
        missing = client.post("/execute-view-search", json={"viewId": "view-missing"})
    assert [v.id for v in listed.views][-1] == view.id
    assert [r["id"] for r in results["results"]] == ["tweet-1"]
    assert results["meta"]["limit"] == 1
    assert bad.status_code == 400
    assert missing.status_code == 404


def test_tags_feeds_plans(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        tags = TagNamesResponse.model_validate(client.post("/get-available-tag-names").json())
        feeds = ListFeedsResponse.model_validate(client.post("/list-feeds", json={}).json())
        plans = AvailablePlansOutput.model_validate(
            client.post("/get-available-plans", json={}).json()
        )
    assert tags.tag_names == ["python", "read-later", "research"]
    assert [feed.id for feed in feeds.feeds] == ["feed-blog", "feed-yt"]
    assert plans.recovery_hint
    assert {plan.tier_id for plan in plans.plans} >= {"starter"}


def test_share_links_are_ensured_once(emulator: RunningEmulator) -> None:
    with http_client(emulator) as client:
        first = client.post(
            "/ensure-shared-library-entry-link", json={"contentId": "web-1", "access": "view"}
        ).json()
        second = client.post(
            "/ensure-shared-library-entry-link",
            json={"contentId": "web-1", "access": "collaborate"},
        ).json()
        listed = client.post("/list-shared-library-entry-links", json={"contentType": "web"})
        other_type = client.post("/list-shared-library-entry-links", json={"contentType": "pdf"})
        missing = client.post("/ensure-shared-library-entry-link", json={"contentId": "nope"})
    link = EnsureSharedLinkResponse.model_validate(first).link
    again = EnsureSharedLinkResponse.model_validate(second).link
    assert again.public_token == link.public_token
    assert (link.access, again.access) == ("view", "collaborate")
    assert again.access_mode == "public_link_contribute"
    links = ListSharedLinksResponse.model_validate(listed.json()).links
    assert [item.content_id for item in links] == ["web-1"]
    assert other_type.json()["links"] == []
    assert missing.status_code == 404
