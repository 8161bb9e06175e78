"""Pasted and dropped text -> what is queued; a big drop queues all or names each refused link."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData
from PySide6.QtGui import QGuiApplication
from support.saving import Saving, saving_controller
from support.signals import Emitted

from memex_desktop.errors import ConnectionState, queued_links_words
from memex_desktop.store import Outbox
from memex_desktop.ui import drops
from memex_desktop.ui.drops import PLAIN_TEXT, URI_LIST, judge_drop, too_many_reason
from memex_desktop.ui.save_controller import SaveController

# (name, pasted text, the URLs queued for saving)
SAVED: list[tuple[str, str, list[str]]] = [
    (
        "prose around a link",
        "read this: https://clip.example.com/article, it's good",
        ["https://clip.example.com/article"],
    ),
    ("www becomes https", "www.example.com/x.", ["https://www.example.com/x"]),
    (
        "www and tracking variants are one save",
        "https://example.com/a www.example.com/a https://example.com/a?fbclid=1",
        ["https://example.com/a"],
    ),
    (
        "only web links are saved",
        "javascript:alert(1) ftp://f.example.com/a https://ok.example.com/a mailto:a@b.example",
        ["https://ok.example.com/a"],
    ),
    ("an e-mail address saves nothing", "bob@example.com", []),
]

# The saving fixture has no Memex account: a notice says when its links are saved.
NO_ACCOUNT = ConnectionState.NOT_CONFIGURED


@pytest.mark.parametrize(("text", "saved"), [c[1:] for c in SAVED], ids=[c[0] for c in SAVED])
def test_urls_saved_from_pasted_text(text: str, saved: list[str]) -> None:
    verdicts = judge_drop({PLAIN_TEXT: text.encode()})
    assert [verdict.url for verdict in verdicts if verdict.accepted] == saved
    refused = [verdict for verdict in verdicts if not verdict.accepted]
    assert all(verdict.reason for verdict in refused)


def _links(count: int) -> list[str]:
    return [f"https://big.example.com/article/{number}" for number in range(count)]


def test_a_drop_past_the_limit_names_every_link_it_does_not_queue() -> None:
    links = _links(drops.MAX_URLS_PER_DROP + 3)
    verdicts = judge_drop({URI_LIST: "\n".join(links).encode()})
    assert [v.url for v in verdicts] == links
    assert all(v.accepted for v in verdicts[: drops.MAX_URLS_PER_DROP])
    refused = verdicts[drops.MAX_URLS_PER_DROP :]
    assert [(v.url, v.accepted, v.reason) for v in refused] == [
        (url, False, too_many_reason()) for url in links[-3:]
    ]


@pytest.fixture
def saving(qtbot: Any, tmp_path: Path) -> Iterator[Saving]:
    with saving_controller(qtbot, tmp_path) as made:
        yield made


def _drop(qtbot: Any, controller: SaveController, text: str) -> tuple[list[Any], list[Any]]:
    mime = QMimeData()
    mime.setData(PLAIN_TEXT, text.encode())
    queued = Emitted(controller.saves_queued)
    controller.save_dropped(mime)
    results, refused = queued.wait(qtbot, 60_000)
    return results, refused


@pytest.mark.gui
def test_a_250_link_drop_queues_all_250(qtbot: Any, saving: Saving) -> None:
    controller, toast, outbox_path = saving.saves, saving.toast, saving.outbox_path
    links = _links(250)
    results, refused = _drop(qtbot, controller, "\n".join(f"- {url}," for url in links))
    assert refused == []
    assert [r.status for r in results] == ["queued"] * 250
    with Outbox(outbox_path) as outbox:
        assert [op.url for op in outbox.list()] == links
    assert toast.text() == f"{queued_links_words(250, NO_ACCOUNT)}."
    assert toast.details_lines() == []


@pytest.mark.gui
def test_links_a_drop_does_not_queue_are_named_in_one_message(
    qtbot: Any, saving: Saving, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller, toast, outbox_path = saving.saves, saving.toast, saving.outbox_path
    monkeypatch.setattr(drops, "MAX_URLS_PER_DROP", 200)
    links = _links(250)
    text = " ".join([*links, "javascript:alert(1)"])
    results, refused = _drop(qtbot, controller, text)
    assert len(results) == 200
    assert [v.url for v in refused] == [*links[200:], "javascript:alert(1)"]
    with Outbox(outbox_path) as outbox:
        assert len(outbox.list()) == 200
    assert toast.text() == f"{queued_links_words(200, NO_ACCOUNT)} · 51 not saved."
    lines = toast.details_lines()
    assert lines[:51] == [too_many_reason(), *(f"    {url}" for url in links[200:])]
    assert lines[51].startswith("Only web links")
    assert lines[52:] == ["    javascript:alert(1)"]
    assert toast.close_button.isVisibleTo(toast)


@pytest.mark.gui
def test_a_drop_with_nothing_to_save_says_which_link_and_why(qtbot: Any, saving: Saving) -> None:
    controller, toast = saving.saves, saving.toast
    results, refused = _drop(qtbot, controller, "see ftp://files.example.com/a.")
    assert (results, len(refused)) == ([], 1)
    assert toast.text() == (
        "Not saved: ftp://files.example.com/a — Only web links (http and https) can be saved; "
        "ftp: links are refused."
    )
    # It names a link not saved: it stays until it is closed, and can be.
    assert toast.stays()
    assert toast.close_button.isVisibleTo(toast)
    toast.close_button.click()
    assert toast.isHidden()


@pytest.mark.gui
def test_pasting_text_from_the_clipboard_saves_the_links_in_it(qtbot: Any, saving: Saving) -> None:
    controller, toast, outbox_path = saving.saves, saving.toast, saving.outbox_path
    QGuiApplication.clipboard().setText("read this: https://clip.example.com/article, it's good")
    queued = Emitted(controller.saves_queued)
    controller.save_clipboard()
    results, refused = queued.wait(qtbot, 10_000)
    assert ([r.status for r in results], refused) == (["queued"], [])
    with Outbox(outbox_path) as outbox:
        assert [op.url for op in outbox.list()] == ["https://clip.example.com/article"]
    assert toast.text() == "1 link queued: it is saved once you connect to Memex."


@pytest.mark.gui
def test_a_clipboard_without_a_link_says_so(qtbot: Any, saving: Saving) -> None:
    controller, toast, outbox_path = saving.saves, saving.toast, saving.outbox_path
    QGuiApplication.clipboard().setText("mail bob@example.com about it")
    queued = Emitted(controller.saves_queued)
    controller.save_clipboard()
    assert queued.wait(qtbot, 10_000) == [[], []]
    assert toast.text() == "Nothing to save: the clipboard holds no link."
    with Outbox(outbox_path) as outbox:
        assert outbox.list() == []
