"""Filter chips with the keyboard: Tab reaches each where it stands on screen (after the
filter menus, before the sort menu), its name says what it removes, and Delete, Backspace,
Enter or Space removes it, the keyboard going on to the next chip or back to the field."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from support.focus import give_focus
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.ui.search_bar import SearchBar
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 5_000


@pytest.fixture
def context(window_factory: WindowFactory, demo_library: dict[str, Any]) -> AppContext:
    return window_factory(library=demo_library)


def _press(qtbot: Any, key: Qt.Key) -> QWidget | None:
    """Press ``key`` where the focus is; the widget with focus after."""
    widget = QApplication.focusWidget()
    assert widget is not None
    qtbot.keyClick(widget, key)
    return QApplication.focusWidget()


def _pick(combo: Any, text: str) -> None:
    position = combo.findText(text)
    assert position > 0, f"{text!r} is not offered"
    combo.setCurrentIndex(position)


def _chips(qtbot: Any, bar: SearchBar, count: int) -> list[QWidget]:
    """The bar's ``count`` chips once shown (a new chip is shown when the event loop is back)."""
    qtbot.waitUntil(
        lambda: (
            len(bar.chip_buttons()) == count
            and all(chip.isVisible() for chip in bar.chip_buttons())
        ),
        timeout=WAIT_MS,
    )
    chips: list[QWidget] = list(bar.chip_buttons())
    return chips


def test_tab_from_the_field_reaches_the_chip_and_enter_removes_it(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    bar = window.search_bar
    _pick(bar.tags, "local-first")
    [chip] = _chips(qtbot, bar, 1)
    assert chip.accessibleName() == "Remove filter tag: local-first"
    give_focus(qtbot, bar.field)
    visited = [_press(qtbot, Qt.Key.Key_Tab) for _ in range(7)]
    assert visited == [
        bar.cloud,
        bar.types,
        bar.tags,
        bar.dates,
        chip,
        bar.clear_all_button,
        window.sort_control.combo,
    ]
    give_focus(qtbot, chip)
    assert _press(qtbot, Qt.Key.Key_Return) is bar.field  # the only chip: back to the field
    assert bar.tags.currentIndex() == 0
    assert not bar.chip_buttons()
    # Shift+Tab from the sort menu goes back past the chips that went to the filter menus.
    give_focus(qtbot, window.sort_control.combo)
    qtbot.keyClick(window.sort_control.combo, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is bar.dates


def test_each_removing_key_hands_the_keyboard_to_the_next_chip_then_the_field(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    bar = window.search_bar
    bar.field.setText("garden")
    bar.flush()
    _pick(bar.types, bar.types.itemText(1))
    _pick(bar.tags, "local-first")
    _pick(bar.dates, "Past year")
    chips = _chips(qtbot, bar, 4)
    assert [chip.accessibleName() for chip in chips] == [
        "Remove search garden",
        f"Remove filter type: {bar.types.currentText()}",
        "Remove filter tag: local-first",
        "Remove filter saved: past year",
    ]
    give_focus(qtbot, bar.dates)
    assert [_press(qtbot, Qt.Key.Key_Tab) for _ in range(5)] == [
        *chips,
        bar.clear_all_button,
    ]

    # Delete on the type chip: the tag's chip is in focus next.
    give_focus(qtbot, chips[1])
    now = _press(qtbot, Qt.Key.Key_Delete)
    assert bar.types.currentIndex() == 0
    assert isinstance(now, QWidget)
    assert getattr(now, "label", None) == "Tag: local-first"
    # Space on it: the date's chip next; Backspace on the last one: the field.
    now = _press(qtbot, Qt.Key.Key_Space)
    assert getattr(now, "label", None) == "Saved: past year"
    assert bar.tags.currentIndex() == 0
    assert _press(qtbot, Qt.Key.Key_Backspace) is bar.field
    assert bar.dates.currentIndex() == 0
    assert bar.chip_labels() == ["Search: garden"]

    # Chips that come later still stand after the filter menus and before the sort menu.
    _pick(bar.tags, "sqlite")
    chips = _chips(qtbot, bar, 2)
    give_focus(qtbot, bar.dates)
    assert [_press(qtbot, Qt.Key.Key_Tab) for _ in range(4)] == [
        *chips,
        bar.clear_all_button,
        window.sort_control.combo,
    ]

    # The query's chip empties the field; Clear all from the keyboard leaves it in the field.
    give_focus(qtbot, chips[0])
    now = _press(qtbot, Qt.Key.Key_Enter)
    assert bar.field.text() == ""
    assert getattr(now, "label", None) == "Tag: sqlite"
    give_focus(qtbot, bar.clear_all_button)
    assert _press(qtbot, Qt.Key.Key_Space) is bar.field
    assert not bar.chip_buttons()
    assert bar.tags.currentIndex() == 0


def test_the_sidebar_entrys_chip_goes_back_to_all_items_from_the_keyboard(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    bar = window.search_bar
    window.sidebar.select_scope(Scope("tag", "tag-memory", "memory"))
    _pick(bar.dates, "Past year")
    chips = _chips(qtbot, bar, 2)
    assert chips[0].accessibleName() == "Remove filter tag: memory"
    give_focus(qtbot, bar.dates)
    assert _press(qtbot, Qt.Key.Key_Tab) is chips[0]
    now = _press(qtbot, Qt.Key.Key_Delete)
    assert window.sidebar.current_scope() == ALL_ITEMS
    assert getattr(now, "label", None) == "Saved: past year"


def test_a_click_on_a_chip_leaves_the_keyboard_where_it_was(
    qtbot: Any, context: AppContext
) -> None:
    bar = context.window.search_bar
    _pick(bar.tags, "local-first")
    _pick(bar.dates, "Past year")
    chips = _chips(qtbot, bar, 2)
    give_focus(qtbot, bar.field)
    qtbot.mouseClick(chips[0], Qt.MouseButton.LeftButton)
    assert bar.tags.currentIndex() == 0
    assert QApplication.focusWidget() is bar.field
