"""A note on a passage in the notes pane: the quote once, the note named by its own words,
and the queued note and the server's copy of it counted as one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from support.caches import processed_item

from memex_desktop.store import CacheReader, ChangeSet, Outbox, OutboxOp, StoreWriter
from memex_desktop.store.save_description import saved_items
from memex_desktop.sync.highlights import Passage, queue_note_on_passage
from memex_desktop.ui.note_editor import NoteEditor, quoted_passage
from memex_desktop.ui.outbox_pane import OutboxModel
from memex_desktop.ui.tasks import TaskRunner
from memex_desktop.ui.thread_pane import ThreadPane

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

T0 = 1_700_000_000_000
QUOTE = "Track items per second, time to first usable screen and the number of retries."
PASSAGE = Passage(QUOTE, "restart everything from zero. Measure it. ", " If you do not measure")
WORDS = "Twice a week is enough."


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[tuple[Path, StoreWriter]]:
    """A page holding the passage."""
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    page = processed_item(
        "page",
        "web",
        T0,
        title="Sync is a feature",
        url="https://example.org/sync",
        full_text=f"When a sync fails, restart everything from zero. Measure it. {QUOTE} If you "
        "do not measure sync, you are not designing it.",
    )
    writer.ingest_json([page]).result(timeout=30)
    yield path, writer
    writer.close()


@pytest.fixture
def outbox(tmp_path: Path, cache: tuple[Path, StoreWriter]) -> Iterator[Outbox]:
    box = Outbox(tmp_path / "outbox.db", cache_path=cache[0])
    yield box
    box.close()


@pytest.fixture
def pane(
    qtbot: Any, cache: tuple[Path, StoreWriter], outbox: Outbox, runner: TaskRunner
) -> Iterator[ThreadPane]:
    reader = CacheReader(cache[0])
    widget = ThreadPane(reader, runner, outbox=outbox)
    qtbot.addWidget(widget)
    widget.resize(500, 600)
    yield widget
    widget.close()
    reader.close()


def _show(qtbot: Any, pane: ThreadPane) -> None:
    """Show the page's notes and wait until they are drawn (they are read on a worker)."""
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.show_entity("page")


def _queue_note(cache: tuple[Path, StoreWriter], outbox: Outbox, text: str) -> list[OutboxOp]:
    """Queue a note on the passage as the editor does (its highlight first); both saves."""
    with CacheReader(cache[0]) as reader:
        queue_note_on_passage(outbox, reader, text, PASSAGE, target_id="page")
    return outbox.list()


def _sent_back(
    qtbot: Any,
    pane: ThreadPane,
    cache: tuple[Path, StoreWriter],
    ops: list[OutboxOp],
    *,
    with_external_ids: bool = True,
    note_answer_read: bool = True,
) -> None:
    """The saves reached the server, which sent its copies back (still processing): cached,
    and the saves accepted but not confirmed yet."""
    highlight_op, note_op = ops
    highlight = processed_item(
        "hl-1",
        "selector",
        T0 + 1,
        target_id="page",
        selector_type="text_selector",
        text=QUOTE,
        prefix=PASSAGE.prefix,
        suffix=PASSAGE.suffix,
        reference_content_ids=["page"],
        external_id=highlight_op.external_id,
    )
    payload = note_op.payload or {}
    note = processed_item(
        payload["id"],  # the server keeps the client id the note was sent with
        "annotation",
        T0 + 2,
        text=payload["text"],
        content=payload["content"],
        reference_content_ids=["page", "hl-1"],
    )
    note["metadata"] = {"status": "pending"}
    if with_external_ids:
        note["external_id"] = note_op.external_id
    changes: ChangeSet = cache[1].ingest_json([highlight, note]).result(timeout=30)
    outbox = pane.outbox
    assert isinstance(outbox, Outbox)
    outbox.mark_accepted(highlight_op.id, "hl-1")
    outbox.mark_accepted(note_op.id, note["id"] if note_answer_read else None)
    with qtbot.waitSignal(pane.thread_shown, timeout=5000):
        pane.on_store_changed(changes)


