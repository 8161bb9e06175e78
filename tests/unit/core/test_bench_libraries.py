"""Generated benchmark libraries are written once and read back by every later area and run."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_desktop.bench import with_ratios
from memex_desktop.emulator.kept_libraries import BENCH_CACHE_ENV, prepared_library
from memex_desktop.emulator.synthetic import generate_library


def test_a_library_is_generated_once_then_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BENCH_CACHE_ENV, str(tmp_path))
    first = prepared_library(40, seed=3, words_per_entity=20, log=None)
    assert not first.reused
    assert first.path.parent == tmp_path
    again = prepared_library(40, seed=3, words_per_entity=20, log=None)
    assert again.reused
    assert again.path == first.path
    assert again.load() == generate_library(40, seed=3, words_per_entity=20)
    other = prepared_library(40, seed=4, words_per_entity=20, log=None)
    assert not other.reused
    assert other.path != first.path


def test_each_floor_gets_a_ratio_beside_it() -> None:
    measures = with_ratios({"search_p95_ms": 12.0, "search_p95_ms_floor": 4.0, "lone_floor": 1.0})
    assert list(measures) == [
        "search_p95_ms",
        "search_p95_ms_floor",
        "search_p95_ms_ratio",
        "lone_floor",
    ]
    assert measures["search_p95_ms_ratio"] == 3.0


def test_a_library_is_read_newest_first_as_a_full_sync_receives_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BENCH_CACHE_ENV, str(tmp_path))
    prepared = prepared_library(60, seed=3, words_per_entity=20, log=None)
    in_file = [entity for entity, _ in prepared.pairs()]
    newest_first = list(prepared.newest_first())
    assert sorted(newest_first, key=lambda entity: entity["id"]) == sorted(
        in_file, key=lambda entity: entity["id"]
    )
    created = [entity["created_at"] for entity in newest_first]
    assert created == sorted(created, reverse=True)
    assert created != [entity["created_at"] for entity in in_file]
