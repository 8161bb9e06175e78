"""The filter menus narrow every sidebar entry's list: a sidebar type and the type menu
together (an item of both, so none when they differ), and the lists of their own (a saved
view, a feed, the items deleted upstream) as they narrow a search."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.caches import indexed_reader, web_item

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.ui.results_model import SearchFilters
from memex_desktop.ui.search_bar import SearchRequest
from memex_desktop.ui.search_controller import local_search
from memex_desktop.ui.sidebar import Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

PAGES = [web_item(n, f"Page {n}", "garden words") for n in range(4)]
TWEETS = [
    {**web_item(n, f"Tweet {n}", "garden words"), "type": "tweet", "url": f"https://x.com/{n}"}
    for n in range(4, 8)
]


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[tuple[Path, CacheReader]]:
    path = tmp_path / "cache.db"

    def fill(writer: StoreWriter) -> None:
        writer.ingest_entities([*PAGES, *TWEETS]).result()
        gone = [str(PAGES[0]["id"]), str(PAGES[1]["id"]), str(TWEETS[0]["id"])]
        writer.mark_deleted_upstream(gone).result()

    for reader in indexed_reader(path, fill):
        yield path, reader


def _ids(path: Path, scope: Scope, query: str = "", types: tuple[str, ...] = ()) -> set[str]:
    request = SearchRequest(query, SearchFilters(types=types))
    return set(local_search(path, 1, request, scope).ids)


def _of(items: list[dict[str, object]]) -> set[str]:
    return {str(item["id"]) for item in items}


def test_a_sidebar_type_and_the_type_menu_narrow_together(
    cache: tuple[Path, CacheReader],
) -> None:
    path, _reader = cache
    tweets = Scope("type", "tweet", "Tweet")
    live_tweets = _of(TWEETS[1:])
    assert _ids(path, tweets) == live_tweets
    assert _ids(path, tweets, types=("tweet", "web")) == live_tweets
    assert _ids(path, tweets, types=("web",)) == set()  # no item is of both types
    assert _ids(path, tweets, "garden", types=("web",)) == set()


def test_the_type_menu_narrows_the_items_deleted_upstream(
    cache: tuple[Path, CacheReader],
) -> None:
    path, _reader = cache
    deleted = Scope("deleted", None, "Deleted upstream")
    assert _ids(path, deleted) == _of([PAGES[0], PAGES[1], TWEETS[0]])
    assert _ids(path, deleted, types=("tweet",)) == _of([TWEETS[0]])
    assert _ids(path, deleted, "garden", types=("web",)) == _of(PAGES[:2])
