"""One save per page: www. and tracking variants share a key; keys stored earlier still match."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memex_desktop.store import CacheReader, Outbox, StoreWriter, normalize_url
from memex_desktop.store.outbox import URL_KEYS_VERSION
from memex_desktop.store.urls import earlier_key_prefixes, parse_and_normalize

NORMALISED = [
    ("https://www.example.com/x", "https://example.com/x"),
    ("https://WWW.Example.COM/x/", "https://example.com/x"),
    ("https://www.www.example.com/", "https://example.com"),
    ("https://www.example.com:8443/x", "https://example.com:8443/x"),
    ("https://example.com/x?fbclid=IwAR0abc", "https://example.com/x"),
    ("https://example.com/x?FBCLID=1", "https://example.com/x"),
    ("https://example.com/x?fbclid", "https://example.com/x"),
    ("https://example.com/x?a=1&gclid=Cj0K&b=2", "https://example.com/x?a=1&b=2"),
    ("https://example.com/x?mc_cid=1a2b&mc_eid=3c4d", "https://example.com/x"),
    ("https://example.com/x?utm_source=news&utm_medium=mail&id=7", "https://example.com/x?id=7"),
    ("https://www.example.com/x?utm_campaign=a&fbclid=b#top", "https://example.com/x"),
    # Look-alikes stay: only the exact names are tracking, only a leading www. label goes.
    ("https://example.com/x?fbclidx=1", "https://example.com/x?fbclidx=1"),
    ("https://example.com/x?my_gclid=1", "https://example.com/x?my_gclid=1"),
    ("https://wwwexample.com/x", "https://wwwexample.com/x"),
    ("https://www2.example.com/x", "https://www2.example.com/x"),
    ("https://blog.www.example.com/x", "https://blog.www.example.com/x"),
    ("https://www.com/x", "https://www.com/x"),
    ("http://www/x", "http://www/x"),
    ("https://example.com/www.example.com", "https://example.com/www.example.com"),
]


@pytest.mark.parametrize(("url", "key"), NORMALISED)
def test_normalisation_table(url: str, key: str) -> None:
    assert normalize_url(url) == key
    assert parse_and_normalize(url) == key  # the canonical-form shortcut agrees
    assert normalize_url(key) == key


def test_earlier_key_prefixes_cover_both_schemes_and_www() -> None:
    assert earlier_key_prefixes("https://example.com/x?a=1") == [
        "http://example.com/x",
        "http://www.example.com/x",
        "https://example.com/x",
        "https://www.example.com/x",
    ]


def test_www_and_fbclid_variants_are_queued_once(tmp_path: Path) -> None:
    with Outbox(tmp_path / "outbox.db") as outbox:
        first = outbox.enqueue_url("https://example.com/article")
        again = [
            outbox.enqueue_url(url)
            for url in (
                "https://www.example.com/article",
                "https://example.com/article?fbclid=IwAR0",
                "https://www.example.com/article/?gclid=x&utm_source=y",
            )
        ]
        assert first.status == "queued"
        assert [result.status for result in again] == ["already_queued"] * 3
        assert [op.url for op in outbox.list()] == ["https://example.com/article"]


def _outbox_of_an_earlier_version(path: Path, rows: list[tuple[str, str, str]]) -> None:
    """An outbox as the previous version wrote it: URL saves keyed with www. and fbclid."""
    Outbox(path).close()
    conn = sqlite3.connect(path)
    try:
        conn.execute("DELETE FROM control WHERE key = 'url_keys'")
        for url, key, state in rows:
            conn.execute(
                "INSERT INTO ops (kind, url, normalized_url, state, created_at, updated_at, "
                "next_attempt_at) VALUES ('save_url', ?, ?, ?, 1, 1, 1)",
                (url, key, state),
            )
        conn.commit()
    finally:
        conn.close()


def test_saves_keyed_by_an_earlier_version_are_keyed_again_and_found(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    _outbox_of_an_earlier_version(
        path,
        [
            ("https://www.example.com/a", "https://www.example.com/a", "queued"),
            ("https://example.com/b?fbclid=1", "https://example.com/b?fbclid=1", "accepted"),
        ],
    )
    with Outbox(path) as outbox:
        keys = [op.normalized_url for op in outbox.list()]
        assert keys == ["https://example.com/a", "https://example.com/b"]
        assert outbox.enqueue_url("https://example.com/a").status == "already_queued"
        assert outbox.enqueue_url("https://www.example.com/b").status == "already_saved"
        assert len(outbox.list()) == 2
    conn = sqlite3.connect(path)
    try:
        marker = conn.execute("SELECT value FROM control WHERE key = 'url_keys'").fetchone()
        assert marker == (str(URL_KEYS_VERSION),)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2  # earlier versions open it
    finally:
        conn.close()


def test_a_page_saved_twice_before_keeps_both_saves(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    _outbox_of_an_earlier_version(
        path,
        [
            ("https://www.example.com/a", "https://www.example.com/a", "queued"),
            ("https://example.com/a", "https://example.com/a", "queued"),
        ],
    )
    with Outbox(path) as outbox:
        ops = outbox.list()
        assert [op.url for op in ops] == ["https://www.example.com/a", "https://example.com/a"]
        assert sorted(str(op.normalized_url) for op in ops) == [
            "https://example.com/a",
            "https://www.example.com/a",
        ]
        assert outbox.enqueue_url("https://www.example.com/a?fbclid=2").status == "already_queued"
        assert len(outbox.list()) == 2


def test_items_cached_under_earlier_keys_are_found(tmp_path: Path) -> None:
    cache = tmp_path / "cache.db"
    with StoreWriter(cache) as writer:
        writer.ingest_json(
            [
                {"id": "w", "type": "web", "url": "https://www.example.com/p"},
                {"id": "f", "type": "web", "url": "https://news.example/q?fbclid=9&id=3"},
                {"id": "other", "type": "web", "url": "https://example.com/p/deeper"},
            ]
        ).result()
    conn = sqlite3.connect(cache)
    try:  # keys as the earlier normalization stored them
        conn.execute("UPDATE entities SET normalized_url = url WHERE id IN ('w', 'f')")
        conn.commit()
    finally:
        conn.close()
    with Outbox(tmp_path / "outbox.db", cache_path=cache) as outbox:
        assert outbox.known_in_cache("https://example.com/p") == "w"
        assert outbox.known_in_cache("http://example.com/p") == "w"
        assert outbox.known_in_cache("https://news.example/q?id=3") == "f"
        assert outbox.known_in_cache("https://news.example/q") is None
        assert outbox.known_in_cache("https://example.com/p/deep") is None
        result = outbox.enqueue_url("https://example.com/p?utm_source=x")
        assert (result.status, result.entity_id) == ("already_saved", "w")


def test_items_are_found_under_the_normalized_url_of_their_address(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    try:
        writer.ingest_json(
            [
                {"id": "a", "type": "web", "url": "https://www.example.com/x?utm_source=n"},
                {"id": "b", "type": "web", "url": "https://example.com/x"},
                {"id": "c", "type": "web", "url": "https://example.com/y"},
                {"id": "d", "type": "annotation", "text": "no address"},
            ]
        ).result()
    finally:
        writer.close()
    reader = CacheReader(path)
    try:
        found = reader.ids_at_normalized_urls(
            [normalize_url("https://example.com/x/"), "https://nowhere.example"]
        )
    finally:
        reader.close()
    assert found == {"https://example.com/x": {"a", "b"}}
