"""Views, feeds and tag names are read leniently, and an unreadable listing is an error, not []."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from support.api_client import Recorder, json_response, make_client
from support.emulator import EmulatorFactory
from support.secrets import TEST_API_KEY

from memex_desktop.api.client import MemexClient
from memex_desktop.api.errors import ContractError, ValidationError

VIEW = {"id": "v1", "name": "Reading", "definition": {"query": "ai"}}
FEED = {"id": "f1", "title": "Blog", "feed_url": "https://b.example/rss"}

# (documented key, what the error says, call, a valid item, what it reads as)
LISTINGS: dict[str, tuple[str, str, Callable[[MemexClient], list[Any]], Any, Any]] = {
    "views": ("views", "the saved views", MemexClient.list_views, VIEW, "v1"),
    "feeds": ("feeds", "the feeds", MemexClient.list_feeds, FEED, "f1"),
    "tags": ("tagNames", "the tag names", MemexClient.get_available_tag_names, "ai", "ai"),
}


def _ids(items: list[Any]) -> list[Any]:
    return [item if isinstance(item, str) else item.id for item in items]


def _drift(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "contract drift" in r.getMessage()]


@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_documented_key_reads_without_a_warning(
    listing: str, caplog: pytest.LogCaptureFixture
) -> None:
    key, _what, call, item, expected = LISTINGS[listing]
    client, _ = make_client(Recorder([json_response(200, {key: [item]})]))
    assert _ids(call(client)) == [expected]
    assert _drift(caplog) == []


@pytest.mark.parametrize("shape", ["items", "results", "data", "bare"])
@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_fallback_shapes_read_with_one_drift_warning(
    listing: str, shape: str, caplog: pytest.LogCaptureFixture
) -> None:
    key, _what, call, item, expected = LISTINGS[listing]
    body: Any = [item] if shape == "bare" else {shape: [item]}
    client, _ = make_client(Recorder([json_response(200, body)]))
    assert _ids(call(client)) == [expected]
    drift = _drift(caplog)
    assert len(drift) == 1
    assert repr(key) in drift[0]
    assert ("bare JSON array" if shape == "bare" else repr(shape)) in drift[0]


@pytest.mark.parametrize(
    "body",
    [
        {"foo": 1},
        {"views": 5, "feeds": 5, "tagNames": 5},
        {"views": {"id": "v1"}, "feeds": {"id": "f1"}, "tagNames": "ai"},
        {},
        {"items": "not a list"},
        5,
        "views",
        None,
    ],
)
@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_no_shape_fits_is_a_contract_error(listing: str, body: Any) -> None:
    _key, what, call, _item, _expected = LISTINGS[listing]
    client, _ = make_client(Recorder([json_response(200, body)]))
    with pytest.raises(ContractError, match=f"could not read {what} from the server"):
        call(client)


@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_a_body_that_is_not_json_is_a_contract_error(listing: str) -> None:
    _key, what, call, _item, _expected = LISTINGS[listing]
    client, _ = make_client(Recorder([httpx.Response(200, content=b"<html>hi</html>")]))
    with pytest.raises(ContractError, match=f"could not read {what}.*not JSON") as caught:
        call(client)
    assert caught.value.raw_body == b"<html>hi</html>"


@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_documented_key_set_to_null_is_empty(listing: str) -> None:
    key, _what, call, _item, _expected = LISTINGS[listing]
    client, _ = make_client(Recorder([json_response(200, {key: None})]))
    assert call(client) == []


@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_an_empty_list_is_empty(listing: str) -> None:
    key, _what, call, _item, _expected = LISTINGS[listing]
    client, _ = make_client(Recorder([json_response(200, {key: []})]))
    assert call(client) == []


def test_unreadable_items_are_skipped_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    views = [VIEW, {"name": "no id"}, 7, {"id": ["a", "list"]}, {"id": "v2", "title": "Later"}]
    client, _ = make_client(Recorder([json_response(200, {"views": views})]))
    assert [view.display_name for view in client.list_views()] == ["Reading", "Later"]
    skipped = [r.getMessage() for r in caplog.records if "skipped item" in r.getMessage()]
    assert len(skipped) == 3
    assert "skipped item 1 of the saved views" in skipped[0]
    assert "id: Field required" in skipped[0]


def test_tag_name_items_may_be_objects_naming_the_tag() -> None:
    names = ["ai", {"name": "reading"}, {"tagName": "later"}, {"id": "t9"}, "", 3]
    client, _ = make_client(Recorder([json_response(200, {"tagNames": names})]))
    assert client.get_available_tag_names() == ["ai", "reading", "later"]


@pytest.mark.parametrize("listing", sorted(LISTINGS))
def test_a_listing_whose_items_all_fail_is_a_contract_error(listing: str) -> None:
    key, what, call, _item, _expected = LISTINGS[listing]
    client, _ = make_client(Recorder([json_response(200, {key: [7, [1], None]})]))
    with pytest.raises(ContractError, match=f"could not read {what}.*none of the 3 items"):
        call(client)


def test_logged_samples_are_scrubbed_and_truncated(caplog: pytest.LogCaptureFixture) -> None:
    bad = {"name": f"leaks {TEST_API_KEY}", "definition": {"note": "x" * 5000}}
    client, _ = make_client(Recorder([json_response(200, {"items": [VIEW, bad]})]))
    assert _ids(client.list_views()) == ["v1"]
    messages = [r.getMessage() for r in caplog.records if r.name == "memex_desktop.api.client"]
    logged = [m for m in messages if "drift" in m or "skipped" in m]
    assert len(logged) == 2
    for message in logged:
        assert TEST_API_KEY not in message
        assert len(message) < 600
    assert "***" in logged[1]
    assert logged[1].endswith("…")


def test_an_error_body_is_still_the_servers_error() -> None:
    client, _ = make_client(Recorder([json_response(200, {"error": "views are disabled"})]))
    with pytest.raises(ValidationError, match="views are disabled"):
        client.list_views()


@pytest.mark.parametrize("style", ["default", "items", "data", "bare"])
def test_emulator_collection_styles_read_alike(
    style: str,
    emulator_factory: EmulatorFactory,
    caplog: pytest.LogCaptureFixture,
) -> None:
    running = emulator_factory(collection_keys=style)
    caplog.set_level(logging.WARNING)
    with MemexClient(running.base_url, api_key=TEST_API_KEY) as client:
        assert _ids(client.list_views()) == ["view-python", "view-videos"]
        assert _ids(client.list_feeds()) == ["feed-blog", "feed-yt"]
        assert {"python", "research", "read-later"} <= set(client.get_available_tag_names())
    assert len(_drift(caplog)) == (0 if style == "default" else 3)
