"""A restart brings the person back to the sidebar entry they picked and the item they read
(kept in the window's QSettings), once the first results are painted; what is gone since
falls back quietly, a link given to the start wins, and the search starts empty."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings
from support.window import WindowFactory

from memex_desktop import app
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope, Sidebar, SidebarModel, SidebarSnapshot

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

TIMEOUT_MS = 10_000


def _tag(window: MainWindow, name: str) -> Scope:
    """The sidebar entry of the tag called ``name``."""
    tags = window.sidebar.sidebar_model.section("tags")
    for row in range(tags.rowCount()):
        scope = tags.child(row).data(SidebarModel.ScopeRole)
        if isinstance(scope, Scope) and scope.label == name:
            return scope
    raise AssertionError(f"no tag {name}")


def _ready(qtbot: Any, window: MainWindow) -> None:
    """Wait for the sidebar's entries (read on a worker after the first frame)."""
    qtbot.waitUntil(lambda: window.sidebar.snapshot is not None, timeout=TIMEOUT_MS)


def _read_in_tag(qtbot: Any, context: Any, name: str, row: int) -> tuple[Scope, str]:
    """Pick a tag in the sidebar and read its ``row``-th item, as the person does."""
    window = context.window
    _ready(qtbot, window)
    scope = _tag(window, name)
    window.sidebar.setCurrentIndex(window.sidebar.sidebar_model.index_of(scope.key))
    tagged = context.reader.ids_with_tag(scope.value or "")
    qtbot.waitUntil(lambda: window.results_model.ids() == tagged, timeout=TIMEOUT_MS)
    item = tagged[row]
    window.results_view.select_entity(item)
    qtbot.waitUntil(lambda: window.reader_pane.current_entity_id == item, timeout=TIMEOUT_MS)
    return scope, item


def _current_row(window: MainWindow) -> str | None:
    """The item of the list's current row."""
    index = window.results_view.currentIndex()
    return window.results_model.ids()[index.row()] if index.isValid() else None


def _back(qtbot: Any, window: MainWindow, scope: Scope, item: str) -> None:
    """Wait until the window shows ``scope``'s list with ``item`` read and its row marked."""
    qtbot.waitUntil(
        lambda: (
            window.sidebar.current_scope().key == scope.key
            and window.reader_pane.current_entity_id == item
            and not window.reader_pane.rendering
            and _current_row(window) == item
        ),
        timeout=TIMEOUT_MS,
    )


