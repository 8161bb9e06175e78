"""The window says what is going on: filter chips, empty lists that say why, counts that agree
with the lists, finished status sentences, a first-sync progress bar that moves."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog
from support.window import WindowFactory

from memex_desktop.api.models import Feed, SearchRawPage
from memex_desktop.app import AppContext, show_settings_dialog
from memex_desktop.paths import resource_path
from memex_desktop.sync import SyncProgress
from memex_desktop.ui.dialogs import SettingsDialog
from memex_desktop.ui.search_bar import FilterChip, SearchRequest
from memex_desktop.ui.sidebar import ALL_ITEMS, Scope, SidebarModel

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

WAIT_MS = 10_000
COUNTED = re.compile(r"^(?P<label>.*?)  \((?P<count>[\d,]+)\)$")


def demo_library() -> dict[str, Any]:
    """The bundled demo library."""
    library = json.loads(resource_path("demo", "library.json").read_text(encoding="utf-8"))
    assert isinstance(library, dict)
    return library


@pytest.fixture
def context(window_factory: WindowFactory) -> AppContext:
    """The window on the demo library's cache (no server)."""
    return window_factory(library=demo_library())


def settle(qtbot: Any, context: AppContext) -> None:
    """Wait until every search, read and count of the window has landed."""
    qtbot.waitUntil(lambda: context.runner.active_count() == 0, timeout=WAIT_MS)


def search(qtbot: Any, context: AppContext, text: str) -> None:
    """Type a query and let its search land."""
    bar = context.window.search_bar
    bar.field.setText(text)
    bar.flush()
    settle(qtbot, context)


def chip_labels(context: AppContext) -> list[str]:
    return [chip.label for chip in context.window.search_bar.chip_buttons()]


def click_chip(qtbot: Any, context: AppContext, label: str) -> None:
    chip = next(c for c in context.window.search_bar.chip_buttons() if c.label == label)
    assert isinstance(chip, FilterChip)
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    settle(qtbot, context)


def choose(combo: Any, text: str) -> None:
    index = combo.findText(text)
    assert index > 0, f"{text!r} is not offered"
    combo.setCurrentIndex(index)


# -- chips ---------------------------------------------------------------------------------


def test_active_filters_are_chips_that_remove_them(qtbot: Any, context: AppContext) -> None:
    window = context.window
    bar = window.search_bar
    assert not bar.chips.isVisible()
    window.sidebar.select_scope(Scope("type", "web", "Web page"))
    settle(qtbot, context)
    search(qtbot, context, "garden")
    choose(bar.dates, "Past year")
    settle(qtbot, context)
    assert bar.chips.isVisible()
    assert bar.clear_all_button.isVisible()
    scope_chip = next(label for label in chip_labels(context) if label.startswith("Library: "))
    assert chip_labels(context) == ["Search: garden", scope_chip, "Saved: past year"]

    click_chip(qtbot, context, "Saved: past year")
    assert bar.dates.currentIndex() == 0
    assert window.results_model._filters.date_from_ms is None
    assert chip_labels(context) == ["Search: garden", scope_chip]

    click_chip(qtbot, context, scope_chip)
    assert window.sidebar.current_scope() == ALL_ITEMS
    assert chip_labels(context) == ["Search: garden"]
    garden = set(window.results_model.ids())
    assert garden == set(context.reader.search_ids("garden"))

    click_chip(qtbot, context, "Search: garden")
    assert bar.field.text() == ""
    assert window.results_model.query == ""
    assert not bar.chips.isVisible()


def test_the_query_chip_follows_the_typing_and_a_relabelled_chip_removes_its_filter(
    qtbot: Any, context: AppContext
) -> None:
    bar = context.window.search_bar
    search(qtbot, context, "gar")
    first = bar.chip_buttons()
    search(qtbot, context, "garden")
    choose(bar.dates, "Past year")
    settle(qtbot, context)
    assert chip_labels(context) == ["Search: garden", "Saved: past year"]
    assert bar.chip_buttons()[0] is first[0]  # the same chip, relabelled as the query grew
    assert bar.chip_buttons()[0].text().startswith("Search: garden")
    assert "garden" in bar.chip_buttons()[0].accessibleName()

    choose(bar.types, "Note")
    settle(qtbot, context)
    click_chip(qtbot, context, "Search: garden")
    assert bar.field.text() == ""
    assert chip_labels(context) == ["Type: Note", "Saved: past year"]
    bar.dates.setCurrentIndex(0)  # any time
    settle(qtbot, context)
    assert chip_labels(context) == ["Type: Note"]


