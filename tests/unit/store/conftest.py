"""Fixtures of the store tests: a writer and a reader on a fresh cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_desktop.store import CacheReader, StoreWriter


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "cache.db"


@pytest.fixture
def writer(cache_path: Path) -> Iterator[StoreWriter]:
    store_writer = StoreWriter(cache_path)
    yield store_writer
    store_writer.close()


@pytest.fixture
def reader(writer: StoreWriter, cache_path: Path) -> Iterator[CacheReader]:
    cache_reader = CacheReader(cache_path)
    yield cache_reader
    cache_reader.close()
