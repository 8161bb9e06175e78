"""Merging the search indexes: on request and by itself after many rows were indexed."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

import memex_desktop.store.writer as writer_module
from memex_desktop.store import CacheReader, StoreWriter

T = 1_700_000_000_000
QUERIES = ["apple", "pear", "fruit 7", "word3", "-apple fruit"]


def _ingest_in_small_pages(writer: StoreWriter, pages: int = 30, per_page: int = 10) -> None:
    """Pages indexed one by one, each leaving a small b-tree of its own."""
    for page in range(pages):
        items = [
            {"id": f"m-{page:03d}-{n}", "type": "web", "title": f"Fruit {page} {n}",
             "url": f"https://m.example/{page}/{n}", "created_at": T + page * 100 + n,
             "full_text": f"{'apple' if n % 2 else 'pear'} word{page % 7} common"}
            for n in range(per_page)
        ]  # fmt: skip
        writer.ingest_json(items).result()
        writer.flush_index().result()


def _index_pages(path: Path) -> int:
    """Rows of the body index's b-tree directory: one per b-tree at least."""
    with sqlite3.connect(path) as connection:
        return int(connection.execute("SELECT count(*) FROM body_fts_idx").fetchone()[0])


def test_merging_keeps_every_hit_and_ends(
    writer: StoreWriter, reader: CacheReader, cache_path: Path
) -> None:
    _ingest_in_small_pages(writer)
    before = {query: reader.search_ids(query) for query in QUERIES}
    trees = _index_pages(cache_path)
    writer.merge_index().result(timeout=30)
    assert _index_pages(cache_path) < trees
    assert {query: reader.search_ids(query) for query in QUERIES} == before
    writer.merge_index().result(timeout=30)  # nothing left: resolves at once
    assert {query: reader.search_ids(query) for query in QUERIES} == before


def test_many_indexed_rows_are_merged_while_no_write_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "MERGE_STEP_PAGES", 4)  # several steps
    trees: dict[int, int] = {}
    for after_rows in (10**9, 50):
        monkeypatch.setattr(writer_module, "MERGE_AFTER_ROWS", after_rows)
        path = tmp_path / f"after-{after_rows}.db"
        writer = StoreWriter(path)
        try:
            _ingest_in_small_pages(writer)
            deadline = time.monotonic() + 20
            while after_rows == 50 and _index_pages(path) >= trees[10**9]:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            trees[after_rows] = _index_pages(path)
        finally:
            writer.close()
        with CacheReader(path) as reader:
            assert len(reader.search_ids("apple")) == 150
    assert trees[50] < trees[10**9]