class _FirstPaint(QObject):
    """Notes what the window shows when it first paints."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.seen: tuple[str, str | None] | None = None

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint and self.seen is None:
            self.seen = (
                self.window.sidebar.current_scope().key,
                self.window.reader_pane.current_entity_id,
            )
        return False


def _on_build(monkeypatch: pytest.MonkeyPatch, then: Callable[[Any], None]) -> None:
    """Call ``then(context)`` on each window built, before it is shown (as the app opens a
    link it was given)."""
    build = app.build_main_window

    def built(**kwargs: Any) -> Any:
        context = build(**kwargs)
        then(context)
        return context

    monkeypatch.setattr(app, "build_main_window", built)


def test_a_restart_shows_the_entry_and_the_item_read_after_the_first_frame(
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = window_factory(library=demo_library)
    scope, item = _read_in_tag(qtbot, context, "gardening", 3)
    tagged = context.reader.ids_with_tag(scope.value or "")
    context.window.search_bar.field.setText("water")  # a search is not brought back
    qtbot.waitUntil(lambda: context.window.results_model.query == "water", timeout=TIMEOUT_MS)
    painted: list[_FirstPaint] = []

    def watch(built: Any) -> None:
        painted.append(_FirstPaint(built.window))
        built.window.installEventFilter(painted[-1])

    _on_build(monkeypatch, watch)
    window = window_factory().window  # quits the first, then starts again
    _back(qtbot, window, scope, item)
    # The first frame came first: the library as it opens, then where the person was.
    assert painted[0].seen == (ALL_ITEMS.key, None)
    assert window.search_bar.field.text() == ""
    assert window.results_model.ids() == tagged


def test_a_start_quit_before_the_place_came_back_keeps_it(
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = window_factory(library=demo_library)
    scope, item = _read_in_tag(qtbot, context, "compost", 1)
    window_factory.shutdown()
    # The next start is quit before its first frame, where the place had not come back yet.
    closed: list[Any] = []

    def close_the_first(built: Any) -> None:
        if not closed:
            closed.append(built)
            built.window.close()

    _on_build(monkeypatch, close_the_first)
    window_factory()
    window_factory.shutdown()
    window = window_factory().window
    _back(qtbot, window, scope, item)
    # And again: a start that brought the place back keeps it for the next.
    window = window_factory().window
    _back(qtbot, window, scope, item)


def test_an_entry_or_item_gone_since_falls_back_quietly(
    window_factory: WindowFactory, demo_library: dict[str, Any], qtbot: Any
) -> None:
    context = window_factory(library=demo_library)
    scope, item = _read_in_tag(qtbot, context, "gardening", 0)
    window_factory.shutdown()  # quits: the place is kept in the window's settings
    settings = QSettings(str(window_factory.qsettings_path), QSettings.Format.IniFormat)
    settings.beginGroup("places")
    groups = settings.childGroups()
    assert len(groups) == 1
    settings.setValue(f"{groups[0]}/sidebar", "tag:a-tag-deleted-since")
    settings.sync()
    # The tag is gone: All items lists everything, the item is read.
    window = window_factory().window
    qtbot.waitUntil(
        lambda: window.reader_pane.current_entity_id == item and _current_row(window) == item,
        timeout=TIMEOUT_MS,
    )
    _ready(qtbot, window)
    assert window.sidebar.current_scope() == ALL_ITEMS
    assert window.toast.isHidden()
    # The item is gone: the entry comes back, nothing is read.
    window.sidebar.setCurrentIndex(window.sidebar.sidebar_model.index_of(scope.key))
    window.reader_pane.show_entity("an-item-deleted-since")
    qtbot.waitUntil(lambda: not window.reader_pane.rendering, timeout=TIMEOUT_MS)
    context = window_factory()
    window = context.window
    qtbot.waitUntil(lambda: window.sidebar.current_scope().key == scope.key, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=TIMEOUT_MS)
    qtbot.wait(50)  # what the look-up found reaches the window
    assert window.reader_pane.current_entity_id is None
    assert "Pick an item" in window.reader_pane.browser.toPlainText()
    assert window.toast.isHidden()


def test_a_link_given_to_the_start_is_read_not_the_item_kept(
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """And in All items, which lists it: the entry of the last quit may not (a tag the
    linked item does not carry listed other items while the reader showed the link's)."""
    context = window_factory(library=demo_library)
    scope, _item = _read_in_tag(qtbot, context, "gardening", 2)
    tagged = set(context.reader.ids_with_tag(scope.value or ""))
    linked = next(i for i in context.reader.all_ids(1000) if i not in tagged)
    # memex-desktop memex://entity/ID: the app opens the link before the window shows.
    _on_build(monkeypatch, lambda built: built.window.open_entity(linked))
    restarted = window_factory()
    _back(qtbot, restarted.window, ALL_ITEMS, linked)
    qtbot.waitUntil(lambda: restarted.runner.active_count() == 0, timeout=TIMEOUT_MS)
    assert restarted.window.reader_pane.current_entity_id == linked


def test_an_entry_waits_for_the_sidebar_and_gives_way_to_a_pick(qtbot: Any) -> None:
    """The entries are read on a worker after the first frame: the entry kept is picked
    once they are in, unless the person picked another meanwhile."""

    def snapshot() -> SidebarSnapshot:
        return SidebarSnapshot(counts={"web": 3, "book": 1}, tags=[], views=[], feeds=[], deleted=0)

    sidebar = Sidebar(None, read_now=False)
    qtbot.addWidget(sidebar)
    picked: list[str] = []
    sidebar.scope_selected.connect(lambda scope: picked.append(scope.key))
    sidebar.pick_when_listed("type:book")
    assert sidebar.wanted_key == "type:book"
    sidebar.apply_snapshot(snapshot())
    assert sidebar.current_scope().key == "type:book"
    assert picked == ["type:book"]
    # Before the entries are read, the person picks Deleted upstream: that pick stays.
    sidebar = Sidebar(None, read_now=False)
    qtbot.addWidget(sidebar)
    sidebar.pick_when_listed("type:book")
    sidebar.select_scope(Scope("deleted"))
    sidebar.apply_snapshot(snapshot())
    assert sidebar.current_scope().key == "deleted:"
    # An entry gone since is not picked, quietly.
    sidebar = Sidebar(None, read_now=False)
    qtbot.addWidget(sidebar)
    sidebar.pick_when_listed("type:pdf")
    sidebar.apply_snapshot(snapshot())
    assert sidebar.current_scope() == ALL_ITEMS
    assert sidebar.wanted_key is None
