"""A saved view's results from the server stay with the view while it is on show: each new
search, filter or order narrows them again on a worker and merges them, without asking the
server again; they reach the list even when the search changed while the server answered.
Leaving the view forgets them. A search typed in a view narrows the view's items alone, on a
worker, never the library.

They were merged once: typing again or changing the order dropped the items only the server
had found, until the view was opened again; and dropped when they came after the search had
changed.
"""

from __future__ import annotations

import copy
import threading
import time
from typing import Any

import pytest
from PySide6.QtTest import QTest
from support.emulator import EmulatorFactory
from support.results import listed_ids, message_lines, provenance, wait_settled
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.api.client import MemexClient
from memex_desktop.store import CacheReader
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
LOCAL_FIRST = Scope("view", "view-local-first-reading", "Local-first reading")
VIEW_TAG = "tag-local-first"
# An item of the view the cache does not hold until the server runs the view.
NOT_CACHED = "web-outbox-pattern"
WORD = "outbox"
MERGED = "of this view from the server"
FROM_CACHE = "Showing this view from the cache"
DAY_MS = 24 * 3600 * 1000
# The server takes this long to answer: a slow network, long enough to type meanwhile even
# on a loaded machine (a test asserts the answer came after the search changed).
SERVER_LATENCY_S = 4.0


def _cached_library(library: dict[str, Any]) -> dict[str, Any]:
    """The demo library as a cache last synced it: one item of the view missing, and the view
    asking for its videos only (the server's view has changed since): the view's other items
    come from the server alone."""
    cached = copy.deepcopy(library)
    cached["results"] = [item for item in cached["results"] if item["id"] != NOT_CACHED]
    for view in cached["views"]:
        if view["id"] == LOCAL_FIRST.value:
            view["definition"] = {**view["definition"], "contentTypes": ["youtube"]}
    return cached


def _recent(library: dict[str, Any]) -> dict[str, Any]:
    """The library with its items' dates moved so that the newest was saved yesterday (the
    demo's items, saved over a year and a half, are then on both sides of "Past year")."""
    recent = copy.deepcopy(library)
    newest = max(item["created_at"] for item in recent["results"])
    shift = int(time.time() * 1000) - DAY_MS - newest
    for item in recent["results"]:
        for key in ("created_at", "updated_at"):
            if isinstance(item.get(key), int):
                item[key] += shift
    return recent


def _said(said: Emitted, words: str) -> int:
    """How many messages shown so far hold ``words``."""
    return sum(words in line for line in message_lines(said))


def _merged(said: Emitted) -> str | None:
    """The first message saying the server's results of the view were merged."""
    return next((line for line in message_lines(said) if MERGED in line), None)


