"""What the window shows after a sync: the banner about held deletions, the sidebar's rows.

A pass that finds more items gone than it may mark on its own marks none; the window asks
(Mark them deleted / Keep them). Real syncs against the emulator: an item counts as gone only
when two complete passes in a row miss it, so a hold takes three full syncs (the first one
fetches the library, the next two miss what the emulator deleted).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.signals import Emitted
from support.window import WindowFactory, seeded_cache

from memex_desktop.app import AppContext
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import SyncReport
from memex_desktop.sync.engine import STATE_DELETIONS_HELD
from memex_desktop.ui.deletions_banner import DeletionsBanner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

SYNC_TIMEOUT_MS = 60_000
HELD_TEXT = (
    "{} items look deleted on the Memex server — more than a sync marks without asking. "
    "Nothing was marked."
)


@pytest.fixture
def data_dir(window_factory: WindowFactory) -> Path:
    """The data folder every window of the test opens."""
    return window_factory.data_dir


def _plant_held(data_dir: Path, count: int, at_ms: int) -> None:
    """What a pass that held ``count`` deletions leaves in the cache."""
    held = json.dumps({"count": count, "library": 1000, "at_ms": at_ms})
    seeded_cache(data_dir, sync_state={STATE_DELETIONS_HELD: held})


def _sync(qtbot: Any, context: AppContext, **options: Any) -> SyncReport:
    """Run one sync through the controller; its report."""
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now(**options)
    finished.wait(qtbot, SYNC_TIMEOUT_MS)
    report = finished.args[0]
    assert isinstance(report, SyncReport)
    return report


def _full_sync_from_the_menu(qtbot: Any, context: AppContext) -> SyncReport:
    """Ctrl+Shift+R (File → Full sync and check for deletions)."""
    finished = Emitted(context.controller.sync_finished)
    context.window.actions_by_key["sync_full"].trigger()
    finished.wait(qtbot, SYNC_TIMEOUT_MS)
    report = finished.args[0]
    assert isinstance(report, SyncReport)
    return report


def _hold_deletions(qtbot: Any, context: AppContext, server: Any) -> tuple[SyncReport, set[str]]:
    """Sync the library, delete a tenth of it upstream, and sync until the pass holds them."""
    first = _full_sync_from_the_menu(qtbot, context)
    assert first.ok, first.error
    # A tenth of the library, never its oldest item: a pass proves nothing about items older
    # than the oldest one it saw.
    by_age = sorted(server.state.entity_ids(), key=lambda i: server.state.entity(i)["created_at"])
    gone = set(by_age[1::10])
    for entity_id in gone:
        assert server.state.delete_entity(entity_id)
    once = _full_sync_from_the_menu(qtbot, context)
    assert once.ok, once.error
    assert once.deletions_held == 0  # missing once proves nothing yet
    assert not context.window.deletions_banner.isVisible()
    twice = _full_sync_from_the_menu(qtbot, context)
    assert twice.ok, twice.error
    assert twice.deletions_held == len(gone)
    return twice, gone


@pytest.fixture
def server(emulator_factory: Any) -> Any:
    """An emulator serving 200 items (a tenth of them is well over what a pass may mark)."""
    return emulator_factory(library=generate_library(200, seed=5, words_per_entity=8))


def test_held_deletions_in_the_cache_are_asked_about_at_start_up(
    qtbot: Any, window_factory: WindowFactory, data_dir: Path
) -> None:
    _plant_held(data_dir, 42, at_ms=1_000)
    context = window_factory()
    banner = context.window.deletions_banner
    assert isinstance(banner, DeletionsBanner)
    assert banner.isVisible()
    assert banner.text() == HELD_TEXT.format(42)
    assert banner.accessibleName()
    assert banner.accessibleDescription() == banner.text()
    # Both buttons are named, have a mnemonic and take keyboard focus.
    for button, name in (
        (banner.mark_button, "Mark them deleted"),
        (banner.keep_button, "Keep them"),
    ):
        assert button.accessibleName() == name
        assert button.text() == "&" + name
        assert button.focusPolicy() & Qt.FocusPolicy.TabFocus
        assert button.isEnabled()
    # Space on the focused "Keep them" hides the banner.
    banner.keep_button.setFocus()
    qtbot.keyClick(banner.keep_button, Qt.Key.Key_Space)
    assert not banner.isVisible()

    # Kept: the next start does not ask about the same held deletions ...
    context = window_factory()
    assert not context.window.deletions_banner.isVisible()
    # ... but a later pass that holds deletions again is asked about.
    context.shutdown()
    _plant_held(data_dir, 57, at_ms=2_000)
    context = window_factory()
    assert context.window.deletions_banner.isVisible()
    assert context.window.deletions_banner.text() == HELD_TEXT.format(57)


def test_no_banner_without_held_deletions(
    qtbot: Any, window_factory: WindowFactory, data_dir: Path
) -> None:
    _plant_held(data_dir, 0, at_ms=1_000)
    context = window_factory()
    assert not context.window.deletions_banner.isVisible()


def test_mark_them_deleted_runs_the_full_sync_that_marks_them(
    qtbot: Any, window_factory: WindowFactory, server: Any
) -> None:
    context = window_factory(server=server)
    window = context.window
    banner = window.deletions_banner
    held, gone = _hold_deletions(qtbot, context, server)
    assert banner.isVisible()
    assert banner.text() == HELD_TEXT.format(held.deletions_held)
    assert context.reader.deleted_upstream() == []  # nothing was marked

    finished = Emitted(context.controller.sync_finished)
    qtbot.mouseClick(banner.mark_button, Qt.MouseButton.LeftButton)
    assert context.controller.syncing
    assert context.controller.last_request.confirm_deletions
    assert context.controller.last_request.full
    assert banner.working  # one confirmation is enough
    assert not banner.keep_button.isEnabled()
    finished.wait(qtbot, SYNC_TIMEOUT_MS)
    report = finished.args[0]
    assert report.ok, report.error
    assert report.deleted_upstream == len(gone)
    assert not banner.isVisible()
    assert {row.id for row in context.reader.deleted_upstream()} == gone
    assert not context.reader.sync_state(STATE_DELETIONS_HELD)
    assert "marked deleted upstream" in window.toast.text()
    # Marked, never erased: the shelf lists them.
    shelf = window.sidebar.sidebar_model.section("deleted")
    qtbot.waitUntil(lambda: shelf.text() == f"Deleted upstream  ({len(gone)})", timeout=10_000)


def test_mark_them_deleted_during_a_sync_waits_for_it_then_marks_them(
    qtbot: Any, window_factory: WindowFactory, server: Any
) -> None:
    context = window_factory(server=server)
    banner = context.window.deletions_banner
    _held, gone = _hold_deletions(qtbot, context, server)
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now(full=True)  # a pass that will hold them again
    qtbot.mouseClick(banner.mark_button, Qt.MouseButton.LeftButton)
    assert context.controller.confirm_pending
    qtbot.waitUntil(lambda: len(finished.calls) >= 1, timeout=SYNC_TIMEOUT_MS)
    assert finished.calls[0][0].deletions_held == len(gone)
    assert banner.isVisible()
    assert banner.working  # the confirmation is not lost, nor asked for twice
    qtbot.waitUntil(lambda: len(finished.calls) >= 2, timeout=SYNC_TIMEOUT_MS)
    assert finished.calls[1][0].deleted_upstream == len(gone)
    assert not banner.isVisible()
    assert {row.id for row in context.reader.deleted_upstream()} == gone


def test_keep_them_hides_the_banner_until_a_sync_holds_deletions_again(
    qtbot: Any, window_factory: WindowFactory, server: Any
) -> None:
    context = window_factory(server=server)
    banner = context.window.deletions_banner
    _held, gone = _hold_deletions(qtbot, context, server)
    assert banner.isVisible()
    qtbot.mouseClick(banner.keep_button, Qt.MouseButton.LeftButton)
    assert not banner.isVisible()
    # An incremental sync does not check for deletions: the banner stays hidden.
    report = _sync(qtbot, context)
    assert report.ok, report.error
    assert not report.full_pass_completed
    assert not banner.isVisible()
    # The next full pass misses them again and holds them again: asked again.
    again = _full_sync_from_the_menu(qtbot, context)
    assert again.deletions_held == len(gone)
    assert banner.isVisible()
    assert banner.text() == HELD_TEXT.format(again.deletions_held)
    assert context.reader.deleted_upstream() == []


def test_a_confirmation_that_cannot_get_through_can_be_given_again(
    qtbot: Any, window_factory: WindowFactory, server: Any
) -> None:
    context = window_factory(server=server)
    banner = context.window.deletions_banner
    _hold_deletions(qtbot, context, server)
    server.stop()
    finished = Emitted(context.controller.sync_finished)
    qtbot.mouseClick(banner.mark_button, Qt.MouseButton.LeftButton)
    finished.wait(qtbot, SYNC_TIMEOUT_MS)
    assert not finished.args[0].ok
    assert banner.isVisible()
    assert banner.mark_button.isEnabled()
    assert banner.mark_button.text() == "&Mark them deleted"
    assert context.window.status.currentMessage().startswith("Nothing was marked deleted: ")
    assert context.reader.deleted_upstream() == []


def test_the_sidebar_says_why_views_are_missing_after_a_sync_that_changed_nothing(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: Any,
) -> None:
    library = generate_library(30, seed=8, words_per_entity=8)
    library["views"] = []
    server = emulator_factory(library=library)
    context = window_factory(server=server)
    sidebar = context.window.sidebar
    first = _sync(qtbot, context)
    assert first.ok, first.error
    views = sidebar.sidebar_model.section("views")
    qtbot.waitUntil(lambda: views.child(0).text() == "No saved views", timeout=10_000)

    # The next sync cannot read the views; nothing else changed, so no store change says so.
    server.faults.next_status(500, count=5, body={"error": "boom"}, paths=["/list-views"])
    second = _sync(qtbot, context)
    assert second.ok, second.error
    assert not second.changes
    qtbot.waitUntil(
        lambda: views.child(0).text() == "Could not read saved views from the server",
        timeout=10_000,
    )
    assert "trouble" in views.child(0).toolTip()
