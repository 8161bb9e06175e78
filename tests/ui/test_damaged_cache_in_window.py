"""A cache found damaged after the window opened: its pages can be half read, so the list
comes back while its rows do not, or a sync fails writing it.

The window then offers what a start over a damaged cache offers (the old file kept aside, a
fresh cache synced again, the outbox kept): the list empties with "Start with a fresh
cache…" instead of filling with rows that cannot be loaded, and a sync that failed says so,
and why, in the status bar. The sidebar's counts and the reader's item, when they are what
meets it, say the library cannot be read and lead to the same question, asked once.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox
from support.caches import web_item
from support.window import command_args

from memex_desktop import app, paths
from memex_desktop.app import OpenedWindow
from memex_desktop.empty_states import FRESH_CACHE
from memex_desktop.errors import FreshCacheOffer, fresh_cache_offer
from memex_desktop.settings import Settings
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.errors import DatabaseCorruptError, KnownStoreError
from memex_desktop.ui import cache_start, search_controller, sync_controller
from memex_desktop.ui.cache_start import CacheChoice
from memex_desktop.ui.reader_pane import CANNOT_DISPLAY
from memex_desktop.ui.results_model import ResultsModel
from memex_desktop.ui.search_controller import SIDEBAR_UNREADABLE
from memex_desktop.ui.sidebar import SidebarSnapshot

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

ITEMS = 300
PAGE = 4096
# Pages overwritten together: a few, as a crash or a bad disk damages them.
RUN = 8
DAMAGE = b"\xa5" * (RUN * PAGE)  # written over the run of pages


def _ids() -> list[str]:
    return [f"item-{number:04d}" for number in range(ITEMS)]


def _rows_fail_ids_read(cache: Path) -> bool:
    """Whether the cache at ``cache`` lists its ids (searched and not) but fails reading rows."""
    try:
        with CacheReader(cache) as reader:
            if len(reader.search_ids("words")) != ITEMS or len(reader.all_ids(limit=999)) != ITEMS:
                return False
            reader.get_many(_ids())
    except KnownStoreError:
        return True
    return False


def damaged_where_rows_fail(cache: Path) -> None:
    """Fill the cache at ``cache`` with a few hundred items, then write garbage over a run of
    its pages such that listing them still works and reading their rows does not ("database
    disk image is malformed")."""
    writer = StoreWriter(cache)
    try:
        items = [
            web_item(number, f"Item {number}", "words and more " * 20) for number in range(ITEMS)
        ]
        writer.ingest_json(items).result(30)
        writer.flush_index().result(30)
    finally:
        writer.close()
    whole = cache.read_bytes()
    trial = cache.with_name("trial.db")
    for first in range(1, len(whole) // PAGE - RUN):
        damaged = bytearray(whole)
        damaged[first * PAGE : (first + RUN) * PAGE] = DAMAGE
        for stale in cache.parent.glob("trial.db*"):
            stale.unlink()
        trial.write_bytes(bytes(damaged))
        if _rows_fail_ids_read(trial):
            for stale in cache.parent.glob("trial.db-*"):
                stale.unlink()
            shutil.move(trial, cache)
            return
    raise AssertionError("no run of pages damages the rows alone")


@pytest.fixture
def damaged_folder(tmp_path: Path) -> Path:
    """The data folder ``window_factory`` opens, its cache damaged where rows are read."""
    folder = tmp_path / "data"
    folder.mkdir()
    damaged_where_rows_fail(paths.cache_db_path(folder))
    return folder


class Person:
    """Answers the question about a damaged cache as the person would; remembers each time."""

    def __init__(self, answer: CacheChoice) -> None:
        self.answer = answer
        self.asked: list[tuple[BaseException, FreshCacheOffer | None]] = []

    def __call__(
        self, exc: BaseException, offer: FreshCacheOffer | None, parent: Any = None
    ) -> CacheChoice:
        self.asked.append((exc, offer))
        return self.answer


def _open(qtbot: Any, data_dir: Path) -> tuple[app.FreshCacheStarts, OpenedWindow]:
    """The window as ``memex-desktop --data-dir`` opens it, with its fresh starts wired."""
    opened = app.open_window(command_args(data_dir))
    assert isinstance(opened, OpenedWindow)
    qtbot.addWidget(opened.context.window)
    return app.FreshCacheStarts(QApplication.instance(), command_args(data_dir), opened), opened


def test_a_list_whose_rows_cannot_be_read_empties_and_offers_a_fresh_cache(
    qtbot: Any, damaged_folder: Path, monkeypatch: Any
) -> None:
    person = _declining_person(monkeypatch)
    starts, opened = _open(qtbot, damaged_folder)
    try:
        window = opened.context.window
        view = window.results_view
        qtbot.waitUntil(
            lambda: view.empty_state is not None and view.empty_state.action == FRESH_CACHE,
            timeout=10_000,
        )
        assert window.results_model.rowCount() == 0  # no "(this item could not be loaded)"
        assert view.empty_state.title == "Your library cannot be read"
        assert view.empty_state.action_label == "Start with a fresh cache…"
        assert "outbox.db" in view.empty_state.explanation  # saves not sent yet are kept
        qtbot.waitUntil(lambda: len(person.asked) == 1, timeout=5000)  # as at start
        [(problem, offer)] = person.asked
        assert isinstance(problem, DatabaseCorruptError)
        assert offer is not None
        assert offer.why == "damaged"
        assert starts.current is opened  # "not now": the window stays, the file too
        assert not list(damaged_folder.glob("cache.db.damaged-*"))
    finally:
        starts.current.context.shutdown()


def test_the_fresh_cache_chosen_keeps_the_damaged_one_aside_and_the_outbox(
    qtbot: Any, damaged_folder: Path, monkeypatch: Any
) -> None:
    Settings().save()
    cache = paths.cache_db_path(damaged_folder)
    damaged_file = cache.stat().st_ino
    outbox = paths.outbox_db_path(damaged_folder)
    person = Person(CacheChoice.FRESH)
    monkeypatch.setattr(cache_start, "ask_about_cache", person)
    starts, first = _open(qtbot, damaged_folder)
    kept_outbox = outbox.read_bytes()
    qtbot.waitUntil(lambda: starts.current is not first, timeout=10_000)
    fresh = starts.current
    qtbot.addWidget(fresh.context.window)
    try:
        assert len(person.asked) == 1
        [kept] = damaged_folder.glob("cache.db.damaged-*[0-9]")
        # The damaged file itself, moved aside (the window's writer may have written to it
        # before the damage showed: its bytes are not compared).
        assert kept.stat().st_ino == damaged_file
        assert kept.read_bytes().startswith(b"SQLite format 3\x00")
        assert outbox.read_bytes() == kept_outbox
        assert fresh.context.reader.all_ids(limit=1) == []  # to be synced again
        toast = fresh.context.window.toast
        qtbot.waitUntil(lambda: kept.name in toast.text(), timeout=5000)
        assert toast.stays()
    finally:
        fresh.context.shutdown()


def test_a_search_that_cannot_read_the_cache_asks_about_a_fresh_cache_once(
    qtbot: Any, window_factory: Any
) -> None:
    context = window_factory()
    window = context.window
    asked: list[BaseException] = []
    window.fresh_cache_requested.connect(asked.append)
    damage = DatabaseCorruptError("reading cache.db: the database file is damaged")
    damage.file = window.cache_path
    for _ in range(2):
        window.search.search_failed.emit(damage)
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=5000)
    qtbot.wait(50)
    assert asked == [damage]  # asked once: the list's button stays for later


def _signed_in(context: Any) -> None:
    """A client for the controller, so that a sync starts (its run is replaced)."""
    context.controller.services.client = SimpleNamespace(close=lambda: None)


def test_a_sync_that_meets_a_damaged_cache_says_it_failed_and_why(
    qtbot: Any, window_factory: Any, monkeypatch: Any
) -> None:
    context = window_factory()
    window = context.window
    asked: list[BaseException] = []
    window.fresh_cache_requested.connect(asked.append)

    def writing_a_damaged_cache(*_args: Any, **_kwargs: Any) -> Any:
        error = DatabaseCorruptError("writing cache.db: the database file is damaged")
        error.file = window.cache_path
        raise error

    monkeypatch.setattr(sync_controller, "run_sync", writing_a_damaged_cache)
    _signed_in(context)
    with qtbot.waitSignal(context.controller.sync_finished, timeout=10_000):
        assert context.controller.sync_now()
    said = window.status.currentMessage()
    assert said.startswith("Sync failed: The local library is damaged.")
    assert "Start with a fresh cache" in said
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=5000)
    qtbot.wait(100)
    assert window.status.currentMessage() == said  # not "Online" a moment later


