"""Malformed page URLs (tests/fixtures/urls) never stop a render: the bad base is dropped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, markdown_to_safe_html, render_entity, sanitize_html
from memex_desktop.render.sanitize import usable_base_url

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "urls" / "malformed_urls.json"
MALFORMED = {case["name"]: case["url"] for case in json.loads(FIXTURE.read_text())["urls"]}
REFUSED = {name: url for name, url in MALFORMED.items() if name != "userinfo"}
LONG_URL = "https://long.example/" + "a" * 70_000
HTML = '<p>Before <a href="/relative">a relative link</a> <img src="pic.png" alt="pic"> after.</p>'
MARKDOWN = "Before [a relative link](/relative) and ![pic](pic.png) after."


def _render(url: str, body: dict[str, Any]) -> Any:
    data = {"id": "w", "type": "web", "url": url, "canonical_url": url, "title": "T", **body}
    return render_entity(parse_content_entity(data), RenderContext(allow_remote=False))


@pytest.mark.parametrize("url", REFUSED.values(), ids=REFUSED.keys())
def test_a_refused_base_url_is_dropped(url: str) -> None:
    assert usable_base_url(url) is None
    safe, remote = sanitize_html(HTML, allow_remote=False, base_url=url)
    assert "Before" in safe
    assert "after." in safe
    assert "href" not in safe
    assert remote == []
    markdown, _ = markdown_to_safe_html(MARKDOWN, allow_remote=False, base_url=url)
    assert "Before" in markdown
    assert "after." in markdown


@pytest.mark.parametrize("body", [{"html": HTML}, {"full_text": MARKDOWN}], ids=["html", "md"])
@pytest.mark.parametrize("url", [*MALFORMED.values(), LONG_URL], ids=[*MALFORMED, "70k"])
def test_an_item_with_a_malformed_url_renders(url: str, body: dict[str, Any]) -> None:
    doc = _render(url, body)
    assert "Before" in doc.text
    assert "after." in doc.text


def test_a_base_url_loses_its_user_name_and_is_sent_in_ascii() -> None:
    assert usable_base_url(MALFORMED["userinfo"]) == "https://evil.example/login"
    safe, _ = sanitize_html(HTML, allow_remote=False, base_url=MALFORMED["userinfo"])
    assert 'href="https://evil.example/relative"' in safe
    assert "google.com" not in safe
    assert usable_base_url("https://аpple.com/a b#x") == "https://xn--pple-43d.com/a%20b"
    assert usable_base_url("https://s.example/d/p") == "https://s.example/d/p"
    assert usable_base_url(LONG_URL) == LONG_URL
    for unusable in (None, "", "file:///home/me/", "https://", "mailto:a@b.example", "/rel"):
        assert usable_base_url(unusable) is None


@pytest.mark.parametrize("url", REFUSED.values(), ids=REFUSED.keys())
def test_the_header_shows_a_refused_address_as_text_with_its_reason(url: str) -> None:
    html = _render(url, {"full_text": "Body."}).html
    header = html.split('<div class="header">', 1)[1].split("</div>", 1)[0]
    assert "not a usable address" in header
    assert not any(char in header for char in "\u202e\u2028\x00")


def test_the_header_link_shows_where_it_goes_shortened_when_long() -> None:
    header = _render(LONG_URL, {"full_text": "Body."}).html.split("</div>", 1)[0]
    assert f'href="{LONG_URL}"' in header
    assert len(header) < len(LONG_URL) + 1_000  # the label is shortened, the link is whole
    assert "…" in header
    userinfo = _render("https://google.com@evil.example/login", {"full_text": "Body."}).html
    assert "google.com@" not in userinfo.split("</div>", 1)[0]
    assert "https://evil.example/login" in userinfo
