"""What a window does before its first frame, and what it leaves for after it.

A start paints the window's frame ("Opening the library…") before it imports the store, the
sync and the panes, then builds the library in that same window; the renderer (nh3,
cmark-gfm), the network client and the keyring are imported after the library is on screen,
and no API model is built before it. The frame takes nothing before its library is built (a
drop, a hint, a close that would save an empty layout), and a start that ends over a cache it
cannot open leaves no frame behind.

Counting a large cache by type and tag takes tenths of a second at a million items: the
window reads the sidebar on a worker and shows it when the read lands, sections open.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPoint, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QStatusTipEvent
from PySide6.QtWidgets import QApplication, QLabel
from support.children import child_env
from support.window import WindowFactory, command_args

from memex_desktop import app, paths
from memex_desktop.settings import Settings
from memex_desktop.store import StoreWriter
from memex_desktop.ui import cache_start, search_controller, sidebar
from memex_desktop.ui.cache_start import CacheChoice
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.sidebar import ALL_ITEMS, SECTIONS, SidebarModel, SidebarSnapshot

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def test_the_window_counts_its_library_on_a_worker_and_shows_the_counts(
    window_factory: WindowFactory,
    demo_library: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_on: list[bool] = []
    read = sidebar.read_sidebar_snapshot

    def recorded(reader: Any) -> SidebarSnapshot:
        read_on.append(threading.current_thread() is threading.main_thread())
        return read(reader)

    monkeypatch.setattr(sidebar, "read_sidebar_snapshot", recorded)
    monkeypatch.setattr(search_controller, "read_sidebar_snapshot", recorded)
    context = window_factory(library=demo_library)  # shown, once its reads have landed
    assert read_on == [False]  # one read, off the GUI thread
    window = context.window
    model = window.sidebar.sidebar_model
    everything = sum(context.reader.counts_by_type().values())
    all_items = model.index_of(ALL_ITEMS.key)
    assert all_items.data() == f"All items  ({everything:,})"
    assert window.sidebar.current_scope() == ALL_ITEMS
    for row in range(model.rowCount()):
        section = model.index(row, 0)
        if model.hasChildren(section):
            assert window.sidebar.isExpanded(section), section.data()
    tags_section = model.index([key for key, _title in SECTIONS].index("tags"), 0)
    tags = [model.index(row, 0, tags_section) for row in range(model.rowCount(tags_section))]
    assert tags
    assert all(index.data(SidebarModel.ScopeRole).kind == "tag" for index in tags)
    assert window.search_bar.tags.count() > 1  # the filters got the same read's tags


# A start as ``memex-desktop --data-dir`` makes it for a returning person, which reports what
# it had imported when the window's frame first painted, what it had imported and built when
# the window first painted its library, and whether both were the same window.
_FIRST_FRAME_CHILD = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication, QLabel
    from memex_desktop import app, cli
    from memex_desktop.settings import Settings

    Settings().save()
    # Imported after the frame: the store's reader and writer (pydantic models, sqlite-utils),
    # the sync engine, the panes.
    AFTER_FRAME = (
        "memex_desktop.store.reader", "memex_desktop.store.writer", "memex_desktop.sync.engine",
        "memex_desktop.api.models", "sqlite_utils", "memex_desktop.ui.reader_pane",
        "memex_desktop.ui.graph_pane", "memex_desktop.ui.docked_panes",
    )
    # Imported after the library is on screen: the renderer, the network, the keyring.
    AFTER_LIBRARY = ("nh3", "cmarkgfm", "httpx", "keyring", "memex_desktop.render.entities")
    seen = {}

    class FrameFirstPaint(QObject):
        def eventFilter(self, watched, event):
            if (
                event.type() == QEvent.Type.Paint
                and watched.isWidgetType()
                and watched.window().objectName() == "mainwindow"
            ):
                QApplication.instance().removeEventFilter(self)
                window = watched.window()
                central = window.centralWidget()
                seen["frame"] = {
                    "window": id(window),
                    "says": central.text() if isinstance(central, QLabel) else None,
                    "imported": sorted(name for name in AFTER_FRAME if name in sys.modules),
                }
            return False

    class LibraryFirstPaint(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                watched.removeEventFilter(self)
                from memex_desktop.api import models
                built = sorted(
                    cls.__name__ for cls in vars(models).values()
                    if isinstance(cls, type) and issubclass(cls, models.BaseModel)
                    and cls.__module__ == models.__name__ and cls.__pydantic_complete__
                )
                imported = sorted(name for name in AFTER_LIBRARY if name in sys.modules)
                seen["library"] = {"window": id(watched), "imported": imported, "built": built}
                print(json.dumps(seen), flush=True)
                QApplication.instance().exit(0)
            return False

    frame_watcher = FrameFirstPaint()
    library_watcher = LibraryFirstPaint()
    build = app.build_main_window
    create = app.create_application

    def watched(**kwargs):
        context = build(**kwargs)
        context.window.installEventFilter(library_watcher)
        return context

    def created():
        application = create()
        application.installEventFilter(frame_watcher)
        return application

    app.build_main_window = watched
    app.create_application = created
    sys.exit(cli.main(["--data-dir", sys.argv[1]]))
    """
)


