"""A saved view's results from the server reach the list even when the search changed while
the server answered (a slow network): they keep to the search on show when they arrive. A
search typed in a view narrows the view's items alone, on a worker, never the library."""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest
from support.emulator import EmulatorFactory
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.errors import UserMessage
from memex_desktop.store import CacheReader
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.sidebar import Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
LOCAL_FIRST = Scope("view", "view-local-first-reading", "Local-first reading")
# The server takes this long to answer: a slow network, long enough to type meanwhile even
# on a loaded machine (the test asserts the answer came after the search changed).
SERVER_LATENCY_S = 4.0
# An item of the view the cache does not hold until the server runs the view.
NOT_CACHED = "web-outbox-pattern"
WORD = "outbox"
MERGED = "of this view from the server"


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


def _merged(said: Emitted) -> str | None:
    lines = [message_line(call[0]) for call in said.calls if isinstance(call[0], UserMessage)]
    return next((line for line in lines if MERGED in line), None)


def _listed(context: AppContext) -> list[str]:
    model = context.window.results_model
    return [model.id_at(row) or "" for row in range(model.rowCount())]


def _searched_by(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[str, bool]]:
    """Record each call of a CacheReader search method, whichever reader (the window's or a
    worker's): its query and whether the GUI thread made it."""
    calls: list[tuple[str, bool]] = []
    method = getattr(CacheReader, name)

    def recorded(self: CacheReader, query: str, *args: Any, **kwargs: Any) -> Any:
        calls.append((query, threading.current_thread() is threading.main_thread()))
        return method(self, query, *args, **kwargs)

    monkeypatch.setattr(CacheReader, name, recorded)
    return calls


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
    narrowings = _searched_by(monkeypatch, "search_among")
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
    assert set(_listed(context)) == expected
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
    searches = _searched_by(monkeypatch, "search_ids")
    narrowings = _searched_by(monkeypatch, "search_among")
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
    assert set(_listed(context)) == expected
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
    kept_to_query = _searched_by(monkeypatch, "matching_ids")
    said = Emitted(context.window.messages.shown)
    query = '"local-first software" -pattern'
    bar = context.window.search_bar
    bar.field.setText(query)
    bar.flush()
    qtbot.waitUntil(lambda: context.window.results_model.query == query, timeout=WAIT_MS)
    context.window.search.search_remote()

    def answered() -> bool:
        lines = [message_line(call[0]) for call in said.calls if isinstance(call[0], UserMessage)]
        return any("results from the server" in line for line in lines)

    qtbot.waitUntil(answered, timeout=WAIT_MS)
    assert kept_to_query
    assert not any(on_gui for _query, on_gui in kept_to_query)
