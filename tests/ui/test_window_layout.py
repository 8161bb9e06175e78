"""The window fits a laptop: it takes 960×600 and 1366×768, nothing in it is cut off.

The real window on the demo library: each visible pane's minimum fits the window, the reader
is the widest part at 1366×768, the filter menus, the search hint and the sidebar's last entry
show whole (or end with "…" where the column is too narrow), and the pane layout, hidden
panes included, comes back as it was saved whatever the size.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QDockWidget, QToolButton, QWidget
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.errors import ConnectionState
from memex_desktop.store import OutboxOp
from memex_desktop.ui import main_window
from memex_desktop.ui.dialogs import ShortcutsDialog
from memex_desktop.ui.docked_panes import COMPACT_WIDTH, FOLDED_WIDTH
from memex_desktop.ui.main_window import FRAME_ALLOWANCE, MainWindow, first_run_sizes
from memex_desktop.ui.outbox_pane import OutboxPane
from memex_desktop.ui.search_bar import PLACEHOLDERS, FilterCombo
from memex_desktop.ui.status_bar import StatusBar

pytestmark = [
    pytest.mark.usefixtures("app_style"),
    pytest.mark.gui,
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

LAPTOP = QSize(1366, 768)
SMALLEST = QSize(960, 600)
BETWEEN = QSize(1100, 700)  # narrow enough for the side panes to share a column
# A screen larger than both sizes, for restarts: Qt fits a restored window into the screen,
# and the default offscreen screen (800×800) is smaller than either.
BIG_SCREEN = Path(__file__).resolve().parents[1] / "fixtures" / "laptop-screen.json"


def _sized(qtbot: Any, window: MainWindow, size: QSize) -> None:
    """Resize the shown window and wait until its layout has taken the size."""
    window.resize(size)
    qtbot.waitUntil(lambda: window.size() == size, timeout=5_000)
    qtbot.waitUntil(lambda: _laid_out(window), timeout=5_000)


def _laid_out(window: MainWindow) -> bool:
    """Whether the central area and the shown side docks span the window's width."""
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    right = window.centralWidget().geometry().right()
    for dock in window.findChildren(QDockWidget):
        if dock.isVisible() and not dock.isFloating():
            right = max(right, dock.geometry().right())
    return right >= window.width() - 1


def _pick_longest(combo: FilterCombo) -> str:
    """Choose the combo's longest entry; its text."""
    metrics = combo.fontMetrics()
    longest = max(range(combo.count()), key=lambda i: metrics.horizontalAdvance(combo.itemText(i)))
    combo.setCurrentIndex(longest)
    return combo.itemText(longest)


def _visible_panes(window: MainWindow) -> list[QWidget]:
    """The splitter's parts, the status bar and every docked dock that is shown."""
    panes: list[QWidget] = [window.splitter.widget(i) for i in range(window.splitter.count())]
    panes.append(window.status)
    panes += [
        dock
        for dock in window.findChildren(QDockWidget)
        if dock.isVisible() and not dock.isFloating() and not dock.visibleRegion().isEmpty()
    ]  # a tab behind another is not on screen
    return panes


def _assert_fits(window: MainWindow, size: QSize) -> None:
    """The window took ``size`` and each visible pane's minimum fits inside it."""
    assert window.size() == size
    hint = window.minimumSizeHint()
    assert hint.width() <= size.width(), f"the window needs {hint.width()} px"
    assert hint.height() <= size.height(), f"the window needs {hint.height()} px of height"
    for pane in _visible_panes(window):
        least = pane.minimumSizeHint().expandedTo(pane.minimumSize())
        assert least.width() <= pane.width(), f"{pane.objectName()} is squashed"
        assert least.height() <= pane.height(), f"{pane.objectName()} is squashed"
        assert pane.width() <= size.width()
    side = [window.thread_dock, window.graph_dock]
    if size.width() < COMPACT_WIDTH and all(dock.isVisible() for dock in side):
        # Notes and graph share one column as tabs.
        assert _tabbed(window)
    share = sum(dock.width() for dock in side if dock.isVisible())
    assert share < size.width() / 2


def _tabbed(window: MainWindow) -> bool:
    """Whether the notes and the graph are tabs of one place."""
    return window.graph_dock in window.tabifiedDockWidgets(window.thread_dock)


