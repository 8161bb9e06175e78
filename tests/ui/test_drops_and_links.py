"""Drop parsing and the reader's link policy: pure functions, no window needed."""

from __future__ import annotations

import plistlib
from pathlib import Path

import pytest

from memex_desktop.ui.actions import ACTIONS, shortcut_rows
from memex_desktop.ui.drops import (
    MOZ_URL,
    PLAIN_TEXT,
    URI_LIST,
    judge_drop,
    judge_url,
    parse_shortcut_file,
    urls_from_mime,
)
from memex_desktop.ui.links import classify_link, entity_link


def test_uri_list_skips_comments_and_keeps_order() -> None:
    payload = b"# dragged from a browser\r\nhttps://a.example/1\r\nhttps://b.example/2\r\n"
    assert urls_from_mime({URI_LIST: payload}) == ["https://a.example/1", "https://b.example/2"]


def test_moz_url_utf16_pairs_give_urls_not_titles() -> None:
    text = "https://a.example/x\nA title\nhttps://b.example/y\nAnother"
    assert urls_from_mime({MOZ_URL: text.encode("utf-16-le")}) == [
        "https://a.example/x",
        "https://b.example/y",
    ]


def test_plain_text_takes_only_tokens_with_a_scheme() -> None:
    payload = b"look at https://a.example/x and javascript:alert(1) please"
    assert urls_from_mime({PLAIN_TEXT: payload}) == ["https://a.example/x", "javascript:alert(1)"]


def test_uri_list_wins_over_plain_text_and_duplicates_collapse() -> None:
    payloads = {URI_LIST: b"https://a.example/\nhttps://a.example/", PLAIN_TEXT: b"https://b/"}
    assert urls_from_mime(payloads) == ["https://a.example/"]


def test_url_and_webloc_shortcuts_are_resolved(tmp_path: Path) -> None:
    url_file = tmp_path / "Site.url"
    url_file.write_text("[InternetShortcut]\nURL=https://win.example/page\n", encoding="utf-8")
    webloc = tmp_path / "Site.webloc"
    webloc.write_bytes(plistlib.dumps({"URL": "https://mac.example/page"}))
    other = tmp_path / "notes.txt"
    other.write_text("secret", encoding="utf-8")
    payload = "\n".join(p.as_uri() for p in (url_file, webloc, other)).encode()
    urls = urls_from_mime({URI_LIST: payload}, read_file=Path.read_bytes)
    assert urls == ["https://win.example/page", "https://mac.example/page", other.as_uri()]
    verdicts = [
        verdict.accepted for verdict in judge_drop({URI_LIST: payload}, read_file=Path.read_bytes)
    ]
    assert verdicts == [True, True, False]


def test_broken_shortcut_files_give_nothing() -> None:
    assert parse_shortcut_file("x.url", b"not an ini file at all") is None
    assert parse_shortcut_file("x.webloc", b"<plist>broken") is None
    assert parse_shortcut_file("x.txt", b"[InternetShortcut]\nURL=https://a/") is None


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "file:///etc/passwd",
        "data:text/html,<b>x</b>",
        "smb://host/share",
        "ftp://example.org/file",
        "https://",
        "not a link",
    ],
)
def test_non_web_drops_are_refused_with_a_reason(url: str) -> None:
    verdict = judge_url(url)
    assert not verdict.accepted
    assert verdict.reason


def test_web_links_are_accepted() -> None:
    assert judge_url(" https://example.org/a?b=c ").accepted
    assert judge_url("http://example.org").url == "http://example.org"


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("memex://entity/abc-123", "entity"),
        ("memex://entity/yt1?t=83", "entity"),
        ("https://example.org/page", "external"),
        ("http://example.org", "external"),
        ("#t-12", "anchor"),
        ("file:///etc/passwd", "refused"),
        ("javascript:alert(1)", "refused"),
        ("data:text/html,hi", "refused"),
        ("smb://server/share", "refused"),
        ("ms-msdt:/id", "refused"),
        ("memex://settings/reset", "refused"),
        ("memex://entity/../../etc", "refused"),
        ("https:///nohost", "refused"),
    ],
)
def test_link_policy(url: str, kind: str) -> None:
    assert classify_link(url).kind == kind


def test_transcript_time_becomes_an_anchor() -> None:
    target = classify_link(entity_link("yt1", seconds=83.4))
    assert target.entity_id == "yt1"
    assert target.anchor == "t-83"


def test_every_action_has_a_shortcut_and_a_description() -> None:
    keys = [spec.key for spec in ACTIONS]
    assert len(keys) == len(set(keys))
    shortcuts = [(spec.scope, s) for spec in ACTIONS for s in spec.shortcuts]
    assert len(shortcuts) == len(set(shortcuts)), "a shortcut is declared twice"
    for spec in ACTIONS:
        assert spec.shortcuts
        assert spec.description
    assert len(shortcut_rows()) == len(ACTIONS)
