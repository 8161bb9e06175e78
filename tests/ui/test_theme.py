"""The dark theme in the real window: the reader's CSS, the results list, the graph, the setting."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication
from support.window import WindowFactory

from memex_desktop.app import show_settings_dialog
from memex_desktop.settings import Settings
from memex_desktop.ui import theme
from memex_desktop.ui.dialogs import SettingsDialog
from memex_desktop.ui.palette import DARK, LIGHT, Palette

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.fixture
def controller(qapp: QApplication) -> Iterator[theme.ThemeController]:
    """The app's theme installed in light, as ``create_application`` does; removed after."""
    installed = theme.install(qapp, "light")
    yield installed
    installed.uninstall()


def _open_first_web_item(qtbot: Any, context: Any, library: dict[str, Any]) -> str:
    """Select the first web page of the library and wait until the reader shows it."""
    item = next(e["id"] for e in library["results"] if e["type"] == "web")
    window = context.window
    qtbot.waitUntil(lambda: window.results_model.rowCount() > 0, timeout=20_000)
    window.select_entity(item)
    pane = window.reader_pane
    qtbot.waitUntil(lambda: pane.current_entity_id == item and not pane.rendering, timeout=20_000)
    return item


def _colour_counts(image: QImage) -> dict[int, int]:
    """How many pixels have each colour (as ``0xRRGGBB``)."""
    counts: dict[int, int] = {}
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            rgb = image.pixel(x, y) & 0xFFFFFF
            counts[rgb] = counts.get(rgb, 0) + 1
    return counts


def _most_common(image: QImage) -> str:
    """The background: the colour most pixels have."""
    counts = _colour_counts(image)
    return QColor(max(counts, key=counts.__getitem__)).name()


def _lightest_and_darkest(image: QImage) -> tuple[int, int]:
    """The lightness (0-255) of the lightest and the darkest pixel."""
    lightness = [QColor(rgb).lightness() for rgb in _colour_counts(image)]
    return max(lightness), min(lightness)


def _unselected_rows(context: Any) -> QImage:
    """The results list's first rows, with no row selected (what a person sees scrolling)."""
    view = context.window.results_view
    view.clearSelection()
    view.setCurrentIndex(view.model().index(-1, 0))
    image = view.viewport().grab().toImage()
    return image.copy(0, 0, image.width(), min(image.height(), 3 * 74))


def _assert_reads_as(palette: Palette, image: QImage) -> None:
    """Background of ``palette``, and text that stands out from it in the right direction."""
    assert _most_common(image) == palette.base
    lightest, darkest = _lightest_and_darkest(image)
    if palette.is_dark:
        assert lightest > 200, "light text on the dark background"
    else:
        assert darkest < 80, "dark text on the light background"


def test_the_reader_css_and_the_list_colours_change_with_the_theme(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    controller: theme.ThemeController,
) -> None:
    context = window_factory(library=demo_library)
    context.window.resize(1200, 760)
    _open_first_web_item(qtbot, context, demo_library)
    pane = context.window.reader_pane
    document = pane.browser.document
    assert f"color: {LIGHT.text}" in document().defaultStyleSheet()
    _assert_reads_as(LIGHT, pane.browser.viewport().grab().toImage())
    _assert_reads_as(LIGHT, _unselected_rows(context))
    rendered = document()

    controller.set_setting("dark")
    qtbot.waitUntil(lambda: document() is not rendered and not pane.rendering, timeout=20_000)
    css = document().defaultStyleSheet()
    assert f"color: {DARK.text}" in css
    assert f"color: {DARK.link}" in css
    assert LIGHT.text not in css
    _assert_reads_as(DARK, pane.browser.viewport().grab().toImage())
    _assert_reads_as(DARK, _unselected_rows(context))
    assert QApplication.palette().text().color().name() == DARK.text

    controller.set_setting("light")
    qtbot.waitUntil(lambda: LIGHT.text in document().defaultStyleSheet(), timeout=20_000)
    _assert_reads_as(LIGHT, _unselected_rows(context))


