"""Help > About shows the version, the data folder and the cache statistics."""

from __future__ import annotations

from typing import Any

import pytest
from support.window import WindowFactory, seeded_cache

from memex_desktop import __version__
from memex_desktop.app import AppContext
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.ui.about_dialog import AboutDialog, format_last_sync, format_size

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    """A window on a cache holding 40 items and a last-sync time."""
    library = generate_library(40, seed=2, words_per_entity=30)
    seeded_cache(window_factory.data_dir, library, sync_state={"last_sync_at": "1767225600000"})
    return window_factory()


def test_about_shows_version_folder_and_statistics(qtbot: Any, context: AppContext) -> None:
    action = context.window.actions_by_key["about"]
    assert action.text().replace("&", "") == "About memex-desktop"
    dialog = AboutDialog(context.runner, context.window.cache_path, context.window)
    qtbot.addWidget(dialog)
    assert dialog.version_label.text() == __version__
    assert dialog.folder_label.text() == str(context.data_dir)
    qtbot.waitUntil(lambda: dialog.entities_label.text() != "…", timeout=10_000)
    assert dialog.entities_label.text() == f"{context.reader.stats().entities:,}"
    assert int(dialog.entities_label.text().replace(",", "")) >= 40
    assert dialog.size_label.text().endswith(("KB", "MB"))
    assert dialog.last_sync_label.text() != "never"


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
