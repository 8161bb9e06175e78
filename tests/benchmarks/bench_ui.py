"""Desktop window benchmark on a large cache: cold start, keystroke latency, scrolling.

Measures, with a cache of ``entities`` synthetic items built once through the store's writer:
``cold_start_ms`` (a new process started as ``memex-desktop --data-dir`` starts it for a person
who has used the app before, from its start to the first painted window, with the app's
bytecode compiled as an installed app has it; median of three: the window's frame, which a
start paints before it builds the panes), ``cold_start_results_ms`` (the same starts, until the
window has painted its first results: the library on screen), ``cold_start_idle_ms`` (the
same starts, until the window is idle: its full list read, connected, nothing on a worker),
``keystroke_p95_ms`` and ``keystroke_p50_ms`` (typing one character in the search field to the
results model showing the new results, debounce excluded: the first page, the full list follows),
``keystroke_painted_p95_ms`` and ``keystroke_painted_p50_ms`` (the same, until the results list
has laid out and painted the new results: the list lays its rows out on a timer after its model
changes, and a paint before that draws no rows), ``scroll_100k_ms`` (the full results list swept
from top to bottom: 50 evenly spaced positions and the last row, each painted with its rows loaded
lazily), ``scroll_top_to_end_ms`` (one jump from the first row to the last, painted),
``follow_scattered_ms`` (600 items coming into the full list at 600 places, as a sync's pages do
while the list follows the cache, until every row is in: the window's time), and
``window_rss_mb`` (the resident memory of a cold-started window once it has opened the cache
and listed it; median of three), and ``reading_rss_mb`` (the same after a reading session: 300
items opened one after another, every pane done with each; one start).

``cold_start_ms_floor``: a bare PySide6 ``QMainWindow`` with an empty ``QListView``, from a new
process's start to its first paint (median of three), what any Qt window on this machine costs.

The keystroke and scroll measures set up the application as ``memex-desktop`` does
(``app.create_application``: names, icon and the app's stylesheet), so what is timed is the
window people see. A bare
QApplication would time Qt's default (Fusion) scroll bar instead of the app's, and its
gradient groove, filled on Qt's own thread pool, costs about a millisecond per scroll step
on two cores.
"""

from __future__ import annotations

import itertools
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time
from typing import Any

from memex_desktop.emulator.kept_libraries import prepared_library
from memex_desktop.store import StoreWriter

BATCH = 1_000
KEYSTROKE_QUERIES = ("lorem", "note", "tum", "cal", "gro", "py ria", "bria")
SCROLL_STOPS = 50
COLD_STARTS = 3
# Items a sync brings into the full list at as many places, for ``follow_scattered_ms``.
FOLLOWED_ITEMS = 600
# Items opened one after another, every pane done with each, for ``reading_rss_mb``.
READ_ITEMS = 300

# The child process of the cold-start measure: starts the app as ``memex-desktop --data-dir``
# does (a returning person: the settings file exists), watching the window that start builds.
# It prints the monotonic time of the window's first paint (its frame: CLOCK_MONOTONIC is
# shared by processes), of its first results painted, then, once the window is idle (its
# list complete, the start's deferred work done, no task on a worker), that time and its
# resident memory; given a number of items,
# it then opens that many, newest first, each once every pane is done with the one before,
# and prints its resident memory after them.
_COLD_START = """
import sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
from memex_desktop import app, cli
from memex_desktop.ui.first_frames import after_first_results

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

class FirstPaint(QObject):
    # Watches the whole application: a start paints the window's frame before it builds
    # the window's panes (and before build_main_window is called).
    painted = None
    window = None

    def eventFilter(self, watched, event):
        if (
            event.type() == QEvent.Type.Paint
            and self.painted is None
            and watched.isWidgetType()
            and watched.window().objectName() == "mainwindow"
        ):
            self.painted = time.monotonic()
            print("painted", self.painted, flush=True)
            # Watching every event of the application costs the rest of the start.
            QApplication.instance().removeEventFilter(self)
            poll.start(5)
        return False

def listed():
    window = watcher.window
    if window is None or not results_shown:
        return
    if window.runner.active_count() == 0 and window.results_model.rowCount() > 0:
        poll.stop()
        print("idle", time.monotonic(), flush=True)
        print("rss_mb", rss_mb(), flush=True)
        if to_read:
            reading.start(2)
        else:
            QApplication.instance().exit(0)

def read_next():
    # The next item once every pane is done with the one before, as a person reads.
    window = watcher.window
    if window.runner.active_count() or window.reader_pane.rendering:
        return
    if not to_read:
        reading.stop()
        print("reading_rss_mb", rss_mb(), flush=True)
        QApplication.instance().exit(0)
        return
    window.open_entity(to_read.pop())

def results_painted():
    results_shown.append(True)
    print("results", time.monotonic(), flush=True)

def build_watched(**kwargs):
    context = build(**kwargs)
    watcher.window = context.window
    after_first_results(context.window, results_painted)
    to_read.extend(reversed(context.reader.all_ids(int(sys.argv[2]))))
    return context

def create_watched():
    application = create()
    application.installEventFilter(watcher)
    return application

build = app.build_main_window
app.build_main_window = build_watched
create = app.create_application
app.create_application = create_watched
watcher = FirstPaint()
poll = QTimer()
poll.timeout.connect(listed)
to_read = []
results_shown = []
reading = QTimer()
reading.timeout.connect(read_next)
sys.exit(cli.main(["--data-dir", sys.argv[1]]))
"""

