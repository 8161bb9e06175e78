"""A feed lists the items the server says it holds, and still lists them offline."""

from __future__ import annotations

from typing import Any

import pytest
from support.emulator import EmulatorFactory, small_library
from support.window import WindowFactory

from memex_desktop.api.models import Feed
from memex_desktop.ui.sidebar import Scope

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

GARDEN = {
    "id": "feed-garden",
    "title": "Garden notes",
    "feed_url": "https://garden.example/feed.xml",
    "site_url": "https://garden.example/",
    "source_platform": "rss",
}


def _post(entity_id: str, url: str, created_at: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": entity_id, "type": "web", "url": url, "title": f"Post {entity_id}",
        "full_text": "A post.", "created_at": created_at, "updated_at": created_at,
        "metadata": {"status": "indexing-done"}, **fields,
    }  # fmt: skip


def test_a_feed_lists_what_the_server_says_and_remembers_it_offline(
    qtbot: Any,
    window_factory: WindowFactory,
    emulator_factory: EmulatorFactory,
    emulator_profile: str,
) -> None:
    library = small_library()
    library["feeds"].append(GARDEN)
    library["results"] += [
        # The server files this one under the garden feed although it lives elsewhere...
        _post("syndicated", "https://elsewhere.example/copy", 1767300000000, feed_id="feed-garden"),
        _post("garden-post", "https://garden.example/beds", 1767300001000),
        # ...and this one, on the feed's own site, under another feed: no host tells these.
        _post(
            "crossposted", "https://garden.example/blog-copy", 1767300002000, feed_id="feed-blog"
        ),
    ]
    emulator = emulator_factory(library=library, profile=emulator_profile)
    context = window_factory(server=emulator)
    window = context.window
    context.writer.upsert_feeds([Feed.model_validate(feed) for feed in library["feeds"]]).result()
    window.sidebar.refresh()
    feed = Scope("feed", "feed-garden", "Garden notes")

    window.sidebar.select_scope(feed)
    qtbot.waitUntil(
        lambda: window.results_model.ids() == ["garden-post", "syndicated"], timeout=20_000
    )
    assert context.reader.ids_for_feed("feed-garden") == ["garden-post", "syndicated"]
    listing = context.reader.feed_listing("feed-garden")
    assert listing is not None
    assert listing.complete

    # Offline and started again: the cache remembers what the server listed.
    emulator.close()
    window = window_factory(server=emulator).window
    window.sidebar.select_scope(feed)
    qtbot.waitUntil(
        lambda: window.results_model.ids() == ["garden-post", "syndicated"], timeout=20_000
    )
