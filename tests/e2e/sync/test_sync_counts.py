"""A sync's summary counts each item it wrote once: a first sync of N items says N.

Notes name other items, and the pages that hold a note also hold the items it names: those
are written when the note's page is, and again when their own page comes. Past the ids a
change set lists (``rows.LISTED_CHANGES``, lowered here so that a small library goes past
them as one of over 10,000 items does) an item was only counted, so it counted twice.
"""

from __future__ import annotations

from typing import Any

import pytest

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import rows
from memex_desktop.sync import SyncOutcome
from memex_desktop.sync.summary import sync_sentence

pytestmark = pytest.mark.e2e

ITEMS = 600
LISTED = 100


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(ITEMS, seed=3, words_per_entity=20)


def _notes_naming_other_items(library: dict[str, Any]) -> int:
    """How many notes name another item of the library."""
    ids = {entity["id"] for entity in library["results"]}
    return sum(
        1
        for entity in library["results"]
        if entity["type"] == "annotation"
        and any(target in ids for target in entity.get("reference_content_ids", []))
    )


def test_a_first_sync_counts_each_item_once(
    library: dict[str, Any],
    one_profile_emulator: Any,
    harness_factory: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _notes_naming_other_items(library) > 50
    monkeypatch.setattr(rows, "LISTED_CHANGES", LISTED)
    emulator = one_profile_emulator(library)
    harness = harness_factory(emulator.base_url, emulator.api_key)

    report = harness.engine.run(full=True)

    assert report.outcome is SyncOutcome.OK
    cached = harness.reader._query("SELECT count(DISTINCT id) FROM entities")[0][0]
    distinct = len({entity["id"] for entity in library["results"]})
    assert cached == distinct == ITEMS
    assert report.changes.unlisted_changes > 0  # the count went past the listed ids
    assert report.changes.changed_count == ITEMS
    assert sync_sentence(report, 2.0) == f"Synced {ITEMS:,} items in 2.0 s."

    again = harness.engine.run(full=True)
    assert again.outcome is SyncOutcome.OK
    assert again.changes.changed_count == 0
    assert sync_sentence(again, 2.0) == "Up to date."


def test_a_sync_that_finds_nothing_new_does_not_say_it_found_some(
    library: dict[str, Any], one_profile_emulator: Any, harness_factory: Any
) -> None:
    """The newest pages are read to find what changed: their count is what was read, not
    "100 new or changed items" before "Up to date."."""
    emulator = one_profile_emulator(library)
    harness = harness_factory(emulator.base_url, emulator.api_key)
    assert harness.engine.run(full=True).outcome is SyncOutcome.OK
    said: list[str] = []
    again = harness.engine.run(progress=lambda progress: said.append(progress.message))
    assert again.outcome is SyncOutcome.OK
    assert sync_sentence(again, 0.3) == "Up to date."
    pulled = [words for words in said if "item" in words]
    assert pulled
    assert all("new" not in words and "changed" not in words for words in pulled), pulled
    assert pulled[-1] == f"Checking for changes: {again.pulled:,} recent items read"