def test_a_note_on_a_passage_shows_the_quote_once(
    qtbot: Any, pane: ThreadPane, cache: tuple[Path, StoreWriter], outbox: Outbox
) -> None:
    ops = _queue_note(cache, outbox, quoted_passage(QUOTE) + WORDS)
    _show(qtbot, pane)

    def shown_once(pending: bool) -> None:
        [card] = pane.cards
        assert card.entry.pending is pending
        assert card.quote.isVisibleTo(card)
        assert card.quote.text() == f"On “{QUOTE}”"
        body = card.body.toPlainText()
        assert WORDS in body
        assert QUOTE[:20] not in body  # neither as "> Track items…" nor as a card for it
        assert "Also mentions" not in body
        assert ">" not in body

    shown_once(pending=True)
    _sent_back(qtbot, pane, cache, ops)
    shown_once(pending=False)


def test_a_note_sent_back_by_the_server_is_one_note_of_its_highlight(
    qtbot: Any, pane: ThreadPane, cache: tuple[Path, StoreWriter], outbox: Outbox
) -> None:
    ops = _queue_note(cache, outbox, quoted_passage(QUOTE) + WORDS)
    _show(qtbot, pane)
    assert pane.heading.text() == "1 note on Sync is a feature"
    [row] = pane.highlight_rows
    assert row.facts.text().endswith("1 note")

    # The server's copies are cached while the saves wait to be seen in a pull: still one.
    _sent_back(qtbot, pane, cache, ops)
    assert pane.heading.text() == "1 note on Sync is a feature"
    [row] = pane.highlight_rows
    assert row.highlight.id == "hl-1"
    assert row.facts.text() == "1 note"
    [card] = pane.cards
    assert not card.entry.pending
    assert card.highlight is not None
    assert card.highlight.id == "hl-1"


def test_a_note_the_server_keeps_by_its_client_id_alone_is_shown_once(
    qtbot: Any, pane: ThreadPane, cache: tuple[Path, StoreWriter], outbox: Outbox
) -> None:
    """A server that keeps a note's client ``id`` but not its ``external_id``, its answer not
    read (the save is accepted without an id): the cached copy is the queued note."""
    ops = _queue_note(cache, outbox, quoted_passage(QUOTE) + WORDS)
    _show(qtbot, pane)
    _sent_back(qtbot, pane, cache, ops, with_external_ids=False, note_answer_read=False)
    assert [(entry.id, entry.pending) for _d, entry in pane.shown()] == [
        ((ops[1].payload or {})["id"], False)
    ]
    assert pane.heading.text() == "1 note on Sync is a feature"
    [row] = pane.highlight_rows
    assert row.facts.text() == "1 note"


def _heading(editor: NoteEditor) -> str:
    return editor.findChildren(QLabel)[0].text()


def test_a_reply_names_the_note_by_its_own_words(
    qtbot: Any, pane: ThreadPane, cache: tuple[Path, StoreWriter]
) -> None:
    text = quoted_passage(QUOTE) + WORDS + "\nMore on Monday."
    notes = [
        processed_item("n1", "annotation", T0 + 1, text=text, reference_content_ids=["page"]),
        # A note that says nothing but the quote is named by the quote.
        processed_item(
            "n2", "annotation", T0 + 2, text=quoted_passage(QUOTE), reference_content_ids=["page"]
        ),
    ]
    cache[1].ingest_json(notes).result(timeout=30)
    _show(qtbot, pane)
    assert _heading(pane.open_editor("n1")) == f"Reply to: {WORDS}"
    assert _heading(pane.open_editor("n2")) == f"Reply to: {QUOTE}"


def test_the_outbox_says_a_note_on_a_passage_in_its_own_plain_words(
    qtbot: Any, cache: tuple[Path, StoreWriter], outbox: Outbox
) -> None:
    ops = _queue_note(cache, outbox, quoted_passage(QUOTE) + WORDS)
    model = OutboxModel()
    with CacheReader(cache[0]) as reader:
        model.set_ops(ops, saved_items(reader, ops))
    lines = [model.data(model.index(row, 0), Qt.ItemDataRole.DisplayRole) for row in (0, 1)]
    assert f"Note on “Sync is a feature”: {WORDS}" in lines
    assert not any(">" in line for line in lines)
