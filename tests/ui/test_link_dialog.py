"""The "open in your browser?" dialog tells the truth about where a web link goes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QUrl
from PySide6.QtGui import QDesktopServices
from support.signals import Emitted
from support.window import seeded_cache

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.ui.link_dialog import LinkDialog
from memex_desktop.ui.links import (
    MAX_SHOWN_URL_CHARS,
    LinkConfirmation,
    classify_link,
    elide_middle,
    link_confirmation,
)
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

# The offscreen platform cannot pass size hints on to a window system, and says so.
pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

LONG_URL = "https://long.example/" + "a" * 70_000
CYRILLIC_A = "\u0430"


def _confirmation(url: str) -> LinkConfirmation:
    target = classify_link(url)
    assert target.kind == "external", target.reason
    assert target.address is not None
    return link_confirmation(target.address)


def _everything_shown(confirmation: LinkConfirmation) -> str:
    return "\n".join(
        [confirmation.site, confirmation.host, *confirmation.warnings, confirmation.shown_url]
    )


@pytest.mark.parametrize(
    ("url", "site", "open_url", "warning"),
    [
        ("https://example.org/page?x=1", "example.org", "https://example.org/page?x=1", None),
        ("https://news.bbc.co.uk/a", "bbc.co.uk", "https://news.bbc.co.uk/a", None),
        (
            "https://xn--pple-43d.com/",
            "xn--pple-43d.com",
            "https://xn--pple-43d.com/",
            "mixes Cyrillic and Latin letters, a way to look like another, familiar name",
        ),
        (
            f"https://{CYRILLIC_A}pple.com/",
            "xn--pple-43d.com",
            "https://xn--pple-43d.com/",
            "mixes Cyrillic and Latin letters",
        ),
        (
            "https://яндекс.рф/",
            "xn--d1acpjx3f.xn--p1ai",
            "https://xn--d1acpjx3f.xn--p1ai/",
            "is an international name",
        ),
        (
            "https://google.com@evil.example/login",
            "evil.example",
            "https://evil.example/login",
            "This link hides its real address: evil.example.",
        ),
        (
            "https://paypal.com:secure@login.evil.example:8443/x",
            "evil.example",
            "https://login.evil.example:8443/x",
            "This link hides its real address: evil.example.",
        ),
        ("http://192.168.1.1/admin", "192.168.1.1", "http://192.168.1.1/admin", "bare number"),
        (LONG_URL, "long.example", LONG_URL, None),
    ],
    ids=["plain", "subdomain", "punycode", "homograph", "idn", "userinfo", "userinfo-port", "ip",
         "70k"],
)  # fmt: skip
def test_dialog_content(url: str, site: str, open_url: str, warning: str | None) -> None:
    confirmation = _confirmation(url)
    assert confirmation.site == site
    assert confirmation.open_url == open_url
    if warning is None:
        assert confirmation.warnings == ()
    else:
        assert warning in confirmation.warnings[0]
    shown = _everything_shown(confirmation)
    assert CYRILLIC_A not in shown, "a homograph is never shown in the letters it imitates"
    assert "google.com@" not in shown + confirmation.open_url
    assert len(confirmation.shown_url) <= MAX_SHOWN_URL_CHARS


def test_a_long_address_is_elided_in_the_middle_and_kept_whole() -> None:
    confirmation = _confirmation(LONG_URL)
    assert confirmation.elided
    head, tail = confirmation.shown_url.split("…")
    assert LONG_URL.startswith(head)
    assert head.startswith("https://long.example/")
    assert LONG_URL.endswith(tail)
    assert confirmation.open_url == LONG_URL
    assert not _confirmation("https://example.org/").elided


def test_the_host_names_the_server_and_its_port() -> None:
    assert _confirmation("https://a.b.example.com:8443/").host == "a.b.example.com:8443"


@pytest.mark.parametrize(
    "url",
    [
        "https://a\u202eb.com/",
        "https://moc.elgoog\u202e.evil.example/",
        "https://example.com/\u2066txt.exe\u2069",
        "https://a\u200fb.com/",
    ],
)
def test_direction_controls_are_refused_with_a_reason(url: str) -> None:
    target = classify_link(url)
    assert target.kind == "refused"
    assert target.address is None
    assert "reverse how text reads" in target.reason


@pytest.mark.parametrize(
    "url", ["https://x.com:99999/p", "http://1.2.3.4.5/", "https://[::1/x", "https://a\x00b.com/"]
)
def test_malformed_web_addresses_are_refused(url: str) -> None:
    target = classify_link(url)
    assert target.kind == "refused"
    assert target.reason.startswith("This link is not opened.")


def test_elide_middle() -> None:
    assert elide_middle("abcdef", 6) == "abcdef"
    assert elide_middle("abcdefghij", 7) == "abcd…ij"
    assert len(elide_middle("x" * 1000, 96)) == 96


# --------------------------------------------------------------------------- the real dialog


def test_the_dialog_for_a_70k_address_fits_the_screen(qtbot: Any) -> None:
    dialog = LinkDialog(_confirmation(LONG_URL))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    screen = dialog.screen().availableGeometry()
    assert dialog.width() <= min(800, screen.width())
    assert dialog.frameGeometry().width() <= screen.width()
    assert dialog.height() <= screen.height()
    for button in (dialog.open_button, dialog.cancel_button):
        assert button.isVisible()
        corner = button.mapTo(dialog, QPoint(button.width(), button.height()))
        assert dialog.rect().contains(corner - QPoint(1, 1)), button.text()
    assert dialog.cancel_button.isDefault()
    assert dialog.site_label.text() == "long.example"
    assert dialog.address_label.text() == _confirmation(LONG_URL).shown_url
    assert dialog.full_address is not None
    assert dialog.full_address.toPlainText() == LONG_URL
    assert dialog.full_address.isReadOnly()


def test_the_dialog_shows_the_real_site_and_the_warning(qtbot: Any) -> None:
    dialog = LinkDialog(_confirmation("https://google.com@evil.example/login"))
    qtbot.addWidget(dialog)
    assert dialog.site_label.text() == "evil.example"
    assert (
        dialog.warning_labels[0]
        .text()
        .startswith("⚠ This link hides its real address: evil.example.")
    )
    assert dialog.full_address is None


# --------------------------------------------------------------------------- the reader


@pytest.fixture
def pane(qtbot: Any, tmp_path: Path) -> Iterator[ReaderPane]:
    path = seeded_cache(tmp_path / "cache.db", generate_library(10, seed=3, words_per_entity=5))
    runner = TaskRunner(max_threads=1)
    reader_pane = ReaderPane(path, runner)
    qtbot.addWidget(reader_pane)
    yield reader_pane
    assert runner.shutdown(10_000)


MALFORMED_PAGES = {
    "port": "https://x.com:99999/p",
    "ipv4": "http://1.2.3.4.5/",
    "ipv6": "https://[::1/x",
    "bidi": "https://a\u202eb.com/",
    "separator": "https://a\u2028b.com/",
    "nul": "https://a\x00b.com/",
}


def test_the_reader_shows_items_whose_page_url_is_malformed(qtbot: Any, tmp_path: Path) -> None:
    html = '<p>Before <a href="/relative">a link</a> after.</p>'
    library = {
        "results": [
            {"id": f"bad-{name}", "type": "web", "url": url, "title": name, "html": html}
            for name, url in MALFORMED_PAGES.items()
        ]
    }
    runner = TaskRunner(max_threads=1)
    reader_pane = ReaderPane(seeded_cache(tmp_path / "cache.db", library), runner)
    qtbot.addWidget(reader_pane)
    for name in MALFORMED_PAGES:
        shown = Emitted(reader_pane.entity_shown)
        reader_pane.show_entity(f"bad-{name}")
        shown.wait(qtbot, 10_000)
        text = reader_pane.browser.toPlainText()
        assert "could not be displayed" not in text, name
        assert "Before a link after." in text, name
    assert runner.shutdown(10_000)


def test_a_direction_override_is_refused_before_any_dialog(
    qtbot: Any, pane: ReaderPane, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []
    asked: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", opened.append)
    monkeypatch.setattr(pane, "confirm_external", lambda url: asked.append(url) or True)
    refused = Emitted(pane.link_refused)
    pane.follow_link("https://a\u202eb.com/")
    refused.wait(qtbot, 5_000)
    assert "reverse how text reads" in refused.args[0]
    assert asked == []
    assert opened == []


def test_the_browser_gets_the_address_the_dialog_showed(
    pane: ReaderPane, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []
    asked: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", opened.append)
    monkeypatch.setattr(pane, "confirm_external", lambda url: asked.append(url) or True)
    pane.follow_link("https://google.com@evil.example/login")
    pane.follow_link(f"https://{CYRILLIC_A}pple.com/")
    assert asked == ["https://evil.example/login", "https://xn--pple-43d.com/"]
    assert [url.toString(QUrl.ComponentFormattingOption.FullyEncoded) for url in opened] == asked
