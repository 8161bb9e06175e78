"""Libraries in JSON Lines: written as they are generated, read back as a stream, served by the
emulator exactly as the same library given as one object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.emulator.config import EmulatorConfig
from memex_desktop.emulator.kept_libraries import PreparedLibrary
from memex_desktop.emulator.library import read_library_lines, write_library_lines
from memex_desktop.emulator.search import parse_search_request, run_search
from memex_desktop.emulator.state import EmulatorState
from memex_desktop.emulator.synthetic import generate_library, write_generated_library


def _all_pages(state: EmulatorState) -> list[dict[str, Any]]:
    """Every page of a full raw sync with notes, as the client asks for them."""
    pages = []
    for offset in range(0, len(state.entity_ids()), 100):
        body = {"query": "", "raw": True, "limit": 100, "offset": offset,
                "sortBy": "date-desc", "includeNotes": True}  # fmt: skip
        pages.append(json.loads(run_search(state, parse_search_request(body, state))))
    for page in pages:
        page["meta"].pop("remainingUsageBalance", None)
    return pages


def test_a_generated_library_streams_to_the_same_library(tmp_path: Path) -> None:
    path = write_generated_library(tmp_path / "lib.jsonl", 400, seed=5, words_per_entity=30)
    prepared = PreparedLibrary(path, 400, 0.0, reused=False)
    expected = generate_library(400, seed=5, words_per_entity=30)
    assert prepared.load() == expected
    assert prepared.first(3) == expected["results"][:3]
    assert prepared.extras()["referencedTags"] == expected["referencedTags"]
    assert path.read_text(encoding="utf-8").count("\n") == 401  # the extras, then one per entity


def test_the_emulator_serves_a_streamed_library_as_the_same_object(tmp_path: Path) -> None:
    library = generate_library(500, seed=9, words_per_entity=30)
    path = write_generated_library(tmp_path / "lib.jsonl", 500, seed=9, words_per_entity=30)
    from_object = EmulatorState(EmulatorConfig(library=library, balance_micros=10**12))
    from_lines = EmulatorState(EmulatorConfig(library_path=path, balance_micros=10**12))
    try:
        assert from_lines.tags == from_object.tags
        assert from_lines.views == from_object.views
        assert _all_pages(from_lines) == _all_pages(from_object)
    finally:
        from_object.close()
        from_lines.close()


def test_a_reply_without_references_is_told_by_its_earlier_parent(tmp_path: Path) -> None:
    page = {"id": "page", "type": "web", "url": "https://a.example/", "title": "Page"}
    note = {"id": "note", "type": "annotation", "reference_content_ids": ["page"], "text": "n"}
    reply = {"id": "reply", "type": "annotation", "reference_content_ids": ["note"], "text": "r"}
    path = write_library_lines(
        tmp_path / "lib.jsonl", {}, [(page, None), (note, None), (reply, None), (page, None)]
    )
    state = EmulatorState(EmulatorConfig(library_path=path, balance_micros=10**12))
    try:
        assert sorted(state.entity_ids()) == ["note", "page", "reply"]
        body = json.loads(
            run_search(
                state,
                parse_search_request({"raw": True, "limit": 10, "includeNotes": True}, state),
            )
        )
        refs = body["referencesByResultId"]
        assert refs["reply"]["contentEntityIds"] == [{"id": "note", "type": "reply"}]
        assert refs["note"]["contentEntityIds"][0] == "page"
    finally:
        state.close()


def test_a_line_without_an_entity_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "lib.jsonl"
    path.write_text('{}\n{"entity": {"id": "a", "type": "web"}}\n[1, 2]\n', encoding="utf-8")
    extras, pairs = read_library_lines(path)
    assert extras == {}
    assert next(pairs)[0]["id"] == "a"
    with pytest.raises(ValueError, match=r"lib\.jsonl:3"):
        next(pairs)


_GROWTH_CHILD = """
import resource, sys
from memex_desktop.emulator.synthetic import write_generated_library
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
path = write_generated_library(sys.argv[1], 1500, seed=2, words_per_entity=2000)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024, path.stat().st_size)
"""


def test_generating_a_library_holds_one_entity_at_a_time(tmp_path: Path) -> None:
    """The writer's peak memory grows with the few facts later entities draw on, not with the
    JSON written (generated as one object first, it grows by more than the file's size)."""
    done = subprocess.run(
        [sys.executable, "-c", _GROWTH_CHILD, str(tmp_path / "lib.jsonl")],
        capture_output=True,
        text=True,
        check=True,
    )
    grown, written = (int(word) for word in done.stdout.split())
    assert written > 20_000_000
    assert grown < written / 4, (grown, written)