def test_system_follows_the_desktop_switching_to_dark_and_back(
    qtbot: Any, controller: theme.ThemeController, qapp: QApplication
) -> None:
    controller.set_setting("system")
    assert theme.current() is LIGHT  # offscreen: no scheme known, so light
    hints = QGuiApplication.styleHints()
    with qtbot.waitSignal(controller.changed) as changed:
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert changed.args == [DARK]
    assert theme.current() is DARK
    assert DARK.window in qapp.styleSheet()
    assert qapp.palette().window().color().name() == DARK.window
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert theme.current() is LIGHT
    assert LIGHT.window in qapp.styleSheet()


def test_a_forced_theme_ignores_the_desktop(controller: theme.ThemeController) -> None:
    hints = QGuiApplication.styleHints()
    controller.set_setting("light")
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert theme.current() is LIGHT
    controller.set_setting("dark")
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert theme.current() is DARK


def test_the_graph_outlines_its_nodes_for_the_theme(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    controller: theme.ThemeController,
) -> None:
    context = window_factory(library=demo_library)
    item = _open_first_web_item(qtbot, context, demo_library)
    graph = context.window.graph_pane
    assert graph is not None
    qtbot.waitUntil(lambda: graph.center == item and not graph.is_laying_out(), timeout=30_000)
    dots = graph.node_items()
    assert dots
    assert {dot.pen().color().name() for dot in dots} == {LIGHT.node_outline}
    controller.set_setting("dark")
    qtbot.waitUntil(
        lambda: {dot.pen().color().name() for dot in graph.node_items()} == {DARK.node_outline},
        timeout=5_000,
    )


def test_the_settings_dialog_changes_the_theme_at_once_and_keeps_it(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    controller: theme.ThemeController,
) -> None:
    context = window_factory(library=demo_library)
    chosen: list[str] = []

    def choose_dark() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, SettingsDialog)
        assert dialog.theme.currentData() == "system"
        dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
        chosen.append(dialog.theme.currentText())
        dialog.accept()

    QTimer.singleShot(0, choose_dark)
    assert show_settings_dialog(context, context.window)
    assert chosen == ["Dark"]
    assert theme.current() is DARK
    assert context.settings.theme == "dark"
    assert Settings.load().theme == "dark"


def test_a_window_opens_in_the_saved_theme(
    qtbot: Any,
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    controller: theme.ThemeController,
) -> None:
    context = window_factory(library=demo_library, settings=Settings(theme="dark"))
    assert controller.setting == "dark"
    assert theme.current() is DARK
    _open_first_web_item(qtbot, context, demo_library)
    css = context.window.reader_pane.browser.document().defaultStyleSheet()
    assert f"color: {DARK.text}" in css
    _assert_reads_as(DARK, _unselected_rows(context))


@pytest.mark.parametrize("palette", [LIGHT, DARK])
def test_every_control_that_takes_the_keyboard_shows_it_has_it(palette: Palette) -> None:
    sheet = re.sub(r"/\*.*?\*/", "", theme.app_stylesheet(palette), flags=re.DOTALL)
    rules = re.findall(r"([^{}]+)\{([^{}]*)\}", sheet)

    def selectors_where(wanted: str) -> set[str]:
        return {
            name.strip()
            for selectors, body in rules
            if wanted in body
            for name in selectors.split(",")
        }

    outlined = selectors_where(f"border: 1px solid {palette.accent}")
    for control in ("#resultsview", "#sidebar", "#readerbrowser", "QPushButton", "QToolButton"):
        assert f"{control}:focus" in outlined, control
    # Unfocused, a list's outline is there and transparent: the focus moves nothing.
    for control in ("#resultsview", "#sidebar", "#readerbrowser", "QToolButton"):
        assert control in selectors_where("border: 1px solid transparent"), control


def test_every_type_of_the_demo_library_has_a_node_colour_of_its_own(
    demo_library: dict[str, Any],
) -> None:
    """Highlights, books and audio recordings were one grey, beside the tags' grey."""
    from memex_desktop.ui.palette import OTHER_TYPE_COLOUR, TYPE_COLOURS

    types = {entity["type"] for entity in demo_library["results"]} | {"tag"}
    assert types <= TYPE_COLOURS.keys()
    colours = [QColor(colour) for colour in TYPE_COLOURS.values()]
    assert OTHER_TYPE_COLOUR not in TYPE_COLOURS.values()
    for first, second in itertools.combinations(colours, 2):
        distance = sum(
            abs(a - b) for a, b in zip(first.getRgb()[:3], second.getRgb()[:3], strict=True)
        )
        assert distance > 60, (first.name(), second.name())
