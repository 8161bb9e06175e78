"""A saved view's results from the server keep to the search and filters on show, as the
view's cached results do: every chip narrows the list, whichever side found an item."""

from __future__ import annotations

from typing import Any

import pytest
from support.emulator import EmulatorFactory
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.errors import UserMessage
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.sidebar import Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
# Items tagged local-first: web pages, a PDF, a Reddit post, a tweet and one video.
LOCAL_FIRST = Scope("view", "view-local-first-reading", "Local-first reading")


@pytest.fixture
def context(
    window_factory: WindowFactory, emulator_factory: EmulatorFactory, demo_library: dict[str, Any]
) -> AppContext:
    return window_factory(library=demo_library, server=emulator_factory(library=demo_library))


def _view_from_the_server(qtbot: Any, context: AppContext, scope: Scope) -> str:
    """Pick ``scope`` in the sidebar; what the window says once the server's results merged."""
    said = Emitted(context.window.messages.shown)
    context.window.sidebar.select_scope(scope)

    def merged() -> str | None:
        lines = [message_line(call[0]) for call in said.calls if isinstance(call[0], UserMessage)]
        return next((line for line in lines if "of this view from the server" in line), None)

    qtbot.waitUntil(lambda: merged() is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)
    return merged() or ""


def _listed_types(context: AppContext) -> set[str]:
    model = context.window.results_model
    types = set()
    for row in range(model.rowCount()):
        found = context.reader.get(model.id_at(row) or "")
        assert found is not None
        types.add(found.type)
    return types


def test_the_servers_results_of_a_view_keep_to_the_type_searched_for(
    qtbot: Any, context: AppContext
) -> None:
    context.window.search_bar.field.setText("type:video")
    qtbot.waitUntil(lambda: context.window.results_model.query == "type:video", timeout=WAIT_MS)
    said = _view_from_the_server(qtbot, context, LOCAL_FIRST)
    assert context.window.results_model.rowCount() >= 1
    assert _listed_types(context) == {"youtube"}
    assert "within the search" in said


def test_without_a_search_the_servers_results_of_a_view_all_merge(
    qtbot: Any, context: AppContext
) -> None:
    _view_from_the_server(qtbot, context, LOCAL_FIRST)
    assert len(_listed_types(context)) > 1  # the view holds items of several types
