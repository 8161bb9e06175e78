"""The emulator's ``ignore_view_ids`` switch: ``/search`` within a saved view answers from the
whole library, as a server may that does not apply ``viewIds``; by default it keeps to the view.
``/execute-view-search`` runs its view either way."""

from __future__ import annotations

from typing import Any

import httpx
from support.emulator import EmulatorFactory, http_client, small_library_ids


def _ids(client: httpx.Client, path: str, body: dict[str, Any]) -> list[str]:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    return [result["id"] for result in response.json()["results"]]


def test_search_within_a_view_keeps_to_it_unless_the_switch_ignores_it(
    emulator_factory: EmulatorFactory,
) -> None:
    body = {"raw": True, "limit": 100, "viewIds": ["view-videos"]}
    view_run = {"viewId": "view-videos", "limit": 100}
    with http_client(emulator_factory()) as client:
        kept = _ids(client, "/search", body)
        run = _ids(client, "/execute-view-search", view_run)
    with http_client(emulator_factory(ignore_view_ids=True)) as client:
        ignored = _ids(client, "/search", body)
        ignored_run = _ids(client, "/execute-view-search", view_run)
    assert sorted(kept) == ["yt-1", "yt-2"]
    assert sorted(ignored) == sorted(small_library_ids())
    assert sorted(run) == sorted(ignored_run) == ["yt-1", "yt-2"]
