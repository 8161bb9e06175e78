"""A window opened over a damaged outbox.db tells how many saves were recovered and where the
damaged file was copied."""

from __future__ import annotations

from typing import Any

import pytest
from support.window import WindowFactory

from memex_desktop import paths
from memex_desktop.store import Outbox

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


def test_the_window_says_how_many_saves_were_recovered_and_where_the_copy_is(
    qtbot: Any, window_factory: WindowFactory
) -> None:
    path = paths.outbox_db_path(window_factory.data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    outbox = Outbox(path)
    for index in range(3):
        outbox.enqueue_url(f"https://kept{index}.example/")
    outbox.close()
    with path.open("r+b") as handle:
        handle.seek(4096 * 2)  # an index page: the rows themselves stay readable
        handle.write(b"\x00\xff" * 2048)
    context = window_factory()
    toast = context.window.toast
    qtbot.waitUntil(lambda: "recovered" in toast.text(), timeout=5000)
    [copy] = sorted(path.parent.glob("outbox.db.damaged-*[0-9]"))
    assert "3 saves were recovered" in toast.text()
    assert str(copy) in toast.text()
