"""Open at this moment: a transcript line opens the video at its time, after showing the URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from support.signals import Emitted
from support.window import seeded_cache

from memex_desktop.api.urls import moment_url
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

VIDEO = {
    "id": "video-1",
    "type": "youtube",
    "title": "Composting explained",
    "url": "https://www.youtube.com/watch?v=abc123&t=4s",
    "created_at": 1,
    "transcript": {
        "en": [
            {"text": "Welcome to the heap.", "offset": 0},
            {"text": "Turning it keeps it warm.", "offset": 83.6},
            {"text": "A line without a time.", "offset": "later"},
        ]
    },
}


@pytest.mark.parametrize(
    ("url", "seconds", "expected"),
    [
        ("https://www.youtube.com/watch?v=abc&t=5s", 83.7, "https://www.youtube.com/watch?v=abc&t=83s"),
        ("https://youtu.be/abc", 60, "https://youtu.be/abc?t=60s"),
        ("https://m.youtube.com/watch?v=x&start=3&list=L", 9, "https://m.youtube.com/watch?v=x&list=L&t=9s"),
        ("https://vimeo.com/123", 90, "https://vimeo.com/123#t=90"),
        ("https://media.example.org/talk.mp4#old", 12, "https://media.example.org/talk.mp4#t=12"),
        ("javascript:alert(1)", 3, None),
        ("file:///home/me/video.mp4", 3, None),
        ("not a url", 3, None),
        ("https://youtu.be/abc", -1, None),
    ],
)  # fmt: skip
def test_a_moment_is_the_video_address_at_that_time(
    url: str, seconds: float, expected: str | None
) -> None:
    assert moment_url(url, seconds) == expected


def test_open_at_this_moment_shows_then_opens_the_video_at_its_time(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = TaskRunner(max_threads=1)
    pane = ReaderPane(seeded_cache(tmp_path / "cache.db", {"results": [VIDEO]}), runner)
    qtbot.addWidget(pane)
    shown = Emitted(pane.entity_shown)
    pane.show_entity("video-1")
    shown.wait(qtbot, 10_000)
    html = pane.browser.document().toHtml()
    hrefs = [part.split('"', 1)[0] for part in html.split('href="')[1:]]
    moments = [href for href in hrefs if "youtube.com" in href and not href.endswith("t=4s")]
    assert "https://www.youtube.com/watch?v=abc123&amp;t=83s" in moments
    assert "https://www.youtube.com/watch?v=abc123&amp;t=0s" in moments
    assert len(moments) == 2  # none for the line without a time
    asked: list[str] = []
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", opened.append)
    monkeypatch.setattr(pane, "confirm_external", lambda url: asked.append(url) or True)
    pane.follow_link("https://www.youtube.com/watch?v=abc123&t=83s")
    assert asked == ["https://www.youtube.com/watch?v=abc123&t=83s"]
    assert [url.toString() for url in opened] == asked
    declined: list[str] = []
    monkeypatch.setattr(pane, "confirm_external", lambda url: declined.append(url) or False)
    pane.follow_link("https://www.youtube.com/watch?v=abc123&t=0s")
    assert declined == ["https://www.youtube.com/watch?v=abc123&t=0s"]
    assert len(opened) == 1  # nothing opens without the person's yes
    assert runner.shutdown(10_000)
