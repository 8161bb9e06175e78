"""Dropped links go through the one URL parser: malformed ones are refused, never raised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memex_desktop.ui.drops import PLAIN_TEXT, URI_LIST, judge_drop, judge_url

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "urls" / "malformed_urls.json"
MALFORMED = {case["name"]: case["url"] for case in json.loads(FIXTURE.read_text())["urls"]}
REFUSED = {name: url for name, url in MALFORMED.items() if name != "userinfo"}


@pytest.mark.parametrize("url", REFUSED.values(), ids=REFUSED.keys())
def test_a_malformed_dropped_link_is_refused_with_a_reason(url: str) -> None:
    verdict = judge_url(url)
    assert not verdict.accepted
    assert verdict.reason


@pytest.mark.parametrize("mime", [URI_LIST, PLAIN_TEXT])
def test_a_drop_of_malformed_links_is_judged_link_by_link(mime: str) -> None:
    payload = "\n".join(["https://[::1/x", "file://[x/y.url", "https://ok.example/a"])
    verdicts = judge_drop({mime: payload.encode()}, read_file=lambda path: b"")
    assert [verdict.accepted for verdict in verdicts] == [False, False, True]


def test_a_link_the_outbox_would_refuse_is_refused_on_drop() -> None:
    verdict = judge_url("https://example.org/a b")
    assert not verdict.accepted
    assert verdict.reason.startswith("The link cannot be saved:")
    assert judge_url(" https://example.org/a ").url == "https://example.org/a"