def _assert_filter_shows_whole_or_elided(combo: FilterCombo) -> None:
    """The choice fits its room; where it cannot, the menu is at its narrowest and elides."""
    metrics = combo.fontMetrics()
    assert metrics.horizontalAdvance(combo.shown_text()) <= combo.text_room()
    if metrics.horizontalAdvance(combo.currentText()) > combo.text_room():
        assert combo.width() < combo.sizeHint().width()  # narrower than it asked for
        assert combo.shown_text().endswith("…")
        assert combo.currentText() in combo.toolTip()
    else:
        assert combo.shown_text() == combo.currentText()


@pytest.mark.parametrize(
    "size", [SMALLEST, BETWEEN, LAPTOP], ids=["960x600", "1100x700", "1366x768"]
)
def test_the_window_takes_a_laptops_size_and_every_pane_fits(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any, size: QSize
) -> None:
    context = window_factory(library=demo_library)
    window = context.window
    _sized(qtbot, window, size)
    _assert_fits(window, size)
    side = (window.thread_dock, window.graph_dock)
    if size.width() < FOLDED_WIDTH:
        assert not any(dock.isVisible() for dock in side)  # folded away for the reader
    else:
        assert all(dock.isVisible() for dock in side)
        assert _tabbed(window) is (size.width() < COMPACT_WIDTH)
    field = window.search_bar.field
    assert field.fontMetrics().horizontalAdvance(field.placeholderText()) <= field.text_room()
    assert field.placeholderText() in PLACEHOLDERS
    bar = window.search_bar
    for combo in (bar.types, bar.tags, bar.dates):
        assert combo.count() > 1
        _pick_longest(combo)
        qtbot.waitUntil(lambda: window.results_model.rowCount() >= 0)
        _assert_filter_shows_whole_or_elided(combo)
        combo.setCurrentIndex(0)
    sidebar = window.sidebar
    model = sidebar.sidebar_model
    last = model.index(model.rowCount() - 1, 0)
    sidebar.scrollTo(last)
    rect = sidebar.visualRect(last)
    viewport = sidebar.viewport().rect()
    assert viewport.contains(rect), f"the last entry {rect} is outside {viewport}"
    text = last.data()
    bold = model.itemFromIndex(last).font()
    assert QFontMetrics(bold).horizontalAdvance(text) <= rect.width()
    assert QFontMetrics(bold).height() <= rect.height()