def test_a_sync_that_fails_on_this_computer_says_so_instead_of_online(
    qtbot: Any, window_factory: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    context = window_factory()
    window = context.window

    def full_disk(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError(28, "No space left on device", str(window.cache_path))

    monkeypatch.setattr(sync_controller, "run_sync", full_disk)
    _signed_in(context)
    with qtbot.waitSignal(context.controller.sync_finished, timeout=10_000):
        assert context.controller.sync_now()
    assert window.status.currentMessage().startswith("Sync failed: The disk is full")


def test_the_question_a_window_asks_keeps_it_open_when_declined(
    qtbot: Any, window_factory: Any, monkeypatch: Any
) -> None:
    context = window_factory()
    damage = DatabaseCorruptError("reading cache.db: the database file is damaged")
    damage.file = context.window.cache_path
    offered: list[list[str]] = []

    def press_the_last(box: QMessageBox) -> int:
        offered.append([button.text() for button in box.buttons()])
        box.buttons()[-1].click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", press_the_last)
    offer = fresh_cache_offer(damage, context.window.cache_path)
    answer = cache_start.ask_about_cache(damage, offer, context.window)
    [texts] = offered
    # Not "Quit": declining leaves the window as it is.
    assert set(texts) - {"Show Details..."} == {"Start with a fresh cache", "Not now"}
    assert answer is CacheChoice.QUIT


def _declining_person(monkeypatch: Any) -> Person:
    """A person who has used the app before (their settings exist) and declines a fresh
    cache when asked (the window stays); what they were asked is in ``asked``."""
    Settings().save()
    person = Person(CacheChoice.QUIT)
    monkeypatch.setattr(cache_start, "ask_about_cache", person)
    return person


def _rows_said_nothing(monkeypatch: Any) -> None:
    """The list's rows keep quiet about the damage they meet: what is asked comes from the
    pane under test."""
    monkeypatch.setattr(ResultsModel, "_met_unreadable", lambda _model, _exc: None)


def test_a_sidebar_that_cannot_read_its_counts_says_why_and_offers_a_fresh_cache(
    qtbot: Any, damaged_folder: Path, monkeypatch: Any
) -> None:
    person = _declining_person(monkeypatch)
    _rows_said_nothing(monkeypatch)
    starts, opened = _open(qtbot, damaged_folder)
    window = opened.context.window
    shown: list[Any] = []
    window.messages.shown.connect(shown.append)
    try:
        qtbot.waitUntil(lambda: len(person.asked) == 1, timeout=10_000)
        [(problem, offer)] = person.asked
        assert isinstance(problem, DatabaseCorruptError)
        assert offer is not None
        assert offer.why == "damaged"
        [said] = [m for m in shown if m.text.startswith(SIDEBAR_UNREADABLE)]
        assert said.text == f"{SIDEBAR_UNREADABLE}: The local library is damaged."
        assert (said.action or "").startswith("Start with a fresh cache")
        assert "Delete" not in (said.action or "")
        search = window.search
        qtbot.waitUntil(lambda: search._snapshot_task is None, timeout=5000)
        search.refresh_sidebar_later()  # a sync's next page reads the counts again
        again = search._snapshot_task
        assert again is not None
        qtbot.waitUntil(
            lambda: again.is_done() and search._snapshot_task is not again, timeout=5000
        )
        qtbot.wait(50)
        assert len(person.asked) == 1  # asked once per window
        assert len([m for m in shown if m.text.startswith(SIDEBAR_UNREADABLE)]) == 1
        assert starts.current is opened  # "not now": the window stays
    finally:
        starts.current.context.shutdown()


def _unreadable_id(cache: Path) -> str:
    """An item of the damaged cache at ``cache`` whose row cannot be read."""
    with CacheReader(cache) as reader:
        for entity_id in _ids():
            try:
                reader.entity_within(entity_id, 1000)
            except KnownStoreError:
                return entity_id
    raise AssertionError("every item of the damaged cache can be read")


def test_an_item_the_reader_cannot_read_says_why_and_offers_a_fresh_cache(
    qtbot: Any, damaged_folder: Path, monkeypatch: Any
) -> None:
    person = _declining_person(monkeypatch)
    _rows_said_nothing(monkeypatch)
    counted = SidebarSnapshot(counts={}, tags=[], views=[], feeds=[], deleted=0)
    monkeypatch.setattr(search_controller, "sidebar_snapshot", lambda _cache: counted)
    entity_id = _unreadable_id(paths.cache_db_path(damaged_folder))
    starts, opened = _open(qtbot, damaged_folder)
    window = opened.context.window
    try:
        window.open_entity(entity_id)
        qtbot.waitUntil(lambda: len(person.asked) == 1, timeout=10_000)
        [(problem, offer)] = person.asked
        assert isinstance(problem, DatabaseCorruptError)
        assert offer is not None
        shown = window.reader_pane.browser.toPlainText()
        assert CANNOT_DISPLAY in shown
        assert "The local library is damaged." in shown
        assert "Start with a fresh cache" in shown
        assert "Delete cache.db" not in shown
        assert starts.current is opened
    finally:
        starts.current.context.shutdown()
