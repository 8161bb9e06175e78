"""The emulator loads big libraries quickly and serves a full paged pull fast."""

from __future__ import annotations

import time

import pytest
from support.emulator import http_client, make_config

from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library


def _pull_all(running: RunningEmulator, page_size: int = 100) -> list[str]:
    """Page through the whole library as a full sync does."""
    ids: list[str] = []
    with http_client(running, timeout=60.0) as client:
        offset = 0
        while True:
            body = client.post(
                "/search",
                json={
                    "query": "",
                    "raw": True,
                    "includeNotes": True,
                    "sortBy": "date-desc",
                    "limit": page_size,
                    "offset": offset,
                },
            ).json()
            ids += [result["id"] for result in body["results"]]
            if body["meta"]["returnedCount"] < page_size:
                return ids
            offset += page_size


def _load_and_pull(entities: int, words: int) -> tuple[float, float, int, int]:
    library = generate_library(entities, seed=3, words_per_entity=words)
    started = time.monotonic()
    with RunningEmulator(make_config(library)) as running:
        loaded = time.monotonic() - started
        started = time.monotonic()
        ids = _pull_all(running)
        pulled = time.monotonic() - started
    return loaded, pulled, len(ids), len(set(ids))


def test_five_thousand_entities_load_and_pull_fast() -> None:
    loaded, pulled, count, unique = _load_and_pull(5_000, 60)
    assert count == unique == 5_000
    assert loaded < 5.0
    assert pulled < 10.0  # 50 pages with notes nested; typically about 1 s


def test_text_search_on_a_bigger_library() -> None:
    library = generate_library(2_000, seed=4, words_per_entity=40)
    title = next(e["title"] for e in library["results"] if e["type"] == "web")
    with RunningEmulator(make_config(library)) as running, http_client(running) as client:
        body = client.post("/search", json={"query": title, "raw": True, "limit": 5}).json()
    assert title in [result.get("title") for result in body["results"]]


@pytest.mark.slow
def test_hundred_thousand_entities_load_and_pull() -> None:
    loaded, pulled, count, unique = _load_and_pull(100_000, 100)
    assert count == unique == 100_000
    assert loaded < 45.0
    assert count / pulled > 2_000, f"{count / pulled:.0f} entities/s"
