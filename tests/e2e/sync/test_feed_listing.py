"""A feed's items as the server lists them, paged as the full pull pages, on both profiles."""

from __future__ import annotations

from typing import Any

from support.secrets import TEST_API_KEY

from memex_desktop.emulator.synthetic import generate_library

FEED = {"id": "feed-many", "title": "Many posts", "site_url": "https://many.example/"}


def _library_with_a_feed(members: int) -> tuple[dict[str, Any], list[str]]:
    """A generated library whose first ``members`` web pages the server files under FEED."""
    library = generate_library(members * 4, seed=11, words_per_entity=10)
    library["feeds"] = [FEED]
    listed = [entity for entity in library["results"] if entity["type"] == "web"][:members]
    assert len(listed) == members
    for entity in listed:
        entity["feed_id"] = FEED["id"]
    newest_first = sorted(listed, key=lambda e: e["created_at"], reverse=True)
    return library, [entity["id"] for entity in newest_first]


def test_every_page_of_a_feed_is_listed_and_remembered(
    library_emulator: Any, harness_factory: Any
) -> None:
    library, members = _library_with_a_feed(130)  # more than two pages of 50
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    # The first-party profile never lists some items (dropped after its LIMIT): no listing
    # can know them.
    members = [entity_id for entity_id in members if entity_id not in emulator.state.unlisted_ids()]
    listing = harness.engine.feed_items(FEED["id"])
    assert sorted(listing.ids) == sorted(members)
    assert listing.complete
    assert listing.changes.entity_ids >= set(members)
    assert harness.reader.ids_for_feed(FEED["id"]) == members


def test_a_listing_cut_at_its_limit_adds_to_what_was_remembered(
    library_emulator: Any, harness_factory: Any
) -> None:
    library, members = _library_with_a_feed(30)
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    members = [entity_id for entity_id in members if entity_id not in emulator.state.unlisted_ids()]
    assert harness.engine.feed_items(FEED["id"]).complete
    harness.writer.record_feed_members(FEED["id"], ["remembered-before"], complete=False).result()
    partial = harness.engine.feed_items(FEED["id"], limit=10)
    assert len(partial.ids) == 10
    assert not partial.complete
    # A partial listing removes nothing: the older members stay listed offline.
    assert harness.reader.ids_for_feed(FEED["id"]) == members
