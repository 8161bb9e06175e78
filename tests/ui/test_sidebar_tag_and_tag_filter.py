"""A tag picked in the sidebar and one chosen in the "Any tag" filter both narrow the list: an
item must carry both. Each shows as a chip, and removing either leaves the other in force."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.caches import tagged_pages_library
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.ui.search_bar import FilterChip
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
TAGS = {"t-garden": "garden", "t-bees": "bees", "t-kitchen": "kitchen"}
# item id -> the tags it carries
CARRIES = {
    "both": ["t-garden", "t-bees"],
    "garden-only": ["t-garden"],
    "bees-only": ["t-bees"],
    "kitchen-only": ["t-kitchen"],
    "untagged": [],
}
GARDEN = Scope("tag", "t-garden", "garden")


def _library() -> dict[str, Any]:
    """Five web pages carrying the tags of CARRIES."""
    return tagged_pages_library(CARRIES, TAGS)


def _carrying(*tags: str) -> set[str]:
    """The items carrying every one of ``tags``."""
    return {item for item, carried in CARRIES.items() if set(tags) <= set(carried)}


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    return window_factory(library=_library())


def _settle(qtbot: Any, context: AppContext) -> None:
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)


def _listed(context: AppContext) -> set[str]:
    return set(context.window.results_model.ids())


def _chips(context: AppContext) -> list[str]:
    return [chip.label for chip in context.window.search_bar.chip_buttons()]


def _choose_tag(qtbot: Any, context: AppContext, name: str) -> None:
    combo = context.window.search_bar.tags
    index = combo.findText(name)
    assert index > 0, f"{name!r} is not offered"
    combo.setCurrentIndex(index)
    _settle(qtbot, context)


def _click_chip(qtbot: Any, context: AppContext, label: str) -> None:
    chip = next(c for c in context.window.search_bar.chip_buttons() if c.label == label)
    assert isinstance(chip, FilterChip)
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    _settle(qtbot, context)


def test_a_sidebar_tag_and_the_tag_filter_both_narrow_the_list(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    window.sidebar.select_scope(GARDEN)
    _settle(qtbot, context)
    assert _listed(context) == _carrying("t-garden")

    _choose_tag(qtbot, context, "bees")
    assert _listed(context) == _carrying("t-garden", "t-bees") == {"both"}
    assert _chips(context) == ["Tag: garden", "Tag: bees"]

    # Removing the filter's chip leaves the sidebar's tag narrowing the list.
    _click_chip(qtbot, context, "Tag: bees")
    assert window.search_bar.tags.currentIndex() == 0
    assert window.sidebar.current_scope() == GARDEN
    assert _listed(context) == _carrying("t-garden")

    # Removing the sidebar's chip leaves the filter's tag narrowing the list.
    _choose_tag(qtbot, context, "bees")
    _click_chip(qtbot, context, "Tag: garden")
    assert window.sidebar.current_scope() == ALL_ITEMS
    assert window.search_bar.tags.currentText() == "bees"
    assert _listed(context) == _carrying("t-bees")
    assert _chips(context) == ["Tag: bees"]


def test_two_tags_no_item_carries_together_leave_the_list_empty_and_say_both(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    window.sidebar.select_scope(GARDEN)
    _settle(qtbot, context)
    _choose_tag(qtbot, context, "kitchen")
    assert _listed(context) == set()
    state = window.results_view.empty_state
    assert state is not None
    assert state.title == "No items match these filters"
    assert "Tag: garden" in state.explanation
    assert "Tag: kitchen" in state.explanation


def test_the_tag_filter_narrows_a_search_within_a_sidebar_tag(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    window.sidebar.select_scope(GARDEN)
    _settle(qtbot, context)
    _choose_tag(qtbot, context, "bees")
    window.search_bar.field.setText("page")
    window.search_bar.flush()
    _settle(qtbot, context)
    assert _listed(context) == {"both"}
