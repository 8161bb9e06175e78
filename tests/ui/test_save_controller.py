"""Saving links: queued durably before the toast says so, undone only as far as the outbox says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.saving import Saving, saving_controller
from support.signals import Emitted

from memex_desktop.errors import ConnectionState, queued_links_words, user_message
from memex_desktop.paths import cache_db_path
from memex_desktop.store import CacheReader, DiskFullError, Outbox
from memex_desktop.sync.notes import queue_note
from memex_desktop.ui.drops import PLAIN_TEXT, judge_drop
from memex_desktop.ui.save_controller import StayingSave, UndoResult, undo_text
from memex_desktop.ui.sync_controller import OutboxCounts

pytestmark = pytest.mark.gui

# The saving fixture has no Memex account: a notice says when its links are saved.
NO_ACCOUNT = ConnectionState.NOT_CONFIGURED


@pytest.fixture
def saving(qtbot: Any, tmp_path: Path) -> Iterator[Saving]:
    with saving_controller(qtbot, tmp_path) as made:
        yield made


def _queued_urls(outbox_path: Path) -> list[str]:
    with Outbox(outbox_path) as outbox:
        return [op.url for op in outbox.list()]


def _save(qtbot: Any, saving: Saving, urls: list[str]) -> list[Any]:
    queued = Emitted(saving.saves.saves_queued)
    saving.saves.save_urls(urls)
    return queued.wait(qtbot, 10_000)


def test_links_are_queued_before_the_toast_says_so(qtbot: Any, saving: Saving) -> None:
    results, refused = _save(qtbot, saving, ["https://a.example/1", "javascript:alert(1)"])
    assert [r.status for r in results] == ["queued"]
    assert len(refused) == 1
    assert _queued_urls(saving.outbox_path) == ["https://a.example/1"]
    assert saving.toast.text() == f"{queued_links_words(1, NO_ACCOUNT)} · 1 not saved."
    assert saving.toast.details_lines() == [
        "Only web links (http and https) can be saved; javascript: links are refused.",
        "    javascript:alert(1)",
    ]


def test_the_outbox_pane_says_what_a_queued_note_is(qtbot: Any, saving: Saving) -> None:
    saving.writer.ingest_json(
        [{"id": "page", "type": "web", "title": "Compost at home", "created_at": 1}]
    ).result(timeout=60)
    reader = CacheReader(cache_db_path(saving.outbox_path.parent))
    with Outbox(saving.outbox_path) as outbox:
        queued = queue_note(outbox, reader, "Turn it weekly.\nAnd keep it damp.", target_id="page")
        outbox.enqueue_url("https://a.example/1")
    reader.close()
    model = saving.pane.model
    with qtbot.waitSignal(model.modelReset, timeout=10_000):
        saving.saves.refresh_outbox()
    shown = {model.index(row, 0).data() for row in range(model.rowCount())}
    assert shown == {"Note on “Compost at home”: Turn it weekly.", "https://a.example/1"}
    assert queued.op is not None
    assert queued.op.external_id not in str(shown)


def test_undo_removes_saves_not_sent_yet(qtbot: Any, saving: Saving) -> None:
    _save(qtbot, saving, ["https://a.example/1", "https://a.example/2"])
    task = saving.saves.undo_last()
    assert task is not None
    done = Emitted(task.finished)
    done.wait(qtbot, 10_000)
    assert _queued_urls(saving.outbox_path) == []
    assert saving.toast.text() == "2 saves undone."
    assert saving.saves.undo_last() is None  # nothing left to undo


def test_undo_after_the_save_left_says_so_and_keeps_it(qtbot: Any, saving: Saving) -> None:
    _save(qtbot, saving, ["https://a.example/1"])
    with Outbox(saving.outbox_path) as outbox:
        assert outbox.claim_next() is not None  # a sync is sending it now
    task = saving.saves.undo_last()
    assert task is not None
    Emitted(task.finished).wait(qtbot, 10_000)
    assert saving.toast.text() == "Too late to undo: it is on the way to Memex."
    assert _queued_urls(saving.outbox_path) == ["https://a.example/1"]
    # Memex has not named its item yet: the button shows the save in the outbox.
    assert saving.toast.open_button.isVisibleTo(saving.toast)
    assert saving.toast.open_button.text() == "Show in outbox"


def test_the_toast_undo_button_undoes_the_saves_it_announced(qtbot: Any, saving: Saving) -> None:
    _save(qtbot, saving, ["https://a.example/1"])
    assert saving.toast.undo_button.isVisibleTo(saving.toast)
    saving.toast.undo_button.click()
    qtbot.waitUntil(lambda: saving.toast.text() == "Save undone.", timeout=10_000)
    assert _queued_urls(saving.outbox_path) == []
    # The pane lists the outbox again: the undone save is gone from it.
    qtbot.waitUntil(lambda: saving.pane.model.rowCount() == 0, timeout=10_000)


def test_a_failed_queue_is_told_through_the_message_bridge(
    qtbot: Any, saving: Saving, tmp_path: Path
) -> None:
    saving.outbox_path.mkdir()  # no database can be opened there
    told = Emitted(saving.runner.messages.shown)
    saving.saves.save_urls(["https://a.example/1"])
    message = told.wait(qtbot, 10_000)[0]
    assert message.text.startswith("The links could not be queued: ")
    assert message.level == "error"


def test_links_the_outbox_could_not_take_are_named_with_the_reason(
    qtbot: Any, saving: Saving, monkeypatch: pytest.MonkeyPatch
) -> None:
    enqueue = Outbox.enqueue_url
    taken: list[str] = []
    full = DiskFullError("writing outbox.db: the disk is full")
    full.file = saving.outbox_path

    def fills_after_two(outbox: Outbox, url: str, **options: Any) -> Any:
        if len(taken) == 2:
            raise full
        taken.append(url)
        return enqueue(outbox, url, **options)

    monkeypatch.setattr(Outbox, "enqueue_url", fills_after_two)
    urls = [f"https://a.example/{number}" for number in range(5)]
    results, refused = _save(qtbot, saving, urls)
    monkeypatch.undo()
    # The two queued are said queued (and can be undone); the three others are named.
    assert [r.status for r in results] == ["queued", "queued"]
    assert _queued_urls(saving.outbox_path) == urls[:2]
    assert [verdict.url for verdict in refused] == urls[2:]
    assert saving.toast.text() == f"{queued_links_words(2, NO_ACCOUNT)} · 3 not saved."
    words = user_message(full)
    assert words.text == "The disk is full: outbox.db could not be written."
    assert saving.toast.details_lines() == [
        f"{words.text} {words.action}",
        *(f"    {url}" for url in urls[2:]),
    ]
    assert saving.toast.undo_button.isVisibleTo(saving.toast)


def test_a_link_with_a_password_is_refused_and_shown_without_it(qtbot: Any, saving: Saving) -> None:
    results, refused = _save(qtbot, saving, ["https://alice:secret@a.example/1"])
    assert results == []
    assert [verdict.url for verdict in refused] == ["https://***@a.example/1"]
    assert _queued_urls(saving.outbox_path) == []
    assert "secret" not in saving.toast.text()
    assert saving.toast.text().startswith("Not saved: https://***@a.example/1 — The link holds a")


def test_a_pasted_link_with_a_password_is_refused_too() -> None:
    verdicts = judge_drop({PLAIN_TEXT: b"look: https://bob:hunter2@b.example/x and more"})
    assert [(v.url, v.accepted) for v in verdicts] == [("https://***@b.example/x", False)]
    assert "hunter2" not in verdicts[0].reason


def _staying(*op_ids: int, sent: bool = True) -> list[StayingSave]:
    return [StayingSave(op_id, f"https://a.example/{op_id}", sent, None) for op_id in op_ids]


@pytest.mark.parametrize(
    ("undone", "staying", "gone", "text"),
    [
        ([1], [], [], "Save undone."),
        ([1, 2], [], [], "2 saves undone."),
        ([], _staying(1), [], "Already sent to Memex; it stays in your library."),
        ([], _staying(1, 2), [], "Already sent to Memex; they stay in your library."),
        ([], _staying(1, sent=False), [], "Too late to undo: it is on the way to Memex."),
        ([], _staying(1, 2, sent=False), [], "Too late to undo: they are on the way to Memex."),
        (
            [1],
            _staying(2, 3),
            [],
            "1 save undone; 2 were already sent to Memex and stay in your library.",
        ),
        (
            [1, 2],
            [*_staying(3), *_staying(4, sent=False)],
            [],
            "2 saves undone; 1 was already sent to Memex and stays in your library; "
            "1 is on the way to Memex.",
        ),
        ([], [], [4], "Nothing to undo: that save is no longer in the outbox."),
        ([1], [], [4], "1 save undone; 1 no longer in the outbox."),
    ],
)
def test_undo_text_says_only_what_the_outbox_confirmed(
    undone: list[int], staying: list[StayingSave], gone: list[int], text: str
) -> None:
    result = UndoResult(undone, staying, OutboxCounts(0, 0, 0), gone)
    assert undo_text(result) == text