# The floor of the cold start: a bare Qt window with an empty list, to its first paint.
_BARE_WINDOW = """
import time
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QListView, QMainWindow

class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            print("painted", time.monotonic(), flush=True)
            QApplication.instance().exit(0)
        return False

app = QApplication([])
window = QMainWindow()
window.setCentralWidget(QListView())
window.resize(1440, 900)
watcher = FirstPaint()
window.installEventFilter(watcher)
window.show()
app.exec()
"""


def build_cache(data_dir: pathlib.Path, entities: int) -> int:
    """Write a synthetic library of ``entities`` items into data_dir/cache.db; rows written."""
    from memex_desktop import paths

    prepared = prepared_library(entities, seed=3, words_per_entity=40)
    tags = prepared.extras()["referencedTags"]
    data_dir.mkdir(parents=True, exist_ok=True)
    writer = StoreWriter(paths.cache_db_path(data_dir))
    written = 0
    try:
        # Newest first, as a full sync fills the cache: its recency keys then grow in
        # order, and the cache is laid out as a synced one is (built twice as fast at a
        # million items: 325 s instead of 659 s in file order).
        entities_of = prepared.newest_first()
        while batch := list(itertools.islice(entities_of, BATCH)):
            writer.ingest_json(batch, tags=tags if written == 0 else []).result()
            written += len(batch)
        writer.flush_index().result()
        # Left as the writer leaves a cache once a sync is over and writes stop (merged,
        # packed, its words listed, compacted), else the window's writer would do that
        # work while the measures run.
        for settle in (writer.merge_index, writer.pack_now, writer.list_terms):
            settle().result()
        writer.compact_now().result()
    finally:
        writer.close()
    return written


def _first_paints(
    argv: list[str], workdir: pathlib.Path, starts: int = COLD_STARTS
) -> list[dict[str, float]]:
    """Run a window program ``starts`` times in one home folder (whose settings file says a
    person has used the app before): for each, what it printed, its times (``painted``,
    ``idle``) as milliseconds from the process's start."""
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    env["HOME"] = str(workdir / "home")
    env["XDG_CONFIG_HOME"] = str(workdir / "home" / ".config")
    _with_bytecode(env)
    subprocess.run(
        [sys.executable, "-c", "from memex_desktop.settings import Settings; Settings().save()"],
        env=env,
        timeout=300,
        check=True,
    )
    runs = []
    for _ in range(starts):
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=True,
        )
        printed = dict(line.split() for line in done.stdout.splitlines() if line.strip())
        run = {name: float(value) for name, value in printed.items()}
        for name in ("painted", "results", "idle"):
            if name in run:
                run[name] = (run[name] - started) * 1000
        runs.append(run)
    return runs


def _with_bytecode(env: dict[str, str]) -> None:
    """Give the timed processes the app's compiled bytecode, as an installed app has it.

    Where the environment says not to write bytecode (``PYTHONDONTWRITEBYTECODE``), every
    start would compile the app's sources again, 0.3 to 0.5 s that no installed copy spends;
    they are compiled once (beside the sources, as Python does) before the first start.
    """
    import memex_desktop

    env.pop("PYTHONDONTWRITEBYTECODE", None)
    package = pathlib.Path(memex_desktop.__file__).parent
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(package)],
        env=env,
        capture_output=True,
        timeout=300,
        check=False,  # a read-only checkout: the starts compile, as they did
    )


def cold_start(data_dir: pathlib.Path, workdir: pathlib.Path) -> dict[str, float]:
    """Medians of three cold starts of the window on the cache and of a bare Qt window, and
    the memory of one more start after a reading session."""
    window = _first_paints([_COLD_START, str(data_dir), "0"], workdir)
    bare = _first_paints([_BARE_WINDOW], workdir)
    [session] = _first_paints([_COLD_START, str(data_dir), str(READ_ITEMS)], workdir, starts=1)
    return {
        "cold_start_ms": statistics.median(run["painted"] for run in window),
        "cold_start_ms_floor": statistics.median(run["painted"] for run in bare),
        "cold_start_results_ms": statistics.median(run["results"] for run in window),
        "cold_start_idle_ms": statistics.median(run["idle"] for run in window),
        "window_rss_mb": statistics.median(run["rss_mb"] for run in window),
        "reading_rss_mb": session["reading_rss_mb"],
    }


