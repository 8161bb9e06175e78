"""A page of ``POST /search`` whose answer cannot be read (cut-off JSON, garbage): it is asked for
again before anything is given up, and a page that stays unreadable costs no item: the sync
says so and fails, and the next ordinary sync reads what the page held; nothing is marked
deleted because of it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import library_ids, run_cli

from memex_desktop import cli, paths
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader
from memex_desktop.sync import SyncOutcome
from memex_desktop.sync.types import SyncProgress

pytestmark = pytest.mark.e2e

PAGE_SIZE = 50
# What a server in trouble sends instead of a page: the start of an answer, cut, not UTF-8.
GARBAGE = b'{"results": [{"id": "\xff\xfe'
# Where a served item names the library's id (the first-party profile lists its row id first).
ID_KEYS = ("id", "content_id", "contentEntityId")


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(600, seed=31, words_per_entity=8)


def _listable(emulator: Any, library: dict[str, Any]) -> set[str]:
    """Every id a complete listing can return (the profile may hide some for good)."""
    return library_ids(library) - emulator.state.unlisted_ids()


def _page_holding(entity_id: str) -> Any:
    """A body rewrite that makes every /search page listing ``entity_id`` unreadable."""

    def rewrite(body: bytes) -> bytes:
        try:
            results = json.loads(body).get("results") or []
        except ValueError:
            return body
        listed = any(
            isinstance(item, dict) and entity_id in (item.get(key) for key in ID_KEYS)
            for item in results
        )
        return GARBAGE if listed else body

    return rewrite


def _middle_item(library: dict[str, Any]) -> str:
    """A web item from the middle of the listing (newest first), far from the probe's pages."""
    newest_first = sorted(library["results"], key=lambda entity: -entity["created_at"])
    return next(e["id"] for e in newest_first[len(newest_first) // 2 :] if e["type"] == "web")


def test_two_unreadable_answers_mid_sync_are_read_again(
    library: dict[str, Any], library_emulator: Any, harness_factory: Any, emulator_profile: str
) -> None:
    emulator = library_emulator(library, profile=emulator_profile)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    armed: list[bool] = []

    def progress(step: SyncProgress) -> None:
        # Two cut-off answers once the pull is under way (the probe has read its pages).
        if step.phase == "pull" and step.done >= 100 and not armed:
            armed.append(True)
            emulator.faults.truncate_body(count=2, mode="json", paths=["/search"])

    report = harness.engine.run(full=True, progress=progress)
    assert armed
    assert emulator.faults.armed == 0  # both cut-off answers were sent
    assert report.outcome is SyncOutcome.OK, report.error
    assert report.unread_pages == 0
    assert _listable(emulator, library) <= set(harness.reader.all_ids())
    # Every page was read in the end, so the pass is whole.
    assert report.full_pass_completed
    assert report.not_reconciled is None


def test_a_page_unreadable_all_run_fails_the_sync_and_the_next_sync_reads_it(
    library: dict[str, Any], library_emulator: Any, emulator_profile: str, tmp_path: Path
) -> None:
    emulator = library_emulator(library, profile=emulator_profile)
    data_dir = tmp_path / "data"
    data = ("--data-dir", str(data_dir), "--api-url", emulator.base_url)
    listable = _listable(emulator, library)
    target = _middle_item(library)
    assert target in listable

    emulator.faults.rewrite_body(_page_holding(target), count=10_000, paths=["/search"])
    failed = run_cli("sync", "--quiet", *data, api_key=TEST_API_KEY)
    assert failed.returncode == cli.EXIT_SERVER_DOWN, failed.stderr
    assert "Traceback" not in failed.stderr
    assert "1 page of the library could not be read" in failed.stderr
    assert re.search(r"up to \d+ items were not synced", failed.stderr)
    assert "the next sync reads them again" in failed.stderr
    with CacheReader(paths.cache_db_path(data_dir)) as reader:
        assert target not in set(reader.all_ids())

    emulator.faults.clear()
    synced = run_cli("sync", "--quiet", *data, api_key=TEST_API_KEY)
    assert synced.returncode == 0, synced.stderr
    with CacheReader(paths.cache_db_path(data_dir)) as reader:
        assert listable <= set(reader.all_ids())
        assert reader.deleted_upstream() == []

    # Later syncs (the complete pass the failed one was not counted as) mark nothing deleted.
    for _ in range(2):
        again = run_cli("sync", "--full", "--quiet", *data, api_key=TEST_API_KEY)
        assert again.returncode == 0, again.stderr
        assert "0 deleted upstream" in again.stdout
    with CacheReader(paths.cache_db_path(data_dir)) as reader:
        assert reader.deleted_upstream() == []


def test_an_unreadable_page_of_new_items_is_read_by_the_next_incremental_sync(
    library: dict[str, Any], one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator = one_profile_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    assert harness.engine.run(full=True).ok
    # Five pages of new items an hour apart: an incremental pull would stop after two pages.
    model = next(e for e in library["results"] if e["type"] == "web")
    newest = max(e["created_at"] for e in library["results"])
    added = [
        {
            **model,
            "id": f"new-item-{n:03d}",
            "external_id": f"new-{n}",
            "url": f"https://new.example/{n}",
            "normalized_url": f"https://new.example/{n}",
            "canonical_url": f"https://new.example/{n}",
            "created_at": newest + (n + 1) * 3_600_000,
            "updated_at": newest + (n + 1) * 3_600_000,
        }
        for n in range(5 * PAGE_SIZE)
    ]
    for entity in added:
        emulator.state.put_entity(entity)
    # The third page, newest first, stays unreadable for the whole run.
    target = added[-(2 * PAGE_SIZE + PAGE_SIZE // 2)]["id"]
    emulator.faults.rewrite_body(_page_holding(target), count=10_000, paths=["/search"])
    report = harness.new_engine().run()
    assert not report.ok
    assert report.unread_pages == 1
    assert report.deleted_upstream == 0
    assert target not in set(harness.reader.all_ids())

    emulator.faults.clear()
    report = harness.new_engine().run()
    assert report.ok, report.error
    assert {e["id"] for e in added} <= set(harness.reader.all_ids())
    assert harness.reader.deleted_upstream() == []