def test_a_start_paints_its_frame_before_the_store_and_panes_then_its_library_in_it(
    tmp_path: Path, demo_library: dict[str, Any]
) -> None:
    """Nor are the renderer, the network or the keyring imported, or any API model built,
    before the library is on screen."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    with StoreWriter(paths.cache_db_path(data_dir)) as writer:
        writer.ingest_json(demo_library["results"]).result(60)
    home = tmp_path / "home"
    env = child_env(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_FRAME_CHILD, str(data_dir)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr
    seen = json.loads(lines[0])
    assert seen["frame"]["says"] == "Opening the library…"
    assert seen["frame"]["imported"] == []
    assert seen["library"]["window"] == seen["frame"]["window"]
    assert seen["library"]["imported"] == []
    assert seen["library"]["built"] == []


def test_a_frame_takes_no_drop_hint_or_layout_work_and_closes_keeping_the_saved_layout(
    qtbot: Any, tmp_path: Path
) -> None:
    qsettings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    qsettings.setValue("window/state", "kept as it was")
    frame = MainWindow(qsettings=qsettings)
    qtbot.addWidget(frame)
    frame.show()
    qtbot.waitExposed(frame)
    assert isinstance(frame.centralWidget(), QLabel)
    frame.resize(1000, 700)
    QApplication.sendEvent(frame, QStatusTipEvent("a hint"))
    links = QMimeData()
    links.setUrls([QUrl("https://example.org/dropped")])
    drag = QDragEnterEvent(
        QPoint(10, 10),
        Qt.DropAction.CopyAction,
        links,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    drag.ignore()
    QApplication.sendEvent(frame, drag)
    assert not drag.isAccepted()  # no library yet to save a link in
    assert frame.close()
    assert qsettings.value("window/state") == "kept as it was"


def test_a_start_that_ends_over_a_cache_it_cannot_open_leaves_no_frame(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Settings().save()
    folder = tmp_path / "data"
    folder.mkdir()
    paths.cache_db_path(folder).write_bytes(b"not a database at all " * 300)
    monkeypatch.setattr(cache_start, "ask_about_cache", lambda *_args: CacheChoice.QUIT)
    assert app.open_window(command_args(folder)) == 1
    qtbot.wait(50)  # the frame's deletion, queued
    frames = [
        widget
        for widget in QApplication.topLevelWidgets()
        if isinstance(widget, MainWindow) and widget.isVisible()
    ]
    assert frames == []


def test_a_library_built_in_a_frame_on_screen_has_its_menu_bar_shown_at_once(
    qtbot: Any, tmp_path: Path
) -> None:
    """Made in a window on screen, a menu bar waits hidden for a later event to show it
    (under X11, after the library's first results): the library then moved down with it."""
    Settings().save()
    frame = app.first_frame()
    qtbot.addWidget(frame)
    context = app.build_main_window(
        data_dir=tmp_path / "data", frame=frame, connect_once_listed=True
    )
    try:
        assert context.window is frame
        assert frame.menuBar().isVisible()
        assert not isinstance(frame.centralWidget(), QLabel)
    finally:
        context.shutdown()
