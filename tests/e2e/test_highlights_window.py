"""Highlights in the real window, against the emulator over loopback (both profiles).

Select a passage in the reader and press the highlight key: the highlight is painted at once
as pending (offline too), reaches the server at the next sync and is then painted once, from
the server's copy. A note on a selection arrives linked to its highlight and its item; a
click on a painted highlight opens its note in the notes pane.
"""

from __future__ import annotations

import copy
from itertools import dropwhile
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from support.signals import Emitted
from support.window import WindowFactory

from memex_desktop.app import AppContext
from memex_desktop.store.highlights import PENDING_PREFIX
from memex_desktop.sync import SyncOutcome
from memex_desktop.ui.highlight_painter import HIGHLIGHT_ID_PROPERTY
from memex_desktop.ui.thread_pane import ThreadPane

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.qt_log_ignore("propagateSizeHints", "This plugin does not support"),
]

T0 = 1_700_000_000_000
PAGE = "web-compost"
PHRASE = "turn the heap"
BODY = (
    "# Compost\n\n"
    "Every week you turn the heap so that air reaches the middle.\n\n"
    "In winter you still turn the heap, but less often, to keep the warmth in.\n\n"
    "Worms do the rest."
)
LIBRARY: dict[str, Any] = {
    "results": [
        {
            "id": PAGE,
            "type": "web",
            "title": "Compost at home",
            "url": "https://garden.example/compost",
            "external_id": "garden.example--compost",
            "full_text": BODY,
            "created_at": T0,
            "updated_at": T0,
            "metadata": {"status": "indexing-done"},
        },
    ],
    "referencesByResultId": {},
    "extraEntities": [],
    "referencedEntities": [],
    "referencedTags": [],
    "meta": {},
}
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def server(emulator_factory: Any, emulator_profile: str) -> Any:
    """The emulator serving a one-page library, in each profile."""
    return emulator_factory(library=copy.deepcopy(LIBRARY), profile=emulator_profile)


@pytest.fixture
def context(window_factory: WindowFactory, server: Any, qtbot: Any) -> AppContext:
    """The window, synced once, with the page open in the reader."""
    made = window_factory(server=server)
    assert _sync(qtbot, made).outcome is SyncOutcome.OK
    window = made.window
    opened = Emitted(window.entity_opened)
    window.open_entity(PAGE)
    assert opened.wait(qtbot) == [PAGE]
    return made


def _sync(qtbot: Any, context: AppContext) -> Any:
    """Wait for any running sync, run one more and return its report."""
    qtbot.waitUntil(lambda: not context.controller.syncing, timeout=60_000)
    finished = Emitted(context.controller.sync_finished)
    assert context.controller.sync_now()
    return finished.wait(qtbot, 60_000)[0]


def _select_second_phrase(context: AppContext) -> int:
    """Select the second place the phrase is in the page; where it starts."""
    browser = context.window.reader_pane.browser
    text = browser.document().toPlainText()
    start = text.index(PHRASE, text.index(PHRASE) + 1)
    cursor = QTextCursor(browser.document())
    cursor.setPosition(start)
    cursor.setPosition(start + len(PHRASE), QTextCursor.MoveMode.KeepAnchor)
    browser.setTextCursor(cursor)
    browser.setFocus()
    return start


def _painted(context: AppContext) -> dict[str, list[int]]:
    """highlight id -> the document positions painted with it (read from the document)."""
    document = context.window.reader_pane.browser.document()
    found: dict[str, list[int]] = {}
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            value = fragment.charFormat().property(HIGHLIGHT_ID_PROPERTY)
            if isinstance(value, str) and value:
                found.setdefault(value, []).extend(
                    range(fragment.position(), fragment.position() + fragment.length())
                )
            iterator += 1
        block = block.next()
    return found


def _server_selectors(server: Any) -> list[dict[str, Any]]:
    """Every highlight the emulator holds."""
    found = []
    for entity_id in server.state.entity_ids():
        data = server.state.entity(entity_id) or {}
        if data.get("type") == "selector":
            found.append(data)
    return found


