"""Undo after pasting several links Memex already has: the notice speaks of them all, so its
button shows them all (in the outbox pane, which lists each and opens each one's item), rather
than an "Open" that would open the first only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.saving import Saving, saving_controller
from support.signals import Emitted

from memex_desktop.store import Outbox
from memex_desktop.ui.save_controller import (
    OPEN,
    SHOW_IN_OUTBOX,
    StayingSave,
    UndoResult,
    undo_offer,
)
from memex_desktop.ui.sync_controller import OutboxCounts

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

URLS = ["https://a.example/1", "https://a.example/2"]


def _sent(op_id: int, entity_id: str | None = None) -> StayingSave:
    return StayingSave(op_id, f"https://a.example/{op_id}", True, entity_id)


def _on_its_way(op_id: int) -> StayingSave:
    return StayingSave(op_id, f"https://a.example/{op_id}", False, None)


@pytest.mark.parametrize(
    ("undone", "staying", "offer"),
    [
        ([1], [], None),
        ([], [_sent(1, "web-1")], ("web-1", OPEN)),
        ([2], [_sent(1, "web-1")], ("web-1", OPEN)),
        ([], [_sent(1)], (1, SHOW_IN_OUTBOX)),  # Memex has not named its item yet
        ([], [_on_its_way(1)], (1, SHOW_IN_OUTBOX)),
        ([], [_sent(1, "web-1"), _sent(2, "web-2")], (1, SHOW_IN_OUTBOX)),
        ([], [_sent(1, "web-1"), _on_its_way(2)], (1, SHOW_IN_OUTBOX)),
    ],
)
def test_one_save_that_stays_opens_and_several_show_in_the_outbox(
    undone: list[int], staying: list[StayingSave], offer: tuple[object, str] | None
) -> None:
    assert undo_offer(UndoResult(undone, staying, OutboxCounts(0, 0, 0))) == offer


@pytest.fixture
def saving(qtbot: Any, tmp_path: Path) -> Iterator[Saving]:
    with saving_controller(qtbot, tmp_path) as made:
        yield made


def test_undo_of_two_pasted_links_memex_has_shows_them_in_the_outbox(
    qtbot: Any, saving: Saving
) -> None:
    controller, toast, outbox_path = saving.saves, saving.toast, saving.outbox_path
    queued = Emitted(controller.saves_queued)
    controller.save_urls(URLS)
    queued.wait(qtbot, 10_000)
    with Outbox(outbox_path) as outbox:
        for number, op in enumerate(outbox.list(), 1):
            outbox.mark_accepted(op.id, f"web-{number}")  # a sync sent both
    task = controller.undo_last()
    assert task is not None
    Emitted(task.finished).wait(qtbot, 10_000)
    assert toast.text() == "Already sent to Memex; they stay in your library."
    assert toast.open_button.isVisibleTo(toast)
    assert toast.open_button.text() == SHOW_IN_OUTBOX
    assert toast.open_button.accessibleName() == SHOW_IN_OUTBOX

    opened = Emitted(controller.entity_found)
    shown = Emitted(controller.outbox_requested)
    toast.open_button.click()
    assert shown.calls == [[]]
    assert opened.calls == []  # not the first item as if it were all of them