def _wait(app: Any, condition: Any, timeout_s: float = 60.0) -> None:
    """Process events until ``condition()`` holds."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the window did not get there in time")
        app.processEvents()


def window_measures(data_dir: pathlib.Path, workdir: pathlib.Path) -> dict[str, float]:
    """Keystroke latency and scrolling in a window on the cache (this process)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QAbstractSlider

    from memex_desktop.app import build_main_window, create_application
    from memex_desktop.runtime import favour_the_gui_thread, settle_garbage_collector
    from memex_desktop.ui.garbage_collector import collect_garbage_on_this_thread

    favour_the_gui_thread()  # the process tuning run_gui applies
    app = create_application()
    collect_garbage_on_this_thread(app)
    settings = QSettings(str(workdir / "window.ini"), QSettings.Format.IniFormat)
    context = build_main_window(data_dir=data_dir, qsettings=settings, sync_on_start=False)
    settle_garbage_collector()
    window = context.window
    try:
        window.show()
        applied: list[int] = []
        window.search_applied.connect(applied.append)
        # The first page shows at once; the full list follows: wait for both.
        _wait(app, lambda: bool(applied) and context.runner.active_count() == 0)
        rows = window.results_model.rowCount()

        latencies = []
        painted = []
        field = window.search_bar.field
        for query in KEYSTROKE_QUERIES:
            field.clear()
            for char in query:
                count = len(applied)
                started = time.perf_counter()
                field.insert(char)
                window.search_bar.flush()  # the debounce is a choice, not latency
                _wait(app, lambda count=count: len(applied) > count)
                latencies.append((time.perf_counter() - started) * 1000)
                _wait(app, lambda: _first_row_laid_out(window.results_view))
                window.results_view.viewport().repaint()
                painted.append((time.perf_counter() - started) * 1000)

        field.clear()
        count = len(applied)
        window.search_bar.flush()
        _wait(
            app,
            lambda: (
                len(applied) > count
                and context.runner.active_count() == 0
                and window.results_model.rowCount() == rows
            ),
        )
        view = window.results_view
        bar = view.verticalScrollBar()
        # The list lays its rows out in batches between events: sweep the whole range.
        full_range = rows * view.sizeHintForRow(0) - view.viewport().height()
        _wait(app, lambda: bar.maximum() >= full_range)
        view.scrollToTop()
        view.viewport().repaint()
        started = time.perf_counter()
        for stop in range(1, SCROLL_STOPS + 1):
            bar.setValue(bar.maximum() * stop // SCROLL_STOPS)
            bar.triggerAction(QAbstractSlider.SliderAction.SliderPageStepAdd)
            view.viewport().repaint()
            app.processEvents()
        view.scrollToBottom()
        view.viewport().repaint()
        app.processEvents()
        scroll_ms = (time.perf_counter() - started) * 1000
        assert bar.value() == bar.maximum()
        view.scrollToTop()
        view.viewport().repaint()
        started = time.perf_counter()
        view.scrollToBottom()
        view.viewport().repaint()
        app.processEvents()
        jump_ms = (time.perf_counter() - started) * 1000
        follow_ms = _follow_scattered(app, window.results_model)
    finally:
        context.shutdown()
        window.deleteLater()
        app.processEvents()
    return {
        "keystroke_p50_ms": statistics.median(latencies),
        "keystroke_p95_ms": _p95(latencies),
        "keystroke_painted_p50_ms": statistics.median(painted),
        "keystroke_painted_p95_ms": _p95(painted),
        "scroll_100k_ms": scroll_ms,
        "scroll_top_to_end_ms": jump_ms,
        "follow_scattered_ms": follow_ms,
        "results_rows": float(rows),
    }


def _follow_scattered(app: Any, model: Any) -> float:
    """The window's time to take in FOLLOWED_ITEMS items landing one by one between those
    listed, as a sync's pages do when the list's order is not theirs (the list follows the
    cache while a sync runs), until every row is in; milliseconds."""
    ids = model.ids()
    step = max(1, len(ids) // FOLLOWED_ITEMS)
    model.update_ids([i for r, i in enumerate(ids) if r % step != step // 2])
    _wait(app, lambda: model.rowCount() < len(ids))
    started = time.perf_counter()
    model.update_ids(ids)
    _wait(app, lambda: model.rowCount() == len(ids))
    return (time.perf_counter() - started) * 1000


def _first_row_laid_out(view: Any) -> bool:
    """Whether the list's layout has placed its first row at the top (or it has no rows)."""
    from PySide6.QtCore import QPoint

    top_row = QPoint(view.viewport().width() // 2, 1)
    return view.model().rowCount() == 0 or view.indexAt(top_row).isValid()


def _p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank) of the values."""
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * 0.95 + 0.5) - 1)]


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Build a cache of ``entities`` items, then time cold start, keystrokes and scrolling."""
    data_dir = workdir / "data"
    started = time.perf_counter()
    build_cache(data_dir, entities)
    measures = {"cache_build_s": time.perf_counter() - started}  # the library's time included
    measures.update(cold_start(data_dir, workdir))
    measures.update(window_measures(data_dir, workdir))
    return measures


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
        print(json.dumps(run(pathlib.Path(folder), count), indent=2))