def test_a_highlight_made_offline_is_painted_pending_then_once_from_the_server(
    qtbot: Any, context: AppContext, server: Any, emulator_profile: str
) -> None:
    window = context.window
    server.stop()
    start = _select_second_phrase(context)
    offline = Emitted(context.controller.sync_finished)
    qtbot.keyClick(window.reader_pane.browser, Qt.Key.Key_H, CTRL_SHIFT)

    # At once, before any server has it: painted, as pending, on the second place only.
    qtbot.waitUntil(lambda: any(k.startswith(PENDING_PREFIX) for k in _painted(context)))
    painted = _painted(context)
    assert len(painted) == 1
    pending_id, positions = next(iter(painted.items()))
    assert positions == list(range(start, start + len(PHRASE)))
    pane = window.thread_pane
    qtbot.waitUntil(lambda: [r.highlight.id for r in pane.highlight_rows] == [pending_id])
    assert pane.highlight_rows[0].highlight.pending
    assert PHRASE in pane.highlight_rows[0].quote.text()
    # Queuing asked for a sync; offline, the highlight stays queued and painted.
    assert offline.wait(qtbot, 60_000)[0].outcome is SyncOutcome.OFFLINE
    assert _server_selectors(server) == []
    assert list(_painted(context)) == [pending_id]

    # Online again: the next sync sends it; it is painted once, from the server's copy.
    server.start()
    assert _sync(qtbot, context).outcome is SyncOutcome.OK
    saved = _server_selectors(server)
    assert len(saved) == 1
    selector = saved[0]
    assert selector["target_id"] == PAGE
    assert selector["selector_type"] == "text_selector"
    assert selector["text"] == PHRASE
    if emulator_profile == "default":
        # The context that tells the two places apart went with it.
        assert selector["prefix"].endswith("In winter you still ")
        assert selector["suffix"].startswith(", but less often")
    else:
        # A server that refuses the context fields gets the highlight without them.
        assert "prefix" not in selector
        assert "suffix" not in selector
    qtbot.waitUntil(lambda: not any(k.startswith(PENDING_PREFIX) for k in _painted(context)))
    painted = _painted(context)
    assert len(painted) == 1, painted
    (server_id,) = painted
    cached = context.reader.raw_json(server_id)
    assert cached is not None
    assert cached["type"] == "selector"
    assert cached.get("external_id") == selector["external_id"]
    if emulator_profile == "default":
        assert painted[server_id] == list(range(start, start + len(PHRASE)))
    qtbot.waitUntil(lambda: [r.highlight.pending for r in pane.highlight_rows] == [False])

    # Another sync changes nothing: one highlight on the server, painted once.
    assert _sync(qtbot, context).outcome is SyncOutcome.OK
    assert len(_server_selectors(server)) == 1
    assert list(_painted(context)) == [server_id]


