"""A start over a cache that needs work or cannot be opened, as ``memex-desktop`` starts.

An older cache is brought up to date on a thread of its own while the window system is
answered; a damaged cache, or one a newer version wrote, is explained, and either kept aside
for a fresh start or left untouched when the person quits.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QProgressBar
from support.caches import as_newer_schema, as_schema_8, web_item
from support.window import command_args, windows_on_screen

from memex_desktop import app, paths
from memex_desktop.app import OpenedWindow, open_window
from memex_desktop.empty_states import FRESH_CACHE
from memex_desktop.errors import FreshCacheOffer, fresh_cache_offer
from memex_desktop.settings import Settings
from memex_desktop.store import CacheReader, StoreWriter, ingest, schema
from memex_desktop.store.errors import (
    DatabaseCorruptError,
    DatabaseLockedError,
    KnownStoreError,
    SchemaTooNewError,
)
from memex_desktop.store.schema import FIRST_KEY, KEY_STEP, MIGRATIONS, SCHEMA_VERSION
from memex_desktop.ui import cache_start, search_controller
from memex_desktop.ui.cache_start import Advance, CacheChoice, run_with_progress

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

ITEMS = 30


class Person:
    """Answers the dialog about a cache that cannot be opened, and remembers what it saw."""

    def __init__(self, *answers: CacheChoice) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[BaseException, FreshCacheOffer | None]] = []
        self.before_answer: Callable[[], None] = lambda: None

    def __call__(
        self, exc: BaseException, offer: FreshCacheOffer | None, parent: Any = None
    ) -> CacheChoice:
        self.asked.append((exc, offer))
        self.before_answer()
        return self.answers.pop(0)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data folder of a person who has used the app before (their settings exist)."""
    Settings().save()
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def start(qtbot: Any, data_dir: Path) -> Iterator[Callable[[], OpenedWindow | int]]:
    """``start()``: the window as ``memex-desktop --data-dir`` opens it; shut down after."""
    opened: list[OpenedWindow] = []

    def open_as_the_command_does() -> OpenedWindow | int:
        result = open_window(command_args(data_dir))
        if isinstance(result, OpenedWindow):
            qtbot.addWidget(result.context.window)
            opened.append(result)
        return result

    yield open_as_the_command_does
    for result in opened:
        result.context.shutdown()


def _person(monkeypatch: pytest.MonkeyPatch, *answers: CacheChoice) -> Person:
    person = Person(*answers)
    monkeypatch.setattr(cache_start, "ask_about_cache", person)
    return person


def _cache_of(data_dir: Path) -> Path:
    return paths.cache_db_path(data_dir)


def _fill(data_dir: Path) -> None:
    writer = StoreWriter(_cache_of(data_dir))
    try:
        items = [web_item(number, f"Item {number}", "words") for number in range(ITEMS)]
        writer.ingest_json(items).result(30)
        writer.flush_index().result(30)
    finally:
        writer.close()


def _writer_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if "writer" in thread.name.lower()]


# --------------------------------------------------------------------------- run_with_progress


def test_slow_work_runs_on_its_own_thread_with_a_busy_dialog_and_events_answered(
    qtbot: Any,
) -> None:
    ran_on: list[threading.Thread] = []
    ticks: list[float] = []
    shown: list[bool] = []

    def work() -> None:
        ran_on.append(threading.current_thread())
        time.sleep(0.6)

    def look() -> None:
        ticks.append(time.monotonic())
        shown.append(_busy_shown())

    ticker = QTimer()
    ticker.timeout.connect(look)
    ticker.start(20)
    run_with_progress(work, "Working", show_after_ms=100)
    ticker.stop()
    assert ran_on
    assert ran_on[0] is not threading.main_thread()
    assert len(ticks) >= 10  # the GUI thread kept handling its timers meanwhile
    assert any(shown)  # after 100 ms the dialog said why the start takes longer
    assert not _busy_shown()


def test_quick_work_shows_no_dialog_and_its_error_comes_back(qtbot: Any) -> None:
    shown: list[bool] = []
    ticker = QTimer()
    ticker.timeout.connect(lambda: shown.append(_busy_shown()))
    ticker.start(5)

    def work() -> None:
        time.sleep(0.05)
        raise DatabaseCorruptError("damaged")

    with pytest.raises(DatabaseCorruptError, match="damaged"):
        run_with_progress(work, "Working", show_after_ms=2000)
    ticker.stop()
    assert shown
    assert not any(shown)


