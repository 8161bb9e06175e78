"""The sync against a server that pages, identifies items and accepts notes otherwise.

Every test runs against both emulator profiles: ``default`` (which agrees with the client)
and ``first-party`` (silent page cap with ``meta.limit`` echoing the request, rows dropped
after LIMIT, ``created_at`` ties in request-dependent order, ``id`` != ``content_id``, notes
linked only by ``relatedContentIds``, ...); some add the variants that ignore ``offset`` or
``sortBy``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import library_ids

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import SyncOutcome
from memex_desktop.sync.engine import STATE_DELETIONS_HELD
from memex_desktop.sync.paging import UNREADABLE_PAGE_RETRY


def _listable(emulator: Any, library: dict[str, Any]) -> set[str]:
    """Every id a complete listing can return (the profile may hide some for good)."""
    return library_ids(library) - emulator.state.unlisted_ids()


def _searches(emulator: Any) -> int:
    return sum(1 for record in emulator.state.requests if record.path == "/search")


@pytest.fixture(scope="module")
def big_library() -> dict[str, Any]:
    return generate_library(5000, seed=12, words_per_entity=8)


def test_full_syncs_hold_every_id_and_mark_only_what_is_gone(
    big_library: dict[str, Any],
    library_emulator: Any,
    harness_factory: Any,
    emulator_profile: str,
) -> None:
    emulator = library_emulator(big_library, profile=emulator_profile)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=100)
    first = harness.engine.run(full=True)
    assert first.ok, first.error
    held = set(harness.reader.all_ids())
    listable = _listable(emulator, big_library)
    assert listable <= held, f"{len(listable - held)} listed items not synced"
    # Five more passes over the unchanged library mark nothing.
    for _ in range(5):
        again = harness.new_engine().run(full=True)
        assert again.ok, again.error
        assert again.deleted_upstream == 0
        assert again.deletions_held == 0
    assert harness.reader.deleted_upstream() == []
    # One item deleted upstream is marked within two passes.
    gone = sorted(listable)[100]
    assert emulator.state.delete_entity(gone)
    marked = [harness.new_engine().run(full=True).deleted_upstream for _ in range(2)]
    assert sum(marked) == 1
    assert [row.id for row in harness.reader.deleted_upstream()] == [gone]
    # A tenth of the library vanishing at once is held back for the person to confirm.
    tenth = sorted(listable - {gone})[::10]
    for entity_id in tenth:
        assert emulator.state.delete_entity(entity_id)
    reports = [harness.new_engine().run(full=True) for _ in range(2)]
    assert [report.deleted_upstream for report in reports] == [0, 0]
    assert reports[1].deletions_held >= len(tenth)
    assert harness.reader.sync_state(STATE_DELETIONS_HELD)
    assert len(harness.reader.deleted_upstream()) == 1
    confirmed = harness.new_engine().pull(full=True, confirm_deletions=True)
    assert confirmed.deleted_upstream >= len(tenth)
    assert not harness.reader.sync_state(STATE_DELETIONS_HELD)
    assert set(harness.reader.all_ids()) == held  # marked, never erased


@pytest.fixture
def small() -> dict[str, Any]:
    return generate_library(400, seed=4, words_per_entity=8)


def test_one_malformed_item_marks_nothing_and_says_why(
    small: dict[str, Any],
    library_emulator: Any,
    harness_factory: Any,
    emulator_profile: str,
) -> None:
    emulator = library_emulator(small, profile=emulator_profile)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    assert harness.engine.run(full=True).ok
    held = set(harness.reader.all_ids())
    # A page whose one item has no id, and whose others are not the page's real items: the
    # pass cannot prove anything is gone, and the pages after it still sync.
    # It is sent to every try of that page (the first and each time it is asked for again),
    # so the page is given up: the run says so and the next sync reads from that page again.
    bad_page = {"results": [{"id": None, "type": "web", "title": "broken"}], "meta": {}}
    tries = 1 + UNREADABLE_PAGE_RETRY.max_retries
    for _ in range(2):
        emulator.faults.next_status(200, body=bad_page, count=tries, paths=["/search"])
        report = harness.new_engine().run(full=True)
        assert report.outcome is SyncOutcome.SERVER_DOWN, report.error
        assert report.unread_pages == 1
        assert report.deleted_upstream == 0
        assert report.not_reconciled
        assert "not entities" in report.not_reconciled
    assert harness.reader.deleted_upstream() == []
    kept = set(harness.reader.all_ids())
    assert held <= kept
    # The malformed item itself is kept as it was sent, to be shown as unreadable.
    (stand_in,) = kept - held
    raw = harness.reader.raw_json(stand_in)
    assert raw is not None
    assert raw["unreadable"] == bad_page["results"][0]


@pytest.mark.parametrize(
    "body", [{"meta": {}}, {"results": None}, {"results": [1, 2, 3]}, {"results": "nope"}]
)
def test_one_malformed_page_is_read_again_and_the_rest_syncs(
    body: dict[str, Any],
    small: dict[str, Any],
    library_emulator: Any,
    harness_factory: Any,
    emulator_profile: str,
) -> None:
    emulator = library_emulator(small, profile=emulator_profile)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    assert harness.engine.run(full=True).ok
    held = set(harness.reader.all_ids())
    extra = next(e for e in small["results"] if e["type"] == "web")
    added = {**extra, "id": "fresh-item", "external_id": "fresh", "created_at": 1}
    emulator.state.put_entity(added)  # the oldest item: on the last page
    for _ in range(2):
        emulator.faults.next_status(200, body=body, paths=["/search"])
        report = harness.new_engine().run(full=True)
        assert report.ok, report.error
        assert report.deleted_upstream == 0
        # Asked for again, the page was read: the pass skipped nothing.
        assert report.unread_pages == 0
        assert report.not_reconciled is None
    assert harness.reader.deleted_upstream() == []
    assert held | {"fresh-item"} <= set(harness.reader.all_ids())


def test_a_server_that_ignores_offset_is_found_within_three_pages(
    small: dict[str, Any], one_profile_emulator: Any, harness_factory: Any
) -> None:
    # The first-party profile without timeRange help: offset ignored and time paging too.
    emulator = one_profile_emulator(small, profile="first-party", ignore_offset=True)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    report = harness.engine.run(full=True)
    # offset is ignored but timeRange works: the library is paged by time, whole.
    assert report.ok, report.error
    assert _listable(emulator, small) <= set(harness.reader.all_ids())
    profile = harness.engine.server_profile()
    assert profile.offset_honoured is False
    assert profile.paging == "time"


def test_a_server_that_pages_neither_way_stops_at_once(
    small: dict[str, Any], one_profile_emulator: Any, harness_factory: Any, monkeypatch: Any
) -> None:
    emulator = one_profile_emulator(small, ignore_offset=True)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    # The server also ignores timeRange: the request goes out without it.
    original = harness.client.search_raw_page

    def without_time_range(query: str = "", **options: Any) -> Any:
        options.pop("time_range", None)
        return original(query, **options)

    monkeypatch.setattr(harness.client, "search_raw_page", without_time_range)
    before = _searches(emulator)
    report = harness.engine.run(full=True)
    assert report.outcome is SyncOutcome.INCOMPATIBLE
    assert "cannot be paged" in str(report.error)
    probes = 5  # the first contact's probes
    assert _searches(emulator) - before <= probes + 3
    assert harness.reader.deleted_upstream() == []


def test_a_server_that_ignores_sort_by_is_found_and_synced(
    small: dict[str, Any], one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator = one_profile_emulator(small, ignore_sort_by=True)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    report = harness.engine.run(full=True)
    assert report.ok, report.error
    profile = harness.engine.server_profile()
    assert profile.date_ordered is False
    assert profile.sort_by_honoured is False
    assert _listable(emulator, small) <= set(harness.reader.all_ids())
    # An incremental pull cannot stop at "older" pages: it reads the window since the
    # watermark, and still finds what was added.
    newest = max(e["created_at"] for e in small["results"])
    extra = next(e for e in small["results"] if e["type"] == "web")
    emulator.state.put_entity(
        {**extra, "id": "late", "external_id": "late", "created_at": newest + 1}
    )
    incremental = harness.new_engine().run()
    assert incremental.ok, incremental.error
    assert harness.reader.get("late") is not None


def test_incremental_pulls_catch_what_arrived_whatever_updated_at_says(
    small: dict[str, Any],
    library_emulator: Any,
    harness_factory: Any,
) -> None:
    # One shared item's content row was touched far in the future (re-enriched): its
    # updated_at runs ahead of every save, which must not move the watermark.
    library = copy.deepcopy(small)
    newest = max(e["created_at"] for e in library["results"])
    library["results"][0]["updated_at"] = newest + 86_400_000 * 30
    emulator = library_emulator(library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=50)
    assert harness.engine.run(full=True).ok
    template = next(e for e in library["results"] if e["type"] == "web")
    added = []
    for n in range(80):  # more than a page of new saves
        item = {
            **template,
            "id": f"new-{n}",
            "external_id": f"new-{n}",
            "url": f"https://new.example/{n}",
            "created_at": newest + 1_000 * (n + 1),
        }
        emulator.state.put_entity(item)
        added.append(item["id"])
    report = harness.new_engine().run()
    assert report.ok, report.error
    assert not report.full_pass_completed  # an incremental pull, not a full pass
    held = set(harness.reader.all_ids())
    missing = set(added) - held - emulator.state.unlisted_ids()
    assert not missing
