"""While a sync runs, the status bar and the list never show two counts of items that
contradict each other: the list counts the items on this computer, the status bar the items
the sync has fetched, and says so ("Syncing: 350 of about 1,000 items fetched")."""

from __future__ import annotations

import re
from typing import Any

import pytest
from support.emulator import EmulatorFactory
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.settings import Settings

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LIBRARY_SIZE = 300
PAGE_SIZE = 50
SYNC_MS = 60_000
# The list's own count ("300 items"): a status line of this form would read as a second,
# different count of the same list.
BARE_COUNT = re.compile(r"^[\d,]+\+? items?$")
FIRST_SYNC = re.compile(r"^Syncing: (?P<done>[\d,]+) items? fetched so far$")
LATER_PASS = re.compile(r"^Syncing: (?P<done>[\d,]+) of about (?P<total>[\d,]+) items fetched$")


@pytest.fixture
def context(window_factory: WindowFactory, emulator_factory: EmulatorFactory) -> AppContext:
    """The window on a fresh data folder and a server of 300 items, 50 to a page."""
    server = emulator_factory(library=generate_library(LIBRARY_SIZE, seed=5, words_per_entity=12))
    return window_factory(server=server, settings=Settings(page_size=PAGE_SIZE))


def pull_lines(qtbot: Any, context: AppContext, *, full: bool) -> list[str]:
    """What the status bar said while a sync (``full``: a whole pass) read pages."""
    said: list[str] = []
    context.window.status.messageChanged.connect(said.append)
    phases: list[str] = []
    context.controller.sync_progress.connect(lambda progress: phases.append(progress.phase))
    assert context.controller.sync_now(full=full)
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=SYNC_MS)
    context.window.status.messageChanged.disconnect(said.append)
    assert "pull" in phases
    # Lines of later phases ("checking for deleted items") and the closing sentence aside.
    return [line for line in said if line.startswith("Syncing:") or BARE_COUNT.match(line)]


def number(text: str) -> int:
    return int(text.replace(",", ""))


def test_a_first_sync_says_it_counts_what_it_fetched(qtbot: Any, context: AppContext) -> None:
    lines = pull_lines(qtbot, context, full=False)
    assert len(lines) >= LIBRARY_SIZE // PAGE_SIZE, lines
    done = []
    for line in lines:
        found = FIRST_SYNC.match(line)
        assert found, f"{line!r} reads as a count of the list: {lines}"
        done.append(number(found["done"]))
    assert done == sorted(done)
    assert done[-1] == LIBRARY_SIZE


def test_a_later_whole_pass_counts_towards_what_the_list_holds(
    qtbot: Any, context: AppContext
) -> None:
    pull_lines(qtbot, context, full=False)
    count = context.window.sort_control.count
    listed = f"{LIBRARY_SIZE:,} items"
    qtbot.waitUntil(lambda: count.text() == listed, timeout=SYNC_MS)
    lines = pull_lines(qtbot, context, full=True)
    assert lines, "the pass said nothing while it read pages"
    for line in lines[:-1]:  # the last page reaches the estimate: nothing is left to name
        found = LATER_PASS.match(line)
        assert found, f"{line!r} contradicts the list's {listed!r}: {lines}"
        assert number(found["total"]) == LIBRARY_SIZE
        assert number(found["done"]) < LIBRARY_SIZE
    assert FIRST_SYNC.match(lines[-1]) or LATER_PASS.match(lines[-1]), lines
    assert count.text() == listed