def test_clear_all_removes_every_filter_and_searches_once_more(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    bar = window.search_bar
    window.sidebar.select_scope(Scope("deleted", None, "Deleted upstream"))
    settle(qtbot, context)
    search(qtbot, context, "worm")
    choose(bar.types, "Tweet")
    settle(qtbot, context)
    assert len(chip_labels(context)) == 3
    qtbot.mouseClick(bar.clear_all_button, Qt.MouseButton.LeftButton)
    settle(qtbot, context)
    assert chip_labels(context) == []
    assert not bar.chips.isVisible()
    assert bar.field.text() == ""
    assert bar.types.currentIndex() == 0
    assert window.sidebar.current_scope() == ALL_ITEMS
    assert window.results_model.rowCount() == len(context.reader.search_ids(""))


# -- empty states --------------------------------------------------------------------------


def empty_words(context: AppContext) -> tuple[str, str]:
    """The empty state's title and the label of its visible button ("" when none)."""
    view = context.window.results_view
    state = view.empty_state
    assert state is not None, "the list says nothing"
    assert context.window.results_model.rowCount() == 0
    button = view.empty_button
    return state.title, button.text() if button.isVisible() else ""


def test_an_exclusion_that_leaves_nothing_is_named_as_such(qtbot: Any, context: AppContext) -> None:
    search(qtbot, context, "garden -garden")
    view = context.window.results_view
    assert view.empty_state is not None
    assert "fewer words" not in view.empty_state.explanation
    assert "exclusions" in view.empty_state.explanation
    search(qtbot, context, "xyzzy")
    assert view.empty_state is not None
    assert "fewer words" in view.empty_state.explanation


def test_a_nonsense_query_says_so_and_clear_search_fixes_it(
    qtbot: Any, context: AppContext
) -> None:
    search(qtbot, context, "xyzzy")
    assert empty_words(context) == ("No items match \u201cxyzzy\u201d", "Clear search")
    view = context.window.results_view
    assert "xyzzy" in view.accessibleDescription()
    view.grab()  # paints the empty state
    qtbot.mouseClick(view.empty_button, Qt.MouseButton.LeftButton)
    settle(qtbot, context)
    assert context.window.search_bar.field.text() == ""
    assert context.window.results_model.rowCount() > 0
    assert view.empty_state is None
    assert not view.empty_button.isVisible()


def test_a_tag_no_item_has_is_named_as_the_reason(qtbot: Any, context: AppContext) -> None:
    search(qtbot, context, "tag:nosuchtag compost")
    title, button = empty_words(context)
    assert (title, button) == ("No tag called \u201cnosuchtag\u201d", "Clear search")
    search(qtbot, context, "tag:compost compost")  # a tag the library has: words as usual
    assert context.window.results_view.empty_state is None or not empty_words(context)[
        0
    ].startswith("No tag")


def test_a_query_that_means_nothing_says_why_in_the_list(qtbot: Any, context: AppContext) -> None:
    search(qtbot, context, "type:gizmo compost")
    title, button = empty_words(context)
    assert (title, button) == ("This search cannot run", "Clear search")
    assert "gizmo" in context.window.results_view.empty_state.explanation


def test_a_filter_combination_says_so_and_clear_all_fixes_it(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    bar = window.search_bar
    window.sidebar.select_scope(Scope("type", "twitter", "Tweet"))
    settle(qtbot, context)
    choose(bar.tags, "crdt")  # no tweet carries it
    settle(qtbot, context)
    title, button = empty_words(context)
    assert (title, button) == ("No items match these filters", "Clear all")
    assert "Tag: crdt" in window.results_view.empty_state.explanation
    qtbot.mouseClick(window.results_view.empty_button, Qt.MouseButton.LeftButton)
    settle(qtbot, context)
    assert window.sidebar.current_scope() == ALL_ITEMS
    assert window.results_model.rowCount() > 0
    assert chip_labels(context) == []


def test_the_empty_deleted_shelf_says_nothing_was_deleted(qtbot: Any, context: AppContext) -> None:
    context.window.sidebar.select_scope(Scope("deleted", None, "Deleted upstream"))
    settle(qtbot, context)
    assert empty_words(context) == ("Nothing was deleted upstream", "")


def test_a_feed_never_listed_without_an_account_asks_to_sign_in(
    qtbot: Any, context: AppContext
) -> None:
    window = context.window
    context.writer.upsert_feeds(
        [Feed(id="quiet", title="Quiet feed", site_url="https://quiet.example.net/")]
    ).result()
    window.sidebar.refresh()
    window.sidebar.select_scope(Scope("feed", "quiet", "Quiet feed"))
    settle(qtbot, context)
    assert empty_words(context) == ("This feed has not been listed yet", "Sign in…")
    assert "Feed: Quiet feed" in chip_labels(context)


def test_an_empty_cache_without_an_account_asks_to_sign_in(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    context = window_factory()
    assert empty_words(context) == ("Sign in to sync", "Sign in…")


def test_an_empty_cache_while_the_first_sync_runs_says_it_syncs(
    qtbot: Any, window_factory: WindowFactory, emulator: Any
) -> None:
    context = window_factory(server=emulator, sync_on_start=True)
    assert context.controller.syncing
    assert empty_words(context) == ("Syncing your library…", "")
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=WAIT_MS)
    settle(qtbot, context)
    assert context.window.results_model.rowCount() > 0
    assert context.window.results_view.empty_state is None


def test_an_empty_cache_offline_says_so_and_offers_to_try_again(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: Any
) -> None:
    gone = emulator_factory()
    gone.stop()  # nothing listens on its port any more
    context = window_factory(server=gone)
    context.controller.sync_now()
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=WAIT_MS)
    settle(qtbot, context)
    assert empty_words(context) == ("Memex cannot be reached", "Try again")


# -- counts --------------------------------------------------------------------------------


def counted_entries(context: AppContext) -> list[tuple[Scope, int]]:
    """Every sidebar entry showing a count, with that count."""
    model = context.window.sidebar.sidebar_model
    found = []
    for section_row in range(model.rowCount()):
        section = model.item(section_row)
        items = [section] + [section.child(r) for r in range(section.rowCount())]
        for item in items:
            scope = item.data(SidebarModel.ScopeRole)
            if scope is None:
                scope = item.data(Qt.ItemDataRole.UserRole + 1)
            matched = COUNTED.match(item.text())
            if isinstance(scope, Scope) and matched and scope.kind != "outbox":
                found.append((scope, int(matched["count"].replace(",", ""))))
    return found


def test_each_count_is_the_number_of_rows_its_list_shows(qtbot: Any, context: AppContext) -> None:
    window = context.window
    deleted = [
        context.reader.search_ids("worm")[0],
        context.reader.search_ids("sleep", types=("annotation",))[0],
    ]
    changes = context.writer.mark_deleted_upstream(deleted).result()
    # An item a sync could not read is kept as an "unreadable" stand-in, listed and counted.
    odd = SearchRawPage.model_validate({"results": [{"id": "odd-1", "note": "no type"}]})
    changes |= context.writer.ingest_search_page(odd).result()
    context.writer.flush_index().result()
    context.controller.store_changed.emit(changes)  # as a sync announces what it changed
    settle(qtbot, context)
    entries = counted_entries(context)
    kinds = {scope.kind for scope, _count in entries}
    assert {"all", "type", "tag", "deleted"} <= kinds
    counts = dict(context.reader.counts_by_type())
    assert "unreadable" in counts
    assert "annotation" in counts
    by_key = {scope.key: count for scope, count in entries}
    assert by_key[ALL_ITEMS.key] == sum(counts.values())
    assert by_key["deleted:"] == len(deleted)
    for scope, count in entries:
        window.sidebar.select_scope(scope)
        settle(qtbot, context)
        assert window.sidebar.current_scope().key == scope.key
        assert window.results_model.rowCount() == count, scope


# -- status and progress -------------------------------------------------------------------


def test_a_multi_page_first_sync_moves_its_bar_and_ends_in_a_sentence(
    qtbot: Any, window_factory: WindowFactory, emulator_factory: Any
) -> None:
    server = emulator_factory(library=demo_library(), max_page_size=10, default_page_size=10)
    context = window_factory(server=server)
    status = context.window.status
    seen: list[tuple[int, int, int, str]] = []

    def record(progress: SyncProgress) -> None:
        bar = status.progress
        seen.append((bar.minimum(), bar.maximum(), bar.value(), progress.phase))

    context.controller.sync_progress.connect(record)
    messages: list[str] = []
    status.messageChanged.connect(messages.append)
    assert context.controller.sync_now()
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=30_000)
    pulls = [entry for entry in seen if entry[3] == "pull"]
    assert len(pulls) >= 5, seen  # 66 items in pages of 10
    for _low, high, value, _phase in seen:
        assert high == 0 or value < high, f"a full bar while the sync ran: {seen}"
    assert re.fullmatch(r"Synced \d+ items in \d+\.\d s\.", messages[-1]), messages
    assert not any(message.endswith(" in") for message in messages)

    messages.clear()
    assert context.controller.sync_now()
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=30_000)
    assert messages[-1] == "Up to date."