def test_at_a_laptops_size_the_reader_is_widest_and_the_filters_show_whole(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    context = window_factory(library=demo_library)
    window = context.window
    _sized(qtbot, window, LAPTOP)
    # What a first run on a laptop's screen lays out (the test screen is smaller).
    window.arrange_default_panes(LAPTOP.width(), LAPTOP.height())
    qtbot.waitUntil(lambda: window.splitter.sizes()[2] == window.reader_pane.width())
    _assert_fits(window, LAPTOP)
    widths = {
        "sidebar": window.sidebar.width(),
        "results": window.splitter.widget(1).width(),
        "reader": window.reader_pane.width(),
        "notes": window.thread_dock.width(),
        "graph": window.graph_dock.width(),
    }
    assert max(widths, key=widths.__getitem__) == "reader", widths
    bar = window.search_bar
    for combo, wanted in ((bar.types, "Web page"), (bar.tags, "local-first")):
        position = combo.findText(wanted)
        assert position > 0, f"{wanted!r} is not offered"
        combo.setCurrentIndex(position)
        room, needed = combo.text_room(), combo.fontMetrics().horizontalAdvance(wanted)
        assert needed <= room, f"{wanted!r} needs {needed} px, has {room}"
    for combo in (bar.types, bar.tags, bar.dates):
        _pick_longest(combo)
        _assert_filter_shows_whole_or_elided(combo)
    assert bar.dates.shown_text() == bar.dates.currentText()
    for button in window.graph_pane.findChildren(QToolButton):
        if button.isVisible():
            needed = button.fontMetrics().horizontalAdvance(button.text())
            assert needed < button.width() <= button.sizeHint().width() * 2, button.text()


def _screen_holds(size: QSize) -> bool:
    """Whether the screen's free area holds a window of ``size`` (with its frame)."""
    free = QApplication.primaryScreen().availableGeometry()
    return free.width() >= size.width() + 40 and free.height() >= size.height() + 40


def test_restarts_on_a_laptop_screen(request: pytest.FixtureRequest) -> None:
    """The restart tests, in a process whose offscreen screen is BIG_SCREEN (when this one's
    is too small: Qt fits a restored window into the screen)."""
    if _screen_holds(LAPTOP):
        pytest.skip("this screen holds the window: the restart tests ran here")
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={BIG_SCREEN}"}
    module = request.node.nodeid.split("::")[0]
    restarts = " or ".join(
        test.__name__
        for test in (
            test_hidden_panes_stay_hidden_and_sizes_come_back_after_a_restart,
            test_a_restored_outbox_leaves_the_graph_its_height,
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", module, "-k", restarts],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "6 passed" in done.stdout, done.stdout[-2000:]


def _restart(window_factory: WindowFactory, demo_library: dict[str, Any]) -> AppContext:
    """Close the window (it saves its layout) and open a new one on the same settings."""
    window_factory.built[-1].window.close()
    return window_factory(library=demo_library)


@pytest.mark.parametrize(
    ("saved", "later"),
    [(LAPTOP, SMALLEST), (SMALLEST, LAPTOP), (LAPTOP, LAPTOP), (BETWEEN, SMALLEST)],
    ids=["1366-then-960", "960-then-1366", "1366", "1100-then-960"],
)
def test_hidden_panes_stay_hidden_and_sizes_come_back_after_a_restart(
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    qtbot: Any,
    saved: QSize,
    later: QSize,
) -> None:
    if not _screen_holds(LAPTOP):
        pytest.skip("needs a laptop-sized screen: test_restarts_on_a_laptop_screen runs it")
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, LAPTOP)
    window.docks.toggle_graph()  # the person hides the graph
    assert not window.graph_dock.isVisible()
    _sized(qtbot, window, saved)
    notes_shown = saved.width() >= FOLDED_WIDTH
    assert window.thread_dock.isVisible() is notes_shown
    if notes_shown:  # the person narrows the notes
        notes_width = window.thread_dock.minimumSizeHint().width() + 30
        window.resizeDocks([window.thread_dock], [notes_width], Qt.Orientation.Horizontal)
        qtbot.waitUntil(lambda: window.thread_dock.width() == notes_width)
    before = window.splitter.sizes()
    moved = [before[0] + 7, before[1] - 7 + 13, before[2] - 13]  # a drag of each handle
    window.splitter.setSizes(moved)
    assert window.splitter.sizes() == moved
    notes = window.thread_dock.width()

    window = _restart(window_factory, demo_library).window
    qtbot.waitUntil(lambda: window.size() == saved, timeout=5_000)
    assert not window.graph_dock.isVisible()
    assert window.thread_dock.isVisible() is notes_shown
    assert window.splitter.sizes() == moved
    if notes_shown:
        assert window.thread_dock.width() == notes
    _sized(qtbot, window, later)
    assert not window.graph_dock.isVisible()
    assert window.thread_dock.isVisible() is (later.width() >= FOLDED_WIDTH)
    _assert_fits(window, later)

    window = _restart(window_factory, demo_library).window
    qtbot.waitUntil(lambda: window.size() == later, timeout=5_000)
    assert not window.graph_dock.isVisible()
    assert window.thread_dock.isVisible() is (later.width() >= FOLDED_WIDTH)
    _sized(qtbot, window, LAPTOP)
    assert not window.graph_dock.isVisible()  # hidden by the person: it stays hidden
    assert window.thread_dock.isVisible()  # folded for a narrow window: it comes back


def test_hidden_panes_stay_hidden_and_sizes_come_back_after_a_restart_when_both_folded(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    if not _screen_holds(LAPTOP):
        pytest.skip("needs a laptop-sized screen: test_restarts_on_a_laptop_screen runs it")
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, SMALLEST)
    assert not window.thread_dock.isVisible()
    assert not window.graph_dock.isVisible()
    window = _restart(window_factory, demo_library).window
    qtbot.waitUntil(lambda: window.size() == SMALLEST, timeout=5_000)
    assert not window.thread_dock.isVisible()
    assert not window.graph_dock.isVisible()
    _sized(qtbot, window, LAPTOP)
    assert window.thread_dock.isVisible()  # both folded for the narrow window: both return
    assert window.graph_dock.isVisible()
    assert not _tabbed(window)


def test_narrowing_tabs_then_folds_the_side_panes_and_widening_undoes_it(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    window = window_factory(library=demo_library).window
    thread, graph = window.thread_dock, window.graph_dock
    _sized(qtbot, window, LAPTOP)
    assert not _tabbed(window)
    _sized(qtbot, window, BETWEEN)
    assert _tabbed(window)
    assert thread.isVisible()
    _sized(qtbot, window, SMALLEST)
    assert not thread.isVisible()
    assert not graph.isVisible()
    window.docks.toggle_threads()  # the person asks for the notes in the narrow window
    assert thread.isVisible()
    _assert_fits(window, SMALLEST)
    _sized(qtbot, window, LAPTOP)
    assert not _tabbed(window)
    assert thread.isVisible()
    assert graph.isVisible()
    # The notes above the graph again, each with a share of the height.
    qtbot.waitUntil(lambda: graph.y() >= thread.y() + thread.height(), timeout=5_000)
    assert thread.x() == graph.x()
    assert min(thread.height(), graph.height()) > LAPTOP.height() / 4
    _sized(qtbot, window, SMALLEST)
    window.docks.toggle_graph()  # shown by the person while folded: no longer ours to undo
    window.docks.toggle_graph()
    _sized(qtbot, window, LAPTOP)
    assert thread.isVisible()
    assert not graph.isVisible()


def test_a_narrowed_window_keeps_each_filter_menus_first_choice_whole(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    # Narrowed from a laptop's width, the list gave up its room as the reader did, until
    # "Any tag" read "Any t…": the reader gives the rest.
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, LAPTOP)
    bar = window.search_bar
    for size in (BETWEEN, QSize(FOLDED_WIDTH, BETWEEN.height()), SMALLEST):
        _sized(qtbot, window, size)
        qtbot.waitUntil(lambda: window.splitter.sizes()[1] == window.splitter.widget(1).width())
        for combo in (bar.types, bar.tags, bar.dates):
            assert combo.currentIndex() == 0
            assert combo.shown_text() == combo.currentText(), (size, combo.shown_text())
        _assert_fits(window, size)


def test_the_shortcuts_dialog_shows_every_row_whole(qtbot: Any) -> None:
    dialog = ShortcutsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    table = dialog.table
    header = table.horizontalHeader()
    assert header.length() <= table.viewport().width()
    for row in range(table.rowCount()):
        for column in range(2):
            item = table.item(row, column)
            needed = table.fontMetrics().horizontalAdvance(item.text())
            assert needed <= header.sectionSize(column), item.text()
        description = table.item(row, 2).text()
        lines = table.fontMetrics().boundingRect(
            0, 0, header.sectionSize(2) - 8, 10_000, 0x1000, description
        )
        assert lines.height() <= table.rowHeight(row), description


def _op(op_id: int, url: str, state: str) -> OutboxOp:
    """A queued save of ``url``."""
    return OutboxOp(
        id=op_id,
        kind="save_url",
        url=url,
        normalized_url=url,
        external_id=None,
        payload=None,
        state=state,
        attempts=6 if state == "needs_attention" else 0,
        reason="HTTP 503",
        entity_id=None,
        created_at=1_764_600_000_000,
        updated_at=1_764_600_000_000,
        next_attempt_at=None,
        error_kind="server_error" if state == "needs_attention" else None,
    )


def test_the_outbox_shows_each_time_whole_and_ends_long_texts_with_an_ellipsis(
    qtbot: Any,
) -> None:
    pane = OutboxPane()
    qtbot.addWidget(pane)
    pane.resize(420, 240)
    pane.show()
    qtbot.waitExposed(pane)
    long_url = "https://clip.example.com/articles/" + "a-very-long-slug-" * 6
    pane.model.set_ops(
        [_op(1, long_url, "needs_attention"), _op(2, "https://a.example/", "queued")]
    )
    table = pane.table
    metrics = table.fontMetrics()
    for row in range(pane.model.rowCount()):
        queued_at = pane.model.index(row, 2).data()
        assert queued_at
        assert metrics.horizontalAdvance(queued_at) < table.columnWidth(2)
    assert table.textElideMode() == Qt.TextElideMode.ElideRight
    assert table.horizontalHeader().length() <= table.viewport().width()
    tips = [pane.model.index(r, 0).data(Qt.ItemDataRole.ToolTipRole) for r in (0, 1)]
    assert long_url in tips  # the whole address, where the cell ends it with "…"


def test_a_long_connection_state_never_widens_the_status_bar(qtbot: Any) -> None:
    status = StatusBar()
    qtbot.addWidget(status)
    status.resize(300, 30)
    status.show()
    qtbot.waitExposed(status)
    status.set_state(ConnectionState.AUTH_REJECTED, None)
    label = status.state_label
    long_text = label.text() + " — " + label.toolTip()
    label.setText(long_text)
    assert status.minimumSizeHint().width() <= 300
    shown = label.shown_text()
    assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
    assert shown != long_text
    assert shown.endswith("…")


def test_the_window_does_not_shrink_below_the_size_its_panes_are_laid_out_for(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    window = window_factory(library=demo_library).window
    _size, (least_width, least_height), _fills = first_run_sizes(
        window.screen().availableGeometry().size()
    )
    least = QSize(least_width, least_height)
    assert least.width() <= SMALLEST.width()
    assert least.height() <= SMALLEST.height()
    assert window.minimumSize() == least
    window.resize(640, 420)
    assert window.width() >= least.width()
    assert window.height() >= least.height()


@pytest.mark.parametrize(
    ("screen", "size", "fills"),
    [
        (QSize(1366, 768), (1350, 720), True),
        (QSize(1920, 1080), (1440, 900), False),
        (QSize(1440, 900), (1424, 852), True),
    ],
)
def test_the_first_window_and_its_frame_fit_the_screen(
    screen: QSize, size: tuple[int, int], fills: bool
) -> None:
    """Room is left for a title bar and borders: at 1366×768 the status bar was below the
    screen's edge."""
    first, least, maximized = first_run_sizes(screen)
    assert (first, maximized) == (size, fills)
    assert first[0] + FRAME_ALLOWANCE[0] <= screen.width()
    assert first[1] + FRAME_ALLOWANCE[1] <= screen.height()
    assert least[0] <= first[0]
    assert least[1] <= first[1]


def test_help_opens_the_demo_library_in_a_second_window(
    window_factory: WindowFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone who turned the welcome down can still try the app on the demo library."""
    started: list[tuple[str, list[str]]] = []

    def start(program: str, arguments: list[str]) -> bool:
        started.append((program, arguments))
        return True

    monkeypatch.setattr(main_window, "start_detached", start)
    window = window_factory().window
    shown = Emitted(window.messages.shown)
    window.actions_by_key["open_demo"].trigger()
    assert started == [main_window.demo_command()]
    assert shown.args[0].text == "Opening the demo library in a second window…"
    program, arguments = started[0]
    assert arguments[-1] == "--demo"
    # The command is one that runs: asked for its help instead, it answers.
    answer = subprocess.run(
        [program, *arguments[:-1], "--help"], capture_output=True, text=True, timeout=60
    )
    assert answer.returncode == 0
    assert "--demo" in answer.stdout


# The least height of the graph's drawing that still shows a neighbourhood with its labels.
USABLE_DRAWING = 150


@pytest.mark.parametrize("size", [LAPTOP, BETWEEN], ids=["1366x768", "1100x700"])
def test_opening_the_outbox_leaves_the_graph_and_the_notes_their_height(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any, size: QSize
) -> None:
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, size)
    window.docks.show_outbox()
    qtbot.waitUntil(lambda: window.outbox_dock.isVisible(), timeout=5_000)
    qtbot.waitUntil(lambda: _laid_out(window), timeout=5_000)
    window.graph_dock.raise_()  # a tab behind the notes in the narrower window
    qtbot.waitUntil(lambda: window.graph_pane.isVisible(), timeout=5_000)
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    assert window.graph_pane.view.height() >= USABLE_DRAWING
    window.thread_dock.raise_()
    qtbot.waitUntil(lambda: window.thread_pane.isVisible(), timeout=5_000)
    assert window.thread_dock.height() >= USABLE_DRAWING
    # The outbox has room for its saves, and the list and the reader keep theirs.
    assert window.outbox_pane.height() >= 120
    assert window.results_view.height() >= 200
    assert window.reader_pane.height() >= 300
    _assert_fits(window, size)


def test_a_restored_outbox_leaves_the_graph_its_height(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    if not _screen_holds(LAPTOP):
        pytest.skip("needs a laptop-sized screen: test_restarts_on_a_laptop_screen runs it")
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, LAPTOP)
    window.docks.show_outbox()
    qtbot.waitUntil(lambda: window.outbox_dock.isVisible(), timeout=5_000)
    # As an earlier version saved its layout: the outbox across the window's whole width.
    window.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.BottomDockWidgetArea)

    window = _restart(window_factory, demo_library).window
    qtbot.waitUntil(lambda: window.size() == LAPTOP, timeout=5_000)
    qtbot.waitUntil(lambda: window.outbox_dock.isVisible(), timeout=5_000)
    qtbot.waitUntil(lambda: _laid_out(window), timeout=5_000)
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    assert window.graph_pane.view.height() >= USABLE_DRAWING
    assert window.outbox_dock.x() + window.outbox_dock.width() <= window.graph_dock.x()


def test_narrowing_the_window_narrows_the_side_column_with_it(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    """Qt keeps docks as wide as they were and takes a narrower window's pixels from the
    central area alone: at 1100 px the reader was left 290 px, no wider than the notes."""
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, LAPTOP)
    window.arrange_default_panes(LAPTOP.width(), LAPTOP.height())  # a first run at this size
    qtbot.waitUntil(lambda: window.thread_dock.width() > 280, timeout=5_000)
    wide_side = window.thread_dock.width()
    _sized(qtbot, window, BETWEEN)
    qtbot.waitUntil(lambda: window.splitter.sizes()[2] == window.reader_pane.width())
    side = window.thread_dock.width()
    assert side <= round(wide_side * BETWEEN.width() / LAPTOP.width()) + 2
    reader, results = window.reader_pane.width(), window.splitter.widget(1).width()
    assert reader > side + 80
    assert reader > results
    _assert_fits(window, BETWEEN)


def test_widening_then_narrowing_back_gives_the_side_column_its_width_back(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    """Maximizing a window, then restoring it, left the notes and the graph narrower than
    before: going back was narrowed in proportion, as any narrowing is."""
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, LAPTOP)
    window.arrange_default_panes(LAPTOP.width(), LAPTOP.height())  # a first run at this size
    qtbot.waitUntil(lambda: window.thread_dock.width() > 280, timeout=5_000)
    before = window.thread_dock.width()
    for _ in range(2):  # maximized and back, twice
        _sized(qtbot, window, QSize(1900, 1000))
        _sized(qtbot, window, LAPTOP)
        qtbot.waitUntil(lambda: abs(window.thread_dock.width() - before) <= 2, timeout=2_000)
    _sized(qtbot, window, QSize(1900, 1000))
    _sized(qtbot, window, BETWEEN)  # narrower than it was: in proportion, from its width
    side = window.thread_dock.width()
    assert side <= round(before * BETWEEN.width() / LAPTOP.width()) + 2
    _assert_fits(window, BETWEEN)


def test_a_side_column_resized_while_wider_is_narrowed_from_that_width(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    """The width the person gives the notes in a maximized window is theirs: restoring the
    window narrows it from there, rather than bringing back the width it had before."""
    window = window_factory(library=demo_library).window
    _sized(qtbot, window, LAPTOP)
    window.arrange_default_panes(LAPTOP.width(), LAPTOP.height())
    qtbot.waitUntil(lambda: window.thread_dock.width() > 280, timeout=5_000)
    _sized(qtbot, window, QSize(1900, 1000))
    window.resizeDocks([window.thread_dock], [240], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: window.thread_dock.width() == 240, timeout=2_000)
    _sized(qtbot, window, LAPTOP)
    assert window.thread_dock.width() <= 240
