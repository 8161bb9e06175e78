"""What the real window's search shows, for tests of searches, scopes and the server's
answers: the ids listed, each one's badge, the messages shown, and a wait until every search
asked for is done."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_desktop.errors import UserMessage
from memex_desktop.ui.messages import message_line
from support.signals import Emitted

if TYPE_CHECKING:
    from memex_desktop.app import AppContext

SETTLE_MS = 10_000


def listed_ids(context: AppContext) -> list[str]:
    """The ids the results list shows, in its order."""
    model = context.window.results_model
    return [model.id_at(row) or "" for row in range(model.rowCount())]


def provenance(context: AppContext) -> dict[str, str]:
    """Each listed id's badge: found here, by the server, or by both."""
    model = context.window.results_model
    return {
        model.id_at(row) or "": model.index(row, 0).data(model.ProvenanceRole)
        for row in range(model.rowCount())
    }


def message_lines(said: Emitted) -> list[str]:
    """Every message recorded from ``messages.shown``, each as its one line."""
    return [message_line(call[0]) for call in said.calls if isinstance(call[0], UserMessage)]


def wait_settled(qtbot: Any, context: AppContext, timeout_ms: int = SETTLE_MS) -> None:
    """Wait until every search, narrowing and merge asked for so far is done."""
    search = context.window.search
    qtbot.waitUntil(lambda: not search.awaiting_results, timeout=timeout_ms)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=timeout_ms)
