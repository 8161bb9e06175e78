"""A search asked of the server (Enter) inside a saved view, a feed or the filters keeps to
them, its words count what it added truly, and a hit the cache held already is not called
one only the server has. A query problem is said once, in the empty list, naming every
problem of the query, and goes once the query is fixed.

Inside the saved view "Local-first reading", `compost OR mulch -worm` with Enter listed three
gardening items of the library that are not in the view, said "3 results from the server (3
not in the local results)" and badged them "cloud" though the cache held all three; the
notice about `type:gizmo` stayed up over the fixed query's results, and never named
`after:2024-13`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.emulator import EmulatorFactory
from support.results import listed_ids, message_lines, provenance, wait_settled
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.api.client import MemexClient
from memex_desktop.app import AppContext
from memex_desktop.ui.search_controller import NOTHING_TO_ASK
from memex_desktop.ui.sidebar import Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
LOCAL_FIRST = Scope("view", "view-local-first-reading", "Local-first reading")
VIEW_TAG = "tag-local-first"
# The gardening items the tester saw listed in the view.
GARDEN = {"web-balcony-tomatoes", "reddit-balcony-blight", "pdf-urban-soil"}
# The words about a search's answer (not those about the view's own answer).
ANSWER = re.compile(r"^\d+ results? from the server")


def _answer(qtbot: Any, said: Emitted) -> str:
    """The words saying what the server's answer added (waited for)."""
    qtbot.waitUntil(
        lambda: any(ANSWER.match(line) for line in message_lines(said)), timeout=WAIT_MS
    )
    return next(line for line in message_lines(said) if ANSWER.match(line))


def _type(qtbot: Any, context: AppContext, query: str) -> None:
    """Type ``query`` into the search field and let its local search show."""
    bar = context.window.search_bar
    bar.field.setText(query)
    bar.flush()
    qtbot.waitUntil(lambda: context.window.results_model.query == query, timeout=WAIT_MS)
    wait_settled(qtbot, context)


def _searches_sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Record the query and options of each ``/search`` the app sends."""
    sent: list[tuple[str, dict[str, Any]]] = []
    search = MemexClient.search_raw_page

    def recorded(client: MemexClient, query: str = "", **options: Any) -> Any:
        sent.append((query, options))
        return search(client, query, **options)

    monkeypatch.setattr(MemexClient, "search_raw_page", recorded)
    return sent


def _in_view(qtbot: Any, context: AppContext) -> set[str]:
    """Show the saved view (its server answer merged) and return its items."""
    context.window.sidebar.select_scope(LOCAL_FIRST)
    wait_settled(qtbot, context)
    return set(context.reader.ids_with_tag(VIEW_TAG))


@pytest.mark.parametrize("ignores_view", [False, True], ids=["server-keeps-view", "server-ignores"])
def test_enter_inside_a_saved_view_lists_only_the_views_items(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    ignores_view: bool,
) -> None:
    server = emulator_factory(library=demo_library, ignore_view_ids=ignores_view)
    context = window_factory(library=demo_library, server=server)
    in_view = _in_view(qtbot, context)
    assert not GARDEN & in_view
    sent = _searches_sent(monkeypatch)
    said = Emitted(context.window.messages.shown)
    _type(qtbot, context, "compost OR mulch -worm")
    assert listed_ids(context) == []

    QTest.keyClick(context.window.search_bar.field, Qt.Key.Key_Return)
    words = _answer(qtbot, said)
    wait_settled(qtbot, context)

    assert [options.get("view_ids") for _query, options in sent] == [[LOCAL_FIRST.value]]
    assert listed_ids(context) == []
    if ignores_view:  # the server answered from the whole library: none of it is the view's
        assert re.fullmatch(r"\d+ results from the server, none within this view", words), words
        assert int(words.split()[0]) >= len(GARDEN)
    else:
        assert words == "0 results from the server", words


def test_enter_inside_a_saved_view_keeps_the_views_hits_and_counts_them_truly(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
) -> None:
    """The server searched the whole library: its hits of the view stay, badged as found
    by both, and the words count the others out."""
    server = emulator_factory(library=demo_library, ignore_view_ids=True)
    context = window_factory(library=demo_library, server=server)
    in_view = _in_view(qtbot, context)
    said = Emitted(context.window.messages.shown)
    _type(qtbot, context, "local")
    local = listed_ids(context)
    assert local
    assert set(local) <= in_view

    QTest.keyClick(context.window.search_bar.field, Qt.Key.Key_Return)
    words = _answer(qtbot, said)
    wait_settled(qtbot, context)

    hits = context.reader.search_ids("local", limit=1000)
    outside = [entity_id for entity_id in hits if entity_id not in in_view]
    assert outside, "the library holds items outside the view that the server finds"
    assert set(listed_ids(context)) <= in_view
    kept = len(listed_ids(context))
    total = int(words.split()[0])
    assert total > kept
    assert words == (
        f"{total} results from the server, {kept} within this view"
        f" ({kept} already in the local results)"
    ), words
    assert set(provenance(context).values()) == {"both"}


def test_a_hit_the_cache_held_is_not_called_one_only_the_server_has(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
) -> None:
    """The server matches either word where the local search needs both: its hits the cache
    held are added badged "cached · cloud", the one it brought "cloud", and the words say
    which is which."""
    server = emulator_factory(library=demo_library)
    cached = copy.deepcopy(demo_library)
    fresh = "image-worm-harvest"
    cached["results"] = [item for item in cached["results"] if item["id"] != fresh]
    context = window_factory(library=cached, server=server)
    wait_settled(qtbot, context)
    said = Emitted(context.window.messages.shown)
    _type(qtbot, context, "compost zzyzx")
    assert listed_ids(context) == []

    QTest.keyClick(context.window.search_bar.field, Qt.Key.Key_Return)
    words = _answer(qtbot, said)
    wait_settled(qtbot, context)

    badges = provenance(context)
    assert badges[fresh] == "cloud"
    held = {entity_id for entity_id in badges if entity_id != fresh}
    assert held, "the server found items the cache held"
    assert {badges[entity_id] for entity_id in held} == {"both"}
    total = len(badges)
    assert words == (
        f"{total} results from the server ({total} added to the list, 1 of them new to the cache)"
    ), words


def test_enter_in_a_sidebar_tag_keeps_the_servers_answer_to_the_tag(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sidebar tag is sent to the server and applied to its answer here too."""
    server = emulator_factory(library=demo_library)
    context = window_factory(library=demo_library, server=server)
    context.window.sidebar.select_scope(Scope("tag", "tag-water", "water"))
    wait_settled(qtbot, context)
    sent = _searches_sent(monkeypatch)
    said = Emitted(context.window.messages.shown)
    _type(qtbot, context, "compost OR mulch -worm")
    water = set(context.reader.ids_with_tag("tag-water"))
    assert GARDEN - water, "some of the library's hits are not tagged water"

    QTest.keyClick(context.window.search_bar.field, Qt.Key.Key_Return)
    words = _answer(qtbot, said)
    wait_settled(qtbot, context)

    assert [options.get("tag_ids") for _query, options in sent] == [["tag-water"]]
    assert listed_ids(context)
    assert set(listed_ids(context)) <= water
    assert "not in the local results" not in words


