"""What a window does before its first frame, and what it leaves for after it.

The renderer (nh3, cmark-gfm), the network client and the keyring are imported after the
first frame, and no API model is built before it: a start imports and builds only what its
first frame shows.

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
from support.children import child_env
from support.window import WindowFactory

from memex_desktop import paths
from memex_desktop.store import StoreWriter
from memex_desktop.ui import search_controller, sidebar
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
# it had imported and built when the window first painted.
_FIRST_FRAME_CHILD = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication
    from memex_desktop import app, cli
    from memex_desktop.settings import Settings

    Settings().save()
    LATE = ("nh3", "cmarkgfm", "httpx", "keyring", "memex_desktop.render.entities")

    class FirstPaint(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                watched.removeEventFilter(self)
                from memex_desktop.api import models
                built = sorted(
                    cls.__name__ for cls in vars(models).values()
                    if isinstance(cls, type) and issubclass(cls, models.BaseModel)
                    and cls.__module__ == models.__name__ and cls.__pydantic_complete__
                )
                imported = sorted(name for name in LATE if name in sys.modules)
                print(json.dumps({"imported": imported, "built": built}), flush=True)
                QApplication.instance().exit(0)
            return False

    watcher = FirstPaint()
    build = app.build_main_window

    def watched(**kwargs):
        context = build(**kwargs)
        context.window.installEventFilter(watcher)
        return context

    app.build_main_window = watched
    sys.exit(cli.main(["--data-dir", sys.argv[1]]))
    """
)


def test_a_start_imports_neither_renderer_nor_network_nor_keyring_before_its_first_frame(
    tmp_path: Path, demo_library: dict[str, Any]
) -> None:
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
    assert json.loads(lines[0]) == {"imported": [], "built": []}
