"""A full pass names a total ("Syncing: 1,200 of about 30,000 items fetched") only when the total
is the library's: a whole pass after a complete one. A first sync that stopped part-way left a
cache that is no library's size, and a pass resumed from where one stopped counts from there:
"Syncing: 18,300 of about 25,541 items fetched" was said of a library of 100,000 items with
45,357 already on this computer."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from support.secrets import TEST_API_KEY

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import SyncOutcome, SyncProgress
from memex_desktop.sync.summary import progress_sentence

LIBRARY_SIZE = 300
PAGE_SIZE = 30


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(LIBRARY_SIZE, seed=3, words_per_entity=10)


def _pull_progress(seen: list[SyncProgress]) -> list[SyncProgress]:
    return [progress for progress in seen if progress.phase == "pull"]


def _lines(seen: list[SyncProgress]) -> list[str]:
    return [progress_sentence(progress) for progress in _pull_progress(seen)]


def test_a_pass_resumed_after_a_stopped_first_sync_names_no_total(
    library_emulator: Any, harness_factory: Any, library: dict[str, Any]
) -> None:
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    cancel = threading.Event()

    def stop_after_four_pages(progress: SyncProgress) -> None:
        if progress.phase == "pull" and progress.done >= 4 * PAGE_SIZE:
            cancel.set()

    stopped = harness.engine.run(cancel=cancel, progress=stop_after_four_pages)
    assert stopped.outcome is SyncOutcome.CANCELLED
    cached = harness.reader.stats().entities
    assert 0 < cached < LIBRARY_SIZE

    seen: list[SyncProgress] = []
    resumed = harness.new_engine().run(progress=seen.append)
    assert resumed.ok, resumed.error
    lines = _lines(seen)
    assert lines, "the resumed pass said nothing while it read pages"
    assert all(line.endswith("items fetched so far") for line in lines), lines


def test_a_first_pass_over_a_cache_a_search_filled_names_no_total(
    library_emulator: Any, harness_factory: Any, library: dict[str, Any]
) -> None:
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    harness.engine.remote_search("", limit=2 * PAGE_SIZE)  # cached as they are viewed
    assert harness.reader.stats().entities >= 2 * PAGE_SIZE

    seen: list[SyncProgress] = []
    assert harness.new_engine().run(progress=seen.append).ok
    lines = _lines(seen)
    assert all(line.endswith("items fetched so far") for line in lines), lines


def test_a_whole_pass_after_a_complete_one_names_the_library_s_size(
    library_emulator: Any, harness_factory: Any, library: dict[str, Any]
) -> None:
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    first = harness.engine.run()
    assert first.full_pass_completed
    cached = harness.reader.stats().entities

    seen: list[SyncProgress] = []
    assert harness.new_engine().run(full=True, progress=seen.append).ok
    pulls = _pull_progress(seen)
    assert [progress.total_estimate for progress in pulls] == [cached] * len(pulls)
    assert _lines(seen)[0] == f"Syncing: {PAGE_SIZE} of about {cached:,} items fetched"