def test_a_query_problem_is_said_in_the_list_alone_naming_each_problem_until_fixed(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
) -> None:
    """The empty list says what the query means nothing by; Enter (the server asked too)
    adds no notice of it: it was said three times, in the list, a toast and the status bar."""
    context = window_factory(library=demo_library, server=emulator_factory(library=demo_library))
    window = context.window
    wait_settled(qtbot, context)
    said = Emitted(window.messages.shown)
    _type(qtbot, context, "type:gizmo after:2024-13 compost")
    QTest.keyClick(window.search_bar.field, Qt.Key.Key_Return)
    wait_settled(qtbot, context)

    state = window.results_view.empty_state
    assert state is not None
    assert '"gizmo"' in state.explanation
    assert "after:2024-13" in state.explanation
    assert not window.toast.isVisible()
    assert "gizmo" not in window.status.currentMessage()
    assert not any("gizmo" in line for line in message_lines(said))

    window.search_bar.field.setText("compost")
    QTest.keyClick(window.search_bar.field, Qt.Key.Key_Return)
    _answer(qtbot, said)
    wait_settled(qtbot, context)

    assert listed_ids(context)
    assert window.results_view.empty_state is None or window.results_model.rowCount()


def test_a_query_problem_goes_as_soon_as_the_typed_query_means_something(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
) -> None:
    context = window_factory(library=demo_library)
    window = context.window
    wait_settled(qtbot, context)
    _type(qtbot, context, "after:2024-13 compost")
    state = window.results_view.empty_state
    assert state is not None
    assert "after:2024-13" in state.explanation
    assert not window.toast.isVisible()

    _type(qtbot, context, "after:2024-12 compost")

    state = window.results_view.empty_state
    assert state is None or "after:2024-13" not in state.explanation
    assert not window.toast.isVisible()
    assert window.status.currentMessage() == ""


def test_a_sidebar_type_the_type_menu_leaves_out_asks_the_server_nothing(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tweets in the sidebar, web pages in the type menu: no item is both, so no answer of
    the server could be kept; it is not asked (it was asked for web pages, all dropped)."""
    context = window_factory(library=demo_library, server=emulator_factory(library=demo_library))
    window = context.window
    window.sidebar.select_scope(Scope("type", "twitter", "Tweet"))
    assert window.sidebar.current_scope().value == "twitter"
    bar = window.search_bar
    bar.types.setCurrentIndex(bar.types.findData("web"))
    wait_settled(qtbot, context)
    sent = _searches_sent(monkeypatch)
    said = Emitted(window.messages.shown)
    _type(qtbot, context, "compost")
    QTest.keyClick(bar.field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(message_lines(said)), timeout=WAIT_MS)
    wait_settled(qtbot, context)
    assert sent == []
    assert message_lines(said) == [NOTHING_TO_ASK]
    assert listed_ids(context) == []
