"""Help > About shows the version, the data folder and the cache statistics."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from support.window import WindowFactory

from memex_desktop import __version__
from memex_desktop.app import AppContext
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import user_message
from memex_desktop.store import CacheReader, StoreError
from memex_desktop.sync import SyncOutcome
from memex_desktop.ui.about_dialog import AboutDialog, format_last_sync, format_size
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture
def context(window_factory: WindowFactory, emulator_factory: Any) -> AppContext:
    """A window connected to an emulator serving 40 items, not synced yet."""
    library = generate_library(40, seed=2, words_per_entity=30)
    return window_factory(server=emulator_factory(library=library))


def _about(qtbot: Any, context: AppContext) -> AboutDialog:
    """The About dialog, once its statistics are read."""
    dialog = AboutDialog(context.runner, context.window.cache_path, context.window)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.entities_label.text() != "…", timeout=10_000)
    return dialog


def test_about_shows_version_folder_and_statistics_of_the_last_sync(
    qtbot: Any, context: AppContext
) -> None:
    action = context.window.actions_by_key["about"]
    assert action.text().replace("&", "") == "About memex-desktop"
    before = _about(qtbot, context)
    assert before.last_sync_label.text() == "never"
    started_ms = int(time.time() * 1000)
    with qtbot.waitSignal(context.controller.sync_finished, timeout=60_000) as done:
        assert context.controller.sync_now()
    assert done.args[0].outcome is SyncOutcome.OK
    dialog = _about(qtbot, context)
    assert dialog.version_label.text() == __version__
    assert dialog.folder_label.text() == str(context.data_dir)
    assert dialog.entities_label.text() == f"{context.reader.stats().entities:,}"
    assert int(dialog.entities_label.text().replace(",", "")) >= 40
    assert dialog.size_label.text().endswith(("KB", "MB"))
    last_sync = context.reader.stats().last_sync_at  # written by the engine's sync
    assert last_sync is not None
    assert started_ms <= last_sync <= int(time.time() * 1000)
    assert dialog.last_sync_label.text() == format_last_sync(last_sync)


def test_help_menu_opens_about(qtbot: Any, context: AppContext) -> None:
    help_menu = next(a.menu() for a in context.window.menuBar().actions() if a.text() == "&Help")
    assert context.window.actions_by_key["about"] in help_menu.actions()
    dialog = context.window.show_about()
    qtbot.waitUntil(lambda: dialog.entities_label.text() != "…", timeout=10_000)
    assert dialog.isVisible()
    dialog.close()


def test_formats() -> None:
    assert format_size(512) == "512 bytes"
    assert format_size(3 * 1024 * 1024) == "3.0 MB"
    assert format_last_sync(None) == "never"


def test_an_unreadable_library_says_why_instead_of_leaving_the_dots(
    qtbot: Any, tmp_path: Path
) -> None:
    cache_path = tmp_path / "cache.db"
    cache_path.write_bytes(b"not a database " * 300)
    with pytest.raises(StoreError) as raised:
        CacheReader(cache_path).stats()
    runner = TaskRunner(max_threads=1)
    dialog = AboutDialog(runner, cache_path)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.entities_label.text() != "…", timeout=10_000)
    why = message_line(user_message(raised.value))
    for label in (dialog.entities_label, dialog.size_label, dialog.last_sync_label):
        assert label.text() == "unavailable"
        assert label.toolTip() == why
    assert "damaged" in why
    assert runner.shutdown(5_000)