def test_a_sync_says_it_runs_before_its_first_step_reports(qtbot: Any, context: AppContext) -> None:
    status = context.window.status
    status.on_sync_started()
    assert status.currentMessage() == "Syncing…"  # not a bare bar beside "Online"
    assert status.progress.toolTip() == "Syncing…"
    status.on_sync_progress(SyncProgress("pull", 20, None, "Checking for changes: 20 items"))
    assert status.currentMessage() == "Checking for changes: 20 items"


def test_a_total_ahead_makes_the_bar_determinate(qtbot: Any, context: AppContext) -> None:
    status = context.window.status
    status.on_sync_started()
    status.on_sync_progress(SyncProgress("pull", 20, 60, "20 items"))
    assert (status.progress.maximum(), status.progress.value()) == (60, 20)
    status.on_sync_progress(SyncProgress("pull", 60, 60, "60 items"))
    assert status.progress.maximum() == 0  # reached: what is left is not known


# -- settings --------------------------------------------------------------------------------


def test_settings_show_the_server_this_window_talks_to(
    qtbot: Any, window_factory: WindowFactory, emulator: Any
) -> None:
    context = window_factory(server=emulator, api_url=emulator.base_url)
    assert context.api_url == emulator.base_url.rstrip("/")
    shown: list[tuple[str, bool]] = []

    def look_and_save() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, SettingsDialog)
        shown.append((dialog.api_url.text(), dialog.api_url.isReadOnly()))
        dialog.done(QDialog.DialogCode.Accepted)

    saved_url = context.settings.api_url
    QTimer.singleShot(0, look_and_save)
    assert show_settings_dialog(context, context.window)
    assert shown == [(emulator.base_url.rstrip("/"), True)]
    assert context.settings.api_url == saved_url  # the session's server is not saved
    assert context.api_url == emulator.base_url.rstrip("/")