def test_the_dialog_fills_its_bar_as_far_as_the_work_says(qtbot: Any) -> None:
    advance = Advance()
    seen: list[tuple[int, int, bool]] = []

    def work() -> None:
        time.sleep(0.3)  # busy until the work says how far it has come
        advance.report(1, 4)
        time.sleep(0.3)
        advance.report(3, 4)
        time.sleep(0.3)

    def look() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, cache_start._Busy) and widget.isVisible():
                bar = widget.findChild(QProgressBar)
                seen.append((bar.maximum(), bar.value(), bar.isTextVisible()))

    ticker = QTimer()
    ticker.timeout.connect(look)
    ticker.start(20)
    run_with_progress(work, "Working", show_after_ms=100, advance=advance)
    ticker.stop()
    assert seen[0][0] == 0  # busy at first
    assert (1000, 250, True) in seen
    assert (1000, 750, True) in seen
    assert not _busy_shown()


def _busy_shown() -> bool:
    """Whether a busy dialog is on screen."""
    return any(
        isinstance(widget, cache_start._Busy) and widget.isVisible()
        for widget in QApplication.topLevelWidgets()
    )


# --------------------------------------------------------------------------- starts


def test_an_older_cache_is_brought_up_to_date_off_the_gui_thread(
    qtbot: Any, data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    _fill(data_dir)
    as_schema_8(_cache_of(data_dir))
    migrated_on: list[threading.Thread] = []
    last = MIGRATIONS[-1]

    def recorded(db: Any) -> None:
        migrated_on.append(threading.current_thread())
        last(db)

    monkeypatch.setattr(schema, "MIGRATIONS", [*MIGRATIONS[:-1], recorded])
    person = _person(monkeypatch)
    opened = start()
    assert isinstance(opened, OpenedWindow)
    assert [thread.name for thread in migrated_on] == ["cache-upgrade"]
    assert not person.asked
    conn = sqlite3.connect(_cache_of(data_dir))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    model = opened.context.window.results_model
    qtbot.waitUntil(lambda: model.rowCount() == ITEMS, timeout=10_000)


def test_a_cache_out_of_date_order_is_re_keyed_at_start_and_says_how_far_it_has_come(
    qtbot: Any, data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    def newest_lowest(_db: Any, created: Sequence[int | None]) -> list[int]:
        return [FIRST_KEY + KEY_STEP * (len(created) - rank) for rank in range(len(created))]

    with monkeypatch.context() as patch:
        patch.setattr(ingest, "assign_keys", newest_lowest)  # every key out of date order
        _fill(data_dir)
    conn = sqlite3.connect(_cache_of(data_dir))
    conn.execute("PRAGMA user_version = 9")
    conn.commit()
    conn.close()
    reported: list[tuple[int, int]] = []
    heard = Advance.report

    def recorded(self: Advance, done: int, total: int) -> None:
        reported.append((done, total))
        heard(self, done, total)

    monkeypatch.setattr(Advance, "report", recorded)
    opened = start()
    assert isinstance(opened, OpenedWindow)
    assert reported[-1][0] == reported[-1][1] > 0
    with CacheReader(_cache_of(data_dir)) as reader:
        newest = [f"item-{number:04d}" for number in reversed(range(ITEMS))]
        assert reader.search_ids("words", sort="newest") == newest
    model = opened.context.window.results_model
    qtbot.waitUntil(lambda: model.rowCount() == ITEMS, timeout=10_000)


def test_a_damaged_cache_is_kept_aside_and_a_fresh_one_started(
    qtbot: Any, data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    cache = _cache_of(data_dir)
    damaged = b"not a database at all " * 300
    cache.write_bytes(damaged)
    person = _person(monkeypatch, CacheChoice.FRESH)
    opened = start()
    assert isinstance(opened, OpenedWindow)
    [(exc, offer)] = person.asked
    assert isinstance(exc, DatabaseCorruptError)
    assert offer is not None
    assert offer.why == "damaged"
    [kept] = data_dir.glob("cache.db.damaged-*[0-9]")
    assert kept.read_bytes() == damaged
    assert cache.read_bytes().startswith(b"SQLite format 3")
    toast = opened.context.window.toast
    qtbot.waitUntil(lambda: kept.name in toast.text(), timeout=5000)
    assert "fresh cache" in toast.text()
    assert toast.stays()  # a file named, what became of the library: until it is closed


def test_quitting_over_a_damaged_cache_leaves_it_untouched_and_no_thread_behind(
    data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    cache = _cache_of(data_dir)
    damaged = b"not a database at all " * 300
    cache.write_bytes(damaged)
    writers_before = len(_writer_threads())
    _person(monkeypatch, CacheChoice.QUIT)
    assert start() == 1
    assert cache.read_bytes() == damaged
    assert sorted(path.name for path in data_dir.iterdir() if "cache" in path.name) == ["cache.db"]
    assert len(_writer_threads()) == writers_before


def test_a_cache_of_a_newer_version_is_left_untouched_or_kept_aside_by_name(
    qtbot: Any, data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    _fill(data_dir)
    cache = _cache_of(data_dir)
    as_newer_schema(cache)
    newer = cache.read_bytes()
    person = _person(monkeypatch, CacheChoice.QUIT, CacheChoice.FRESH)
    assert start() == 1
    assert cache.read_bytes() == newer
    opened = start()
    assert isinstance(opened, OpenedWindow)
    assert [offer.why if offer else None for _exc, offer in person.asked] == ["newer", "newer"]
    [kept] = data_dir.glob("cache.db.newer-*[0-9]")
    assert kept.read_bytes() == newer
    assert opened.context.window.results_model.rowCount() == 0  # to be synced again


def test_trying_again_opens_the_cache_once_its_problem_is_gone(
    data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    cache = _cache_of(data_dir)
    cache.write_bytes(b"garbage" * 100)
    person = _person(monkeypatch, CacheChoice.RETRY)
    person.before_answer = lambda: cache.unlink()  # the person moved it away themselves
    opened = start()
    assert isinstance(opened, OpenedWindow)
    assert len(person.asked) == 1
    assert not list(data_dir.glob("cache.db.*-*"))


def test_the_command_line_start_over_a_damaged_cache_says_why_and_ends(
    data_dir: Path, monkeypatch: Any, capsys: Any
) -> None:
    cache = _cache_of(data_dir)
    cache.write_bytes(b"garbage" * 100)
    person = _person(monkeypatch, CacheChoice.QUIT)
    assert app.open_window(command_args(data_dir, quit_after_sync=True)) == 1
    assert not person.asked  # --quit-after-sync runs unattended: no dialog waits for anyone
    assert "damaged" in capsys.readouterr().err


# --------------------------------------------------------------------------- after the start


def test_a_cache_found_damaged_after_it_opened_is_started_afresh_from_the_list(
    qtbot: Any,
    data_dir: Path,
    start: Callable[[], OpenedWindow | int],
    monkeypatch: Any,
    request: pytest.FixtureRequest,
) -> None:
    _fill(data_dir)
    cache = _cache_of(data_dir)
    original = cache.read_bytes()

    def damaged(*_args: Any, **_kwargs: Any) -> Any:
        error = DatabaseCorruptError("reading cache.db: the database file is damaged")
        error.file = cache
        raise error

    # Pages damaged past the file's header: the cache opens, its reads fail.
    damage = pytest.MonkeyPatch()
    request.addfinalizer(damage.undo)
    damage.setattr(search_controller, "thread_reader", damaged)
    damage.setattr(CacheReader, "search_ids", damaged)
    first = start()
    assert isinstance(first, OpenedWindow)
    window = first.context.window
    view = window.results_view
    qtbot.waitUntil(
        lambda: view.empty_state is not None and view.empty_state.action == FRESH_CACHE,
        timeout=10_000,
    )
    assert view.empty_state.title == "Your library cannot be read"
    assert view.empty_state.action_label == "Start with a fresh cache…"
    assert view.empty_button.isVisibleTo(window)
    person = _person(monkeypatch, CacheChoice.FRESH)
    person.before_answer = damage.undo  # what is read from now on is the fresh cache
    starts = app.FreshCacheStarts(QApplication.instance(), command_args(data_dir), first)
    view.empty_button.click()
    assert len(person.asked) == 1
    assert first.context.closed
    fresh = starts.current
    assert fresh is not first
    qtbot.addWidget(fresh.context.window)
    try:
        [kept] = data_dir.glob("cache.db.damaged-*[0-9]")
        assert kept.read_bytes()[:100] == original[:100]
        toast = fresh.context.window.toast
        qtbot.waitUntil(lambda: kept.name in toast.text(), timeout=5000)
        assert fresh.context.window.isVisible()
        assert fresh.context.reader.all_ids(limit=1) == []  # to be synced again
        assert starts.status is None
    finally:
        fresh.context.shutdown()


@pytest.mark.parametrize(
    ("problem", "forward", "choice"),
    [
        ("damaged cache", "Start with a fresh cache", CacheChoice.FRESH),
        ("busy cache", "Try again", CacheChoice.RETRY),
        ("newer outbox", None, CacheChoice.QUIT),  # neither a fresh cache nor a retry helps
    ],
)
def test_the_question_offers_only_what_can_get_past_the_problem(
    qtbot: Any, tmp_path: Path, monkeypatch: Any, problem: str, forward: str | None, choice: Any
) -> None:
    cache, outbox = tmp_path / "cache.db", tmp_path / "outbox.db"
    exc: KnownStoreError
    if problem == "damaged cache":
        exc = DatabaseCorruptError("reading cache.db: the database file is damaged")
        exc.file = cache
    elif problem == "busy cache":
        exc = DatabaseLockedError("opening cache.db: the database is locked")
        exc.file = cache
    else:
        exc = SchemaTooNewError(str(outbox), SCHEMA_VERSION + 1, SCHEMA_VERSION)
    offered: list[list[str]] = []

    def press_the_first(box: QMessageBox) -> int:
        buttons = box.buttons()
        offered.append([button.text() for button in buttons])
        buttons[0].click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", press_the_first)
    answer = cache_start.ask_about_cache(exc, fresh_cache_offer(exc, cache))
    [texts] = offered
    assert set(texts) - {"Show Details..."} == ({forward, "Quit"} if forward else {"Quit"})
    assert answer is choice


def test_a_fresh_start_that_cannot_set_the_cache_aside_says_why_and_ends(
    data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    cache = _cache_of(data_dir)
    cache.write_bytes(b"garbage" * 100)
    _person(monkeypatch, CacheChoice.FRESH)

    def read_only_folder(path: Path, why: str) -> Path:
        raise PermissionError(13, "Permission denied", str(path))

    told: list[str] = []
    monkeypatch.setattr(app, "move_aside", read_only_folder)
    monkeypatch.setattr(QMessageBox, "critical", lambda _parent, _title, text: told.append(text))
    assert start() == 1
    assert cache.read_bytes() == b"garbage" * 100
    [words] = told
    assert "permission" in words.lower()


def test_a_file_where_the_data_folder_goes_is_explained_and_can_be_moved_away(
    qtbot: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    Settings().save()
    in_the_way = tmp_path / "library"
    in_the_way.write_text("notes of my own")
    person = _person(monkeypatch, CacheChoice.RETRY)

    def move_it_away() -> None:
        in_the_way.rename(tmp_path / "library.txt")

    person.before_answer = move_it_away
    opened = open_window(command_args(in_the_way))
    assert isinstance(opened, OpenedWindow)
    qtbot.addWidget(opened.context.window)
    try:
        [(problem, offer)] = person.asked
        assert isinstance(problem, OSError)
        assert offer is None
        assert (tmp_path / "library.txt").read_text() == "notes of my own"
        assert _cache_of(in_the_way).exists()
    finally:
        opened.context.shutdown()


def test_a_window_that_fails_while_built_leaves_no_writer_behind_and_is_built_anew(
    data_dir: Path, start: Callable[[], OpenedWindow | int], monkeypatch: Any
) -> None:
    """Its writer, reader and workers were left running beside the next try's (two writers
    on one cache), and the half-built window stayed on screen."""
    from memex_desktop.ui import docked_panes

    _fill(data_dir)
    writers_before = len(_writer_threads())
    build = docked_panes.DockedPanes.__init__
    failures = [DatabaseLockedError("locked while the panes were built")]

    def fails_once(self: Any, *args: Any, **kwargs: Any) -> None:
        if failures:
            raise failures.pop()
        build(self, *args, **kwargs)

    monkeypatch.setattr(docked_panes.DockedPanes, "__init__", fails_once)
    person = _person(monkeypatch, CacheChoice.RETRY)
    opened = start()
    assert isinstance(opened, OpenedWindow)
    assert len(person.asked) == 1
    assert len(_writer_threads()) == writers_before + 1  # the window's own, one
    assert windows_on_screen() == [opened.context.window]
