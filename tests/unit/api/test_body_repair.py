"""Response bodies holding text that is not Unicode are repaired, not refused.

JavaScript's JSON.stringify writes a string cut mid-emoji as a lone surrogate escape, which
pydantic_core refuses while Python's json reads it; a proxy may mangle bytes. Either must
cost the person one character (U+FFFD), never the page.
"""

from __future__ import annotations

import httpx
import pytest
from support.api_client import Recorder, make_client

from memex_desktop.api.client import repaired_json

CASES = [
    # (JSON text of a title, what it reads as)
    (rb'"cut \ud83d"', "cut \ufffd"),
    (rb'"\ude00 starts low"', "\ufffd starts low"),
    (rb'"a pair \ud83d\ude00 stays"', "a pair \U0001f600 stays"),
    (rb'"\ud83d\ud83d\ude00"', "\ufffd\U0001f600"),
    (rb'"\uD83D upper case"', "\ufffd upper case"),
    (rb'"an escaped backslash \\ud83d is text"', "an escaped backslash \\ud83d is text"),
    (rb'"three backslashes \\\ud83d"', "three backslashes \\\ufffd"),
    (b'"bad \xff\xfe bytes"', "bad \ufffd\ufffd bytes"),
    (b'"cut UTF-8 \xf0\x9f"', "cut UTF-8 \ufffd"),
    (b'"an encoded surrogate \xed\xa0\xbd"', "an encoded surrogate \ufffd\ufffd\ufffd"),
]


@pytest.mark.parametrize(("title", "expected"), CASES)
def test_broken_text_reads_as_replacement_characters(title: bytes, expected: str) -> None:
    body = b'{"results": [{"id": "w", "type": "web", "title": ' + title + b"}]}"
    client, _ = make_client(Recorder([httpx.Response(200, content=body)]))
    page = client.search_raw_page()
    assert [entity["title"] for entity in page.results] == [expected]


def test_a_broken_key_is_repaired_too() -> None:
    body = b'{"results": [{"id": "w", "type": "web", "ti\\ud83dtle": "x"}]}'
    client, _ = make_client(Recorder([httpx.Response(200, content=body)]))
    assert "ti\ufffdtle" in client.search_raw_page().results[0]


@pytest.mark.parametrize(
    "body",
    [b'{"results": [', b"<html>502</html>", b'{"a": "\\u00e9"'],
)
def test_bodies_broken_another_way_are_not_repaired(body: bytes) -> None:
    assert repaired_json(body) is None