@pytest.mark.parametrize(
    ("action", "says"),
    [
        ("sync_full", "Connect your Memex account first"),
        ("cancel_sync", "No sync is running."),
        ("undo_save", "No save to undo."),
        ("reply_note", "No note to reply to"),
    ],
)
def test_an_action_with_nothing_to_act_on_says_so(
    window_factory: WindowFactory, demo_library: dict[str, Any], action: str, says: str
) -> None:
    context = window_factory(library=demo_library)  # no account
    messages: list[str] = []
    context.window.status.messageChanged.connect(messages.append)
    context.window.actions_by_key[action].trigger()
    assert any(message.startswith(says) for message in messages), messages


def test_the_cloud_without_an_account_says_what_to_do(
    window_factory: WindowFactory, demo_library: dict[str, Any]
) -> None:
    context = window_factory(library=demo_library)
    messages: list[str] = []
    context.window.status.messageChanged.connect(messages.append)
    context.window.search.ask_remote(SearchRequest("compost"))
    assert any(message.startswith("Connect your Memex account first") for message in messages)


def test_an_empty_outbox_says_what_it_would_hold(qtbot: Any) -> None:
    from memex_desktop.store import OutboxOp
    from memex_desktop.ui.outbox_pane import EMPTY_OUTBOX, OutboxPane

    pane = OutboxPane()
    qtbot.addWidget(pane)
    pane.show()
    assert pane.empty.isVisible()
    assert pane.empty.text() == EMPTY_OUTBOX
    assert not pane.table.isVisible()
    op = OutboxOp(
        id=1, kind="save_url", url="https://a.example/", normalized_url="https://a.example/",
        external_id=None, payload=None, state="pending", attempts=0, reason=None,
        entity_id=None, created_at=1_700_000_000_000, updated_at=1_700_000_000_000,
        next_attempt_at=0,
    )  # fmt: skip
    pane.model.set_ops([op])
    assert pane.table.isVisible()
    assert not pane.empty.isVisible()


def test_a_phrase_is_chipped_as_typed_and_its_chip_clears_it(
    qtbot: Any, context: AppContext
) -> None:
    search(qtbot, context, '"offline app" -demo')
    bar = context.window.search_bar
    assert bar.chip_labels()[0] == 'Search: "offline app" -demo'  # as typed, quotes and all
    bar.remove_filter('Search: "offline app" -demo')
    assert bar.field.text() == ""