def _on_gui_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _calls_counted(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str
) -> list[tuple[Any, bool]]:
    """Record each call of a method, whichever object (the window's reader or a worker's)
    and thread make it: its first argument (a query, a view) and whether the GUI thread
    made it."""
    calls: list[tuple[Any, bool]] = []
    method = getattr(owner, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append((args[1] if len(args) > 1 else None, _on_gui_thread()))
        return method(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return calls


def test_a_views_results_from_the_server_follow_each_search_filter_and_order(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = emulator_factory(library=demo_library)
    context = window_factory(library=_cached_library(demo_library), server=server)
    window = context.window
    reader = context.reader
    asked = _calls_counted(monkeypatch, MemexClient, "execute_view_search")
    narrowings = _calls_counted(monkeypatch, CacheReader, "search_among")
    said = Emitted(window.messages.shown)

    window.sidebar.select_scope(LOCAL_FIRST)
    qtbot.waitUntil(lambda: _said(said, MERGED) == 1, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    in_view = set(reader.ids_with_tag(VIEW_TAG))
    cached_view = set(reader.ids_for_view(LOCAL_FIRST.value or ""))
    assert NOT_CACHED in in_view
    assert NOT_CACHED not in cached_view
    assert set(listed_ids(context)) == in_view
    assert len(asked) == 1

    # A search typed in the view: the server's results narrowed by it.
    bar = window.search_bar
    bar.field.setText(WORD)
    bar.flush()
    qtbot.waitUntil(lambda: window.results_model.query == WORD, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _said(said, MERGED) == 2, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    matching = set(reader.search_ids(WORD, include_deleted=True))
    expected = in_view & matching
    assert NOT_CACHED in expected
    assert expected - cached_view, "the search keeps some of the server's items only"
    assert set(listed_ids(context)) == expected
    assert provenance(context)[NOT_CACHED] == "cloud"

    # Another order: the same items, those from the server in that order too.
    window.sort_control.set_sort("newest")
    qtbot.waitUntil(lambda: _said(said, MERGED) == 3, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    listed = listed_ids(context)
    assert set(listed) == expected
    from_server = [i for i in listed if provenance(context)[i] == "cloud"]
    dates = [(reader.get(i) or pytest.fail(i)).created_at or 0 for i in from_server]
    assert NOT_CACHED in from_server
    assert dates == sorted(dates, reverse=True)

    # A filter: the server's results keep to it as well.
    bar.types.setCurrentIndex(bar.types.findData("web"))
    qtbot.waitUntil(lambda: window.results_model.query == WORD, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _said(said, MERGED) == 4, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    web = {i for i in expected if (reader.get(i) or pytest.fail(i)).type == "web"}
    assert NOT_CACHED in web
    assert set(listed_ids(context)) == web

    # Asked of the server once; narrowed each time on a worker.
    assert len(asked) == 1
    assert narrowings
    assert not any(on_gui for _asked, on_gui in narrowings)

    # Leaving the view forgets them: back on it, with the server out of reach, the list is
    # the cached view's alone.
    bar.types.setCurrentIndex(0)
    bar.field.setText("")
    bar.flush()
    window.sidebar.select_scope(ALL_ITEMS)
    wait_settled(qtbot, context)
    server.faults.next_status(503, count=10, paths=["/execute-view-search"])
    window.sidebar.select_scope(LOCAL_FIRST)
    qtbot.waitUntil(lambda: _said(said, FROM_CACHE) == 1, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    assert set(listed_ids(context)) == cached_view
    assert "cloud" not in provenance(context).values()


def test_a_date_filter_narrows_a_views_results_from_the_server_once(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A date filter's bound moves with the clock: the server's results are narrowed by the
    list's own request, once, not again and again by the search bar's ever newer one."""
    library = _recent(demo_library)
    server = emulator_factory(library=library)
    context = window_factory(library=_cached_library(library), server=server)
    window = context.window
    reader = context.reader
    said = Emitted(window.messages.shown)
    window.sidebar.select_scope(LOCAL_FIRST)
    qtbot.waitUntil(lambda: _said(said, MERGED) == 1, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    narrowings = _calls_counted(monkeypatch, CacheReader, "filtered_ids")

    bar = window.search_bar
    bar.dates.setCurrentIndex(bar.dates.findData(365))
    qtbot.waitUntil(lambda: _said(said, MERGED) == 2, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    since = int(time.time() * 1000) - 365 * DAY_MS
    in_view = set(reader.ids_with_tag(VIEW_TAG))
    expected = {i for i in in_view if ((reader.get(i) or pytest.fail(i)).created_at or 0) > since}
    assert NOT_CACHED in expected
    assert 0 < len(expected) < len(in_view)
    assert set(listed_ids(context)) == expected
    narrowed = len(narrowings)
    QTest.qWait(300)
    assert len(narrowings) == narrowed, "the view's results were narrowed over and over"
    assert not any(on_gui for _asked, on_gui in narrowings)


TALKS = Scope("view", "view-talks-and-papers", "Talks and papers")


def test_a_failed_narrowing_of_a_view_left_keeps_the_next_views_answer(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A narrowing of view A's results fails after the person moved on to view B, whose
    answer waited for it: B's answer is merged, and nothing is said of A's failure."""
    from memex_desktop.store import DatabaseLockedError
    from memex_desktop.ui import search_controller

    server = emulator_factory(library=demo_library)
    context = window_factory(library=_cached_library(demo_library), server=server)
    window = context.window
    said = Emitted(window.messages.shown)
    failing, release = threading.Event(), threading.Event()
    narrow = search_controller.view_results_narrowed

    def narrowed(cache_path: Any, result: Any, *args: Any) -> Any:
        if failing.is_set() and result.view_id == LOCAL_FIRST.value:
            release.wait(WAIT_MS / 1000)
            raise DatabaseLockedError("the cache is locked")
        return narrow(cache_path, result, *args)

    monkeypatch.setattr(search_controller, "view_results_narrowed", narrowed)
    window.sidebar.select_scope(LOCAL_FIRST)
    qtbot.waitUntil(lambda: _said(said, MERGED) == 1, timeout=WAIT_MS)
    wait_settled(qtbot, context)
    failing.set()
    bar = window.search_bar
    bar.field.setText(WORD)  # view A's results are narrowed by it: held, then failing
    bar.flush()
    qtbot.waitUntil(lambda: window.search._view_narrowing is not None, timeout=WAIT_MS)
    window.sidebar.select_scope(TALKS)
    qtbot.waitUntil(lambda: window.search._view_answer is not None, timeout=WAIT_MS)
    qtbot.waitUntil(
        lambda: window.search._view_answer.result.view_id == TALKS.value, timeout=WAIT_MS
    )
    release.set()
    qtbot.waitUntil(lambda: _said(said, MERGED) == 2, timeout=WAIT_MS)
    assert _said(said, "Keeping this view's results") == 0


def test_a_views_results_from_the_server_keep_to_the_search_typed_while_they_came(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = emulator_factory(library=demo_library)
    context = window_factory(library=_cached_library(demo_library), server=server)
    assert context.reader.get(NOT_CACHED) is None
    narrowings = _calls_counted(monkeypatch, CacheReader, "search_among")
    said = Emitted(context.window.messages.shown)
    server.faults.latency(SERVER_LATENCY_S)
    context.window.sidebar.select_scope(LOCAL_FIRST)
    search = context.window.search
    qtbot.waitUntil(lambda: search.shown_any and not search.awaiting_results, timeout=WAIT_MS)
    bar = context.window.search_bar
    bar.field.setText(WORD)
    bar.flush()
    qtbot.waitUntil(lambda: context.window.results_model.query == WORD, timeout=WAIT_MS)
    assert _merged(said) is None, "the server answered before the search changed"
    qtbot.waitUntil(lambda: _merged(said) is not None, timeout=WAIT_MS)
    server.faults.latency(0)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    # The server's items of the view, cached, kept to the search typed while they came.
    assert context.reader.get(NOT_CACHED) is not None
    in_view = set(context.reader.ids_with_tag("tag-local-first"))
    matching = set(context.reader.search_ids(WORD, include_deleted=True))
    expected = in_view & matching
    assert NOT_CACHED in expected
    assert len(expected) < len(in_view)
    assert set(listed_ids(context)) == expected
    model = context.window.results_model
    sources = {model.index(row, 0).data(model.ProvenanceRole) for row in range(model.rowCount())}
    assert sources <= {"cloud", "both"}
    assert f"{len(expected)} within the search" in (_merged(said) or "")
    assert narrowings
    assert not any(on_gui for _query, on_gui in narrowings)


@pytest.mark.parametrize("query", ['"local-first software"', '"offline app" -pattern'])
def test_a_search_in_a_view_narrows_its_items_on_a_worker_without_searching_the_library(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    query: str,
) -> None:
    context = window_factory(library=demo_library, server=emulator_factory(library=demo_library))
    in_view = context.reader.ids_with_tag("tag-local-first")
    matching = set(context.reader.search_ids(query, include_deleted=True))
    expected = {entity_id for entity_id in in_view if entity_id in matching}
    assert 0 < len(expected) < len(in_view)
    searches = _calls_counted(monkeypatch, CacheReader, "search_ids")
    narrowings = _calls_counted(monkeypatch, CacheReader, "search_among")
    said = Emitted(context.window.messages.shown)
    bar = context.window.search_bar
    bar.field.setText(query)
    bar.flush()
    qtbot.waitUntil(lambda: context.window.results_model.query == query, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    library_searches = len(searches)  # of "All items", shown first
    context.window.sidebar.select_scope(LOCAL_FIRST)
    qtbot.waitUntil(lambda: _merged(said) is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    assert set(listed_ids(context)) == expected
    assert library_searches > 0
    assert not [call for call in searches[library_searches:] if call[0] == query]
    # The cached view and the server's results of it, each narrowed among its own items.
    assert len(narrowings) >= 2
    assert not any(on_gui for _query, on_gui in narrowings)


def test_the_servers_results_of_a_search_are_kept_to_its_phrase_on_a_worker(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A phrase and an exclusion are read in the texts of the server's results, which took
    up to 300 ms at 100,000 items: not on the GUI thread."""
    context = window_factory(library=demo_library, server=emulator_factory(library=demo_library))
    kept_to_query = _calls_counted(monkeypatch, CacheReader, "matching_ids")
    said = Emitted(context.window.messages.shown)
    query = '"local-first software" -pattern'
    bar = context.window.search_bar
    bar.field.setText(query)
    bar.flush()
    qtbot.waitUntil(lambda: context.window.results_model.query == query, timeout=WAIT_MS)
    context.window.search.search_remote()

    def answered() -> bool:
        lines = message_lines(said)
        return any("results from the server" in line for line in lines)

    qtbot.waitUntil(answered, timeout=WAIT_MS)
    assert kept_to_query
    assert not any(on_gui for _query, on_gui in kept_to_query)
