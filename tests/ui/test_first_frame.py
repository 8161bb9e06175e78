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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPoint, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QStatusTipEvent
from PySide6.QtWidgets import QApplication, QLabel
from support.caches import web_item
from support.children import child_env
from support.window import WindowFactory, command_args, seeded_cache, windows_on_screen

from memex_desktop import app, paths
from memex_desktop.app import AppContext
from memex_desktop.settings import Settings
from memex_desktop.store import StoreWriter
from memex_desktop.ui import cache_start, search_controller, sidebar
from memex_desktop.ui.cache_start import CacheChoice
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.sidebar import ALL_ITEMS, SECTIONS, SidebarModel, SidebarSnapshot

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@contextmanager
def built_in_a_frame(qtbot: Any, folder: Path) -> Iterator[AppContext]:
    """A library built in the window's frame on screen, as a returning start builds it, with
    no event handled since (a fixture's set-up would let pytest-qt handle them); shut down
    after."""
    Settings().save()
    frame = app.first_frame()
    qtbot.addWidget(frame)
    context = app.build_main_window(data_dir=folder, frame=frame, connect_once_listed=True)
    try:
        yield context
    finally:
        context.shutdown()


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


def _child_report(script: str, args: list[str], env: dict[str, str]) -> Any:
    """Run ``script`` in a child Python with ``args``; the JSON object it printed."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return json.loads(lines[0])


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
    seen = _child_report(_FIRST_FRAME_CHILD, [str(data_dir)], env)
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
    assert windows_on_screen() == []


def test_a_library_built_in_a_frame_on_screen_takes_the_keyboard_as_a_window_shown_built_does(
    qtbot: Any, tmp_path: Path
) -> None:
    """Typing right after a start went nowhere: the frame had nothing to take the keyboard."""
    Settings().save()
    built = app.build_main_window(data_dir=tmp_path / "one", connect_once_listed=True)
    qtbot.addWidget(built.window)
    frame = app.first_frame()
    qtbot.addWidget(frame)
    framed = app.build_main_window(data_dir=tmp_path / "two", frame=frame, connect_once_listed=True)
    try:
        built.window.show()
        built.window.activateWindow()
        qtbot.waitUntil(lambda: built.window.focusWidget() is not None, timeout=3000)
        expected = built.window.focusWidget().objectName()
        assert frame.focusWidget() is not None
        assert frame.focusWidget().objectName() == expected
    finally:
        framed.shutdown()
        built.shutdown()


def test_a_library_built_in_a_frame_on_screen_has_its_menu_bar_shown_at_once(
    qtbot: Any, tmp_path: Path
) -> None:
    """Made in a window on screen, a menu bar waits hidden for a later event to show it
    (under X11, after the library's first results): the library then moved down with it."""
    with built_in_a_frame(qtbot, tmp_path / "data") as context:
        frame = context.window
        assert frame.library_built
        assert frame.menuBar().isVisible()
        assert not isinstance(frame.centralWidget(), QLabel)


# Lays a library out twice on the same screen and saved layout: built before its window shows
# (as before the frame), and built in the window's frame on screen; prints both as JSON.
_LAID_OUT_CHILD = textwrap.dedent(
    """
    import json, shutil, sys
    from pathlib import Path
    from PySide6.QtCore import QSettings
    from memex_desktop import app
    from memex_desktop.ui.first_frames import show_first_frame
    from memex_desktop.ui.main_window import MainWindow

    data, saved, resize = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
    # The window resized before it shows its library (by the window manager, or the person).
    size = json.loads(sys.argv[4])
    qapp = app.create_application()

    def settle():
        for _ in range(30):
            qapp.processEvents()

    def shown_width(dock):
        return dock.width() if dock.isVisible() else None

    def laid_out(window):
        docks = window.docks
        return {
            "window": [window.width(), window.height()],
            "notes": shown_width(docks.thread_dock),
            "graph": shown_width(docks.graph_dock),
            "splitter": window.splitter.sizes(),
            "menu bar": window.menuBar().isVisible(),
        }

    if resize:  # a first session at this size, its layout saved as a quit saves it
        context = app.build_main_window(
            data_dir=data, qsettings=QSettings(str(saved), QSettings.Format.IniFormat),
            connect_once_listed=True,
        )
        context.window.show()
        context.window.resize(*resize)
        settle()
        context.window.close()
        context.shutdown()
    seen = {}
    for way in ("built, then shown", "built in its frame"):
        settings = saved.with_name(f"{way}.ini")
        if saved.exists():
            shutil.copy(saved, settings)
        qsettings = QSettings(str(settings), QSettings.Format.IniFormat)
        if way == "built, then shown":
            context = app.build_main_window(
                data_dir=data, qsettings=qsettings, connect_once_listed=True
            )
            context.window.show()
            if size:
                context.window.resize(*size)
        else:
            frame = MainWindow(qsettings=qsettings)
            show_first_frame(frame)
            if size:
                frame.resize(*size)
                settle()
            context = app.build_main_window(data_dir=data, frame=frame, connect_once_listed=True)
        settle()
        seen[way] = laid_out(context.window)
        context.shutdown()
    print(json.dumps(seen))
    """
)


@pytest.mark.parametrize(
    ("screen", "first_session", "resized"),
    [
        ((800, 600), None, None),
        ((1920, 1080), (1900, 1000), None),
        ((1920, 1080), None, (1000, 800)),
    ],
    ids=[
        "first start on a small screen",
        "a start after a session on a large screen",
        "a window resized narrow before its library shows",
    ],
)
def test_a_library_built_in_its_frame_is_laid_out_as_one_built_before_it_shows(
    tmp_path: Path,
    screen: tuple[int, int],
    first_session: tuple[int, int] | None,
    resized: tuple[int, int] | None,
) -> None:
    """The side panes fold on a small screen, and come back at the widths they were left at
    (built in a frame on screen, they were left unfolded and at twice their width)."""
    data_dir = tmp_path / "data"
    seeded_cache(
        data_dir, {"items": [web_item(number, f"Item {number}", "words") for number in range(5)]}
    )
    width, height = screen
    config = tmp_path / "screen.json"
    config.write_text(
        json.dumps({"screens": [{"name": "s", "x": 0, "y": 0, "width": width, "height": height}]})
    )
    home = tmp_path / "home"
    env = child_env(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    env["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    args = [
        str(data_dir),
        str(tmp_path / "window.ini"),
        json.dumps(first_session),
        json.dumps(resized),
    ]
    seen = _child_report(_LAID_OUT_CHILD, args, env)
    framed, shown = seen["built in its frame"], seen["built, then shown"]
    if resized:  # shown, the panes were shared out for the first-run size, then narrowed
        framed_splitter, shown_splitter = framed.pop("splitter"), shown.pop("splitter")
        assert sum(framed_splitter) == sum(shown_splitter)
        assert max(framed_splitter) == framed_splitter[-1]  # the reader widest
    assert framed == shown
    assert framed["menu bar"]


def test_a_message_said_as_the_library_is_built_in_its_frame_covers_the_state(
    qtbot: Any, tmp_path: Path
) -> None:
    """A start with its connection at hand (the demo's) syncs at once: "Syncing…" was drawn
    with the connection state over it, shown a moment later by Qt."""
    with built_in_a_frame(qtbot, tmp_path / "data") as context:
        status = context.window.status
        status.on_sync_started()  # as the sync a connected start begins at once says
        for _ in range(20):
            QApplication.processEvents()
        assert status.currentMessage()
        assert not status.state_label.isVisible()


def test_a_window_left_smaller_than_a_small_screen_comes_back_at_that_size(
    qtbot: Any, tmp_path: Path
) -> None:
    """A screen smaller than the first-run size (1440×900) is filled at a first run only: the
    window came back maximized whatever size it was left at."""
    qsettings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    first = MainWindow(qsettings=qsettings)
    qtbot.addWidget(first)
    screen = first.screen().availableGeometry()
    assert screen.width() < 1440 or screen.height() < 900  # the tests' screen
    assert first.isMaximized()
    first.setWindowState(Qt.WindowState.WindowNoState)
    first.setGeometry(4, 30, 790, 650)
    qsettings.setValue("window/geometry", first.saveGeometry())
    again = MainWindow(qsettings=qsettings)
    qtbot.addWidget(again)
    assert not again.isMaximized()
    assert (again.width(), again.height()) == (790, 650)


def test_a_library_built_in_its_frame_first_paints_its_lists_laid_out(
    app_style: None, qtbot: Any, tmp_path: Path
) -> None:
    """A window on screen paints before the lists' own layout comes round: the sidebar's
    first frame had cramped rows (14 pixels where its style gives 22). (The app's style
    sheet is set first, as a start sets it: its paddings make the rows.)"""
    del app_style
    with built_in_a_frame(qtbot, tmp_path / "data") as context:
        sidebar = context.window.sidebar
        model = sidebar.model()
        first = [sidebar.visualRect(model.index(row, 0)).height() for row in range(3)]
        for _ in range(20):
            QApplication.processEvents()
        assert first == [sidebar.visualRect(model.index(row, 0)).height() for row in range(3)]


def test_a_window_closed_while_its_library_is_opened_ends_the_start(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frame answers the window system while an older cache is brought up to date: the
    person may close it then, and the library was built and shown again regardless."""
    Settings().save()
    folder = tmp_path / "data"

    def closed_meanwhile(_cache: Path) -> None:
        for window in windows_on_screen():
            window.close()

    monkeypatch.setattr(app, "bring_cache_up_to_date", closed_meanwhile)
    assert app.open_window(command_args(folder)) == 0
    qtbot.wait(50)  # the frame's deletion, queued
    assert windows_on_screen() == []
    assert not paths.cache_db_path(folder).exists()  # nothing was opened
