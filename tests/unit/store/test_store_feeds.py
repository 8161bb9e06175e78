"""Feed membership: the items the server listed for a feed, remembered for offline reading."""

from __future__ import annotations

from memex_desktop.api.models import Feed
from memex_desktop.store import CacheReader, StoreWriter

T = 1_700_000_000_000  # epoch ms
ENTITIES = [
    {"id": "old-post", "type": "web", "title": "Old", "url": "https://blog.example.com/a",
     "created_at": T + 1000},
    {"id": "new-post", "type": "web", "title": "New", "url": "http://elsewhere.example/b",
     "created_at": T + 3000},
    {"id": "video", "type": "youtube", "title": "Video", "created_at": T + 2000,
     "userLibraryId": "library-row-of-video"},
    {"id": "same-site", "type": "web", "title": "Same site, not in the feed",
     "url": "https://blog.example.com/c", "created_at": T + 4000},
    {"id": "gone", "type": "web", "title": "Gone", "url": "https://blog.example.com/gone",
     "created_at": T + 6000},
]  # fmt: skip
FEEDS = [
    Feed(id="blog", title="Example", site_url="https://blog.example.com/"),
    Feed(id="never-listed", title="Never listed", site_url="https://blog.example.com/"),
]


def test_a_feed_lists_what_the_server_listed_newest_first(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(ENTITIES).result()
    writer.upsert_feeds(FEEDS).result()
    changes = writer.record_feed_members(
        "blog", ["old-post", "new-post", "video", "gone", "not-cached-yet"], complete=True
    ).result()
    writer.mark_deleted_upstream(["gone"]).result()
    assert changes.feed_ids == {"blog"}
    # Not the feed's site: the server's word (same-site is not listed, new-post is).
    assert reader.ids_for_feed("blog") == ["new-post", "video", "old-post"]
    assert reader.ids_for_feed("blog", limit=2) == ["new-post", "video"]
    listing = reader.feed_listing("blog")
    assert listing is not None
    assert listing.complete


def test_a_complete_listing_replaces_and_a_partial_one_adds(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(ENTITIES).result()
    writer.record_feed_members("blog", ["old-post", "new-post"], complete=True).result()
    writer.record_feed_members("blog", ["same-site"], complete=False).result()
    assert reader.ids_for_feed("blog") == ["same-site", "new-post", "old-post"]
    listing = reader.feed_listing("blog")
    assert listing is not None
    assert not listing.complete
    unchanged = writer.record_feed_members("blog", ["same-site"], complete=False).result()
    assert not unchanged.feed_ids
    writer.record_feed_members("blog", ["new-post"], complete=True).result()
    assert reader.ids_for_feed("blog") == ["new-post"]


def test_a_member_named_by_its_other_id_is_the_cached_item(
    writer: StoreWriter, reader: CacheReader
) -> None:
    writer.ingest_json(ENTITIES).result()
    writer.record_feed_members("blog", ["library-row-of-video"], complete=True).result()
    assert reader.ids_for_feed("blog") == ["video"]


def test_a_feed_never_listed_knows_no_items(writer: StoreWriter, reader: CacheReader) -> None:
    writer.ingest_json(ENTITIES).result()
    writer.upsert_feeds(FEEDS).result()
    assert reader.ids_for_feed("never-listed") == []
    assert reader.feed_listing("never-listed") is None
    assert reader.ids_for_feed("missing") == []
