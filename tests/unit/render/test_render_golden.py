"""Golden files of every content type, from realistic fixtures.

Review them by eye in tests/fixtures/render/golden/ (``.html`` with one tag per line, ``.txt``).
After an intended change, regenerate with ``UPDATE_GOLDEN=1 .venv/bin/pytest
tests/unit/render/test_render_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from support.render_cases import CASES, FIXTURES, render_case
from support.render_safety import problems

GOLDEN = FIXTURES / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _reviewable(html: str) -> str:
    """The HTML with one tag boundary per line (text never contains a raw '<')."""
    return re.sub(r">\s*<", ">\n<", html).strip() + "\n"


def _check(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing: run with UPDATE_GOLDEN=1 and review it"
    assert path.read_text(encoding="utf-8") == actual, f"{path.name} differs from the rendering"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    doc = render_case(name)
    assert not problems(doc.html)
    _check(GOLDEN / f"{name}.html", _reviewable(doc.html))
    meta = json.dumps({"title": doc.title, "remote_resources": doc.remote_resources}, indent=1)
    _check(GOLDEN / f"{name}.txt", f"{meta}\n---\n{doc.text}\n")


def test_fixtures_cover_the_acceptance_list() -> None:
    assert {
        "youtube_long_transcript",
        "tweet_quote_media",
        "annotation_nested_refs",
        "chat_thread_citations",
        "unknown_type",
        "still_processing",
        "web_full_text",
        "web_html_only",
        "web_description_only",
        "reddit_post",
        "image_item",
        "pdf_paper",
        "book_item",
        "audio_recording",
        "highlight_moment",
        "highlight_text",
        "transcribed_media",
        "invented_type",
    } <= set(CASES)
