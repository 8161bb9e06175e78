"""The search indexes are contentless: a change to extraction must come with a version bump.

Removing an old row from an FTS5 contentless index re-derives its terms with today's code, so
extraction that changes without ``EXTRACT_VERSION`` changing corrupts the index silently.
This test holds a digest of extraction over a fixed corpus next to the version it belongs
to. After an intended change: raise ``EXTRACT_VERSION`` in ``store/ingest.py``, then record
the new digest with ``UPDATE_EXTRACT_DIGEST=1 .venv/bin/pytest`` on this file.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import extract
from memex_desktop.store.ingest import EXTRACT_VERSION, FTS_FINGERPRINT

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORD = FIXTURES / "store" / "extract_digest.json"


def _corpus() -> list[dict[str, Any]]:
    """The render fixtures and a generated library: every type, rich text, chats, notes."""
    cases = json.loads((FIXTURES / "render" / "entities.json").read_text(encoding="utf-8"))
    found = [entity for case in cases.values() for entity in [case["entity"], *case["library"]]]
    marked_up = [
        {"id": "md-title", "type": "annotation", "text": "**Bold** [a link](https://a.example/x)"},
        {"id": "cite", "type": "web", "title": "See {{content:md-title}} and <b>tags</b>",
         "url": "https://www.example.com/page?fbclid=1&utm_source=x"},
    ]  # fmt: skip
    return found + marked_up + generate_library(200, seed=1, words_per_entity=60)["results"]


def extraction_digest() -> str:
    """A digest of everything the index and the edges are derived from, over the corpus."""
    hashed = hashlib.sha256()
    for entity in _corpus():
        derived = {
            "columns": extract.columns(entity),
            "references": extract.own_references(entity),
            "tags": extract.tag_ids_of(entity),
        }
        hashed.update(json.dumps(derived, sort_keys=True, ensure_ascii=False).encode())
    return hashed.hexdigest()


def digest_problem(version: int, digest: str, recorded: dict[str, Any]) -> str | None:
    """What is wrong with extraction ``digest`` at ``version`` given the recorded pair."""
    if version == recorded["extract_version"]:
        if digest == recorded["digest"]:
            return None
        return (
            "extraction changed for the same JSON: bump EXTRACT_VERSION in store/ingest.py "
            "(the contentless indexes must be rebuilt), then record the new digest"
        )
    return (
        f"EXTRACT_VERSION is {version} but the digest recorded is for "
        f"{recorded['extract_version']}: record it with UPDATE_EXTRACT_DIGEST=1"
    )


def test_extraction_matches_its_version() -> None:
    digest = extraction_digest()
    if os.environ.get("UPDATE_EXTRACT_DIGEST") == "1":
        record = {"extract_version": EXTRACT_VERSION, "digest": digest}
        RECORD.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    assert digest_problem(EXTRACT_VERSION, digest, recorded) is None, digest_problem(
        EXTRACT_VERSION, digest, recorded
    )


def test_a_change_to_extraction_without_a_bump_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    # A plausible edit: the summary also holds the item's keywords twice.
    original = extract.summary_text
    monkeypatch.setattr(extract, "summary_text", lambda data: original(data) + " extra")
    problem = digest_problem(EXTRACT_VERSION, extraction_digest(), recorded)
    assert problem is not None
    assert "bump EXTRACT_VERSION" in problem


def test_a_bump_without_a_new_digest_is_caught() -> None:
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    problem = digest_problem(EXTRACT_VERSION + 1, recorded["digest"], recorded)
    assert problem is not None
    assert "UPDATE_EXTRACT_DIGEST=1" in problem


def test_the_fingerprint_follows_unicode_data_not_the_python_version() -> None:
    assert f"unicode-{unicodedata.unidata_version}" in FTS_FINGERPRINT
    assert platform.python_version() not in FTS_FINGERPRINT
