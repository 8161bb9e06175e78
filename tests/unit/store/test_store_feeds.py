"""Feed membership: the saves of a followed feed's website, newest first."""

from __future__ import annotations

from memex_desktop.api.models import Feed
from memex_desktop.store import CacheReader, StoreWriter

T = 1_700_000_000_000  # epoch ms
ENTITIES = [
    {"id": "old-post", "type": "web", "title": "Old", "url": "https://blog.example.com/a",
     "created_at": T + 1000},
    {"id": "new-post", "type": "web", "title": "New", "url": "http://www.example.com/b",
     "created_at": T + 3000},
    {"id": "bare-host", "type": "web", "title": "Home", "url": "https://EXAMPLE.com",
     "created_at": T + 2000},
    {"id": "look-alike", "type": "web", "title": "Other", "url": "https://badexample.com/c",
     "created_at": T + 4000},
    {"id": "in-path", "type": "web", "title": "Archive",
     "url": "https://archive.org/web/https://example.com/a", "created_at": T + 5000},
    {"id": "gone", "type": "web", "title": "Gone", "url": "https://example.com/gone",
     "created_at": T + 6000},
    {"id": "broken", "type": "web", "title": "Broken", "url": "http://[example.com",
     "created_at": T + 7000},
]  # fmt: skip
FEEDS = [
    Feed(id="blog", title="Example", feed_url="https://example.com/feed.xml",
         site_url="https://www.example.com/"),
    Feed(id="by-feed-url", title="Feed only", feed_url="https://example.com/rss"),
    Feed(id="no-address", title="Nowhere"),
]  # fmt: skip


def test_a_feed_lists_its_sites_saves_newest_first(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(ENTITIES).result()
    writer.upsert_feeds(FEEDS).result()
    writer.mark_deleted_upstream(["gone"]).result()
    assert reader.ids_for_feed("blog") == ["new-post", "bare-host", "old-post"]
    assert reader.ids_for_feed("by-feed-url") == ["new-post", "bare-host", "old-post"]
    assert reader.ids_for_feed("blog", limit=2) == ["new-post", "bare-host"]


def test_unknown_feeds_and_feeds_without_an_address_list_nothing(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(ENTITIES).result()
    writer.upsert_feeds(FEEDS).result()
    assert reader.ids_for_feed("no-address") == []
    assert reader.ids_for_feed("missing") == []