def test_a_note_on_a_selection_written_offline_arrives_linked_to_its_highlight_and_item(
    qtbot: Any, context: AppContext, server: Any
) -> None:
    window = context.window
    server.stop()  # written offline: both wait in the outbox, the note naming the highlight
    _select_second_phrase(context)
    qtbot.keyClick(window.reader_pane.browser, Qt.Key.Key_N, CTRL_SHIFT)
    pane = window.thread_pane
    qtbot.waitUntil(lambda: pane.editor is not None and pane.editor.isVisible())
    editor = pane.editor
    assert editor is not None
    assert editor.editor.toPlainText().startswith(f"> {PHRASE}")
    qtbot.keyClicks(editor.editor, "Twice a month is enough.")
    queued = Emitted(pane.note_queued)
    offline = Emitted(context.controller.sync_finished)
    editor.save_button.click()
    queued.wait(qtbot)
    # Both are shown at once: the passage painted as pending, the note under its quote.
    qtbot.waitUntil(lambda: any(k.startswith(PENDING_PREFIX) for k in _painted(context)))
    qtbot.waitUntil(
        lambda: any(card.entry.pending and card.quote.isVisibleTo(card) for card in pane.cards)
    )
    assert offline.wait(qtbot, 60_000)[0].outcome is SyncOutcome.OFFLINE
    assert _server_selectors(server) == []
    server.start()
    assert _sync(qtbot, context).outcome is SyncOutcome.OK

    selectors = _server_selectors(server)
    assert len(selectors) == 1
    highlight_id = selectors[0]["id"]
    notes = [
        server.state.entity(i)
        for i in server.state.entity_ids()
        if (server.state.entity(i) or {}).get("type") == "annotation"
    ]
    assert len(notes) == 1
    note = notes[0]
    assert note["text"].endswith("Twice a month is enough.")
    assert note["reference_content_ids"] == [PAGE, highlight_id]

    # The painted highlight is the server's; a click on it opens its note in the notes pane.
    qtbot.waitUntil(lambda: list(_painted(context)) == [highlight_id])
    qtbot.waitUntil(
        lambda: any(card.entry.id == note["id"] and not card.entry.pending for card in pane.cards)
    )
    reader = window.reader_pane
    span = reader.highlight_painter.span_of(highlight_id)
    assert span is not None
    cursor = QTextCursor(reader.browser.document())
    cursor.setPosition(span.start + 2)
    reader.browser.setTextCursor(QTextCursor(reader.browser.document()))  # no selection
    point = reader.browser.cursorRect(cursor).center()
    qtbot.mouseClick(reader.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: pane.current_highlight == highlight_id)
    shown = pane.shown_for_highlight
    assert shown is not None
    assert getattr(shown, "entry", None) is not None
    assert shown.entry.id == note["id"]  # type: ignore[attr-defined]
    assert PHRASE in shown.quote.text()  # type: ignore[attr-defined]


class NotesSeen:
    """What the notes pane said each time it drew the thread: its heading and, for each
    highlight, its line (state and how many notes)."""

    def __init__(self, pane: ThreadPane) -> None:
        self.pane = pane
        self.seen: list[tuple[str, tuple[str, ...]]] = []
        pane.thread_shown.connect(self.record)

    def record(self) -> None:
        rows = tuple(row.facts.text() for row in self.pane.highlight_rows)
        self.seen.append((self.pane.heading.text(), rows))


def test_a_note_on_a_selection_is_one_note_while_the_server_processes_it(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: Any,
    emulator_profile: str,
) -> None:
    # The server takes its time: its copies come back with the saves' answers, and the
    # saves wait, accepted, for a pull to list them processed.
    server = emulator_factory(
        library=copy.deepcopy(LIBRARY), profile=emulator_profile, processing_delay_s=600
    )
    context = window_factory(server=server)
    assert _sync(qtbot, context).outcome is SyncOutcome.OK
    window = context.window
    opened = Emitted(window.entity_opened)
    window.open_entity(PAGE)
    assert opened.wait(qtbot) == [PAGE]
    pane = window.thread_pane
    _select_second_phrase(context)
    qtbot.keyClick(window.reader_pane.browser, Qt.Key.Key_N, CTRL_SHIFT)
    qtbot.waitUntil(lambda: pane.editor is not None and pane.editor.isVisible())
    editor = pane.editor
    assert editor is not None
    qtbot.keyClicks(editor.editor, "Twice a month is enough.")
    seen = NotesSeen(pane)
    sent = Emitted(context.controller.sync_finished)
    editor.save_button.click()
    assert sent.wait(qtbot, 60_000)[0].outcome is SyncOutcome.OK

    # The server's copy of the note is shown, on the server's highlight, as one note.
    def server_copy_shown() -> bool:
        cards = pane.cards
        return len(cards) == 1 and not cards[0].entry.pending and bool(pane.highlight_rows)

    qtbot.waitUntil(server_copy_shown, timeout=10_000)
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.refresh()
    assert [row.highlight.pending for row in pane.highlight_rows] == [False]
    outbox = pane.outbox
    assert outbox is not None
    # Both saves wait for a pull to list them: the queued note and its copy are still two.
    assert len(outbox.list(states=["accepted"])) == 2
    # (A draw read before the note was queued may land first.)
    drawn = list(dropwhile(lambda said: said[0].startswith("No notes"), seen.seen))
    assert drawn, seen.seen
    for heading, rows in drawn:
        assert heading == "1 note on Compost at home", seen.seen
        assert [row.endswith("1 note") for row in rows] == [True], seen.seen
