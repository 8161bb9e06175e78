"""The pager's decisions, page by page (no I/O): what a pass asks for next and when it ends."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from memex_desktop.api.errors import (
    ServerError,
    ServerIncompatible,
    ServerNotAnswering,
    ValidationError,
)
from memex_desktop.api.models import SearchRawPage
from memex_desktop.sync.paging import PageFetcher, Pager, PageRequest, size_related, unanswered
from memex_desktop.sync.server_profile import ServerProfile

T0 = 1_800_000_000_000
SLOW = 5.0  # seconds a page took: too slow to grow the page size


def _page(ids: list[int], *, sent: int | None = None) -> SearchRawPage:
    """A page of items ``item-N`` created ``N`` minutes before T0 (newest first)."""
    results: list[Any] = [
        {"id": f"item-{n}", "type": "web", "created_at": T0 - n * 60_000} for n in ids
    ]
    results += [5] * ((sent or len(ids)) - len(ids))  # items that are not entities
    return SearchRawPage.model_validate({"results": results})


def _pager(**options: Any) -> Pager:
    return Pager(ServerProfile("http://server"), options.pop("max_size", 100), **options)


def test_a_new_server_starts_at_fifty_and_grows_back_while_pages_are_fast() -> None:
    pager = _pager()
    assert pager.request() == PageRequest(0, 50)
    start = 0
    for _ in range(3):
        request = pager.request()
        pager.take(request, _page(list(range(start, start + request.limit))), 0.1)
        start += request.limit
    assert pager.request().limit == 100
    assert pager.profile.page_size == 100


def test_a_short_page_is_not_the_end_and_an_empty_one_is() -> None:
    pager = _pager()
    assert not pager.take(pager.request(), _page(list(range(30))), 0.1)
    assert pager.request().offset == 30  # by what was sent
    assert not pager.take(pager.request(), _page(list(range(30, 40))), 0.1)
    assert pager.take(pager.request(), _page([]), 0.1)
    assert pager.ended
    assert pager.unreliable == []


def test_the_page_cap_is_the_largest_short_page() -> None:
    pager = _pager()
    start = 0
    for sent in (37, 40, 36):  # a silent cap of 40, rows dropped after it
        request = pager.request()
        pager.take(request, _page(list(range(start, start + sent))), 5.0)
        start += sent
    assert pager.profile.page_cap == 40
    assert pager.request().limit == 40


def test_skipped_items_count_as_sent_and_make_the_pass_unreliable() -> None:
    pager = _pager()
    pager.take(pager.request(), _page(list(range(10)), sent=50), 0.1)
    assert pager.request().offset == 50
    assert pager.unreliable == ["the server sent 40 items that are not entities"]


def test_a_server_ignoring_offset_is_paged_by_time() -> None:
    pager = _pager()
    first = list(range(50))
    pager.take(pager.request(), _page(first), 0.1)
    pager.take(pager.request(), _page(first), 0.1)  # the same page at offset 50
    assert pager.mode == "time"
    assert pager.profile.offset_honoured is False
    assert pager.request() == PageRequest(0, 50, end_ms=T0 - 49 * 60_000)
    pager.take(pager.request(), _page(list(range(49, 99))), 0.1)
    assert pager.request().end_ms == T0 - 98 * 60_000
    assert pager.unreliable == []


def test_a_server_ignoring_offset_and_time_is_reported_on_the_third_page() -> None:
    pager = _pager()
    first = list(range(50))
    pager.take(pager.request(), _page(first), 0.1)
    pager.take(pager.request(), _page(first), 0.1)
    with pytest.raises(ServerIncompatible, match="cannot be paged"):
        pager.take(pager.request(), _page(first), 0.1)
    assert pager.pages == 3


def test_overlapping_pages_after_a_full_one_switch_to_time_and_distrust_the_pass() -> None:
    pager = _pager()
    pager.take(pager.request(), _page(list(range(50))), 0.1)
    pager.take(pager.request(), _page(list(range(45, 95))), 0.1)
    assert pager.mode == "time"
    assert pager.unreliable


def test_time_paging_looks_past_a_boundary_whose_items_are_all_seen() -> None:
    pager = _pager(mode="time")
    pager.take(pager.request(), _page(list(range(50))), SLOW)
    boundary = pager.request().end_ms
    assert boundary == T0 - 49 * 60_000
    pager.take(pager.request(), _page([49]), SLOW)  # only the tie, everything after dropped
    # That instant is read alone (more may share it than a page holds), then the one before.
    tie = pager.request()
    assert (tie.start_ms, tie.end_ms) == (boundary, boundary)
    pager.take(tie, _page([49]), SLOW)
    pager.take(pager.request(), _page([]), SLOW)
    assert pager.request() == PageRequest(0, 50, end_ms=boundary - 1)
    assert not pager.ended
    assert pager.take(pager.request(), _page([]), SLOW)
    assert pager.unreliable == []


def test_items_sharing_an_instant_are_read_again_while_a_reading_finds_more() -> None:
    pager = _pager(mode="time", end_ms=T0)
    tied = [{"id": f"tie-{n}", "type": "web", "created_at": T0} for n in range(120)]

    def page(ids: range) -> SearchRawPage:
        return SearchRawPage.model_validate({"results": [tied[n] for n in ids]})

    pager.take(pager.request(), page(range(50)), SLOW)
    first = pager.request()
    assert (first.start_ms, first.end_ms) == (T0, T0)
    pager.take(first, page(range(0, 50)), SLOW)  # the server shows some, in its order
    pager.take(pager.request(), page(range(60, 110)), SLOW)  # and skips 50-59
    pager.take(pager.request(), page(range(0)), SLOW)
    again = pager.request()
    assert again.offset == 0
    assert again.limit == 47  # in other steps, so another order
    pager.take(again, page(range(47, 94)), SLOW)  # 50-59 show up this time
    assert {f"tie-{n}" for n in range(50, 60)} <= pager.seen


def test_the_page_size_halves_after_a_failure_of_its_size_a_few_times_only() -> None:
    pager = _pager()
    sizes = []
    while pager.shrink():
        sizes.append(pager.request().limit)
    assert sizes == [25, 12, 6, 5]
    assert size_related(ServerError("x"))
    assert size_related(ValidationError("too large", status_code=413))
    assert not size_related(ValidationError("bad", status_code=400))


def test_an_unreadable_page_is_skipped_and_three_in_a_row_give_up() -> None:
    pager = _pager()
    pager.malformed(pager.request(), "no results")
    assert pager.request().offset == 50
    pager.malformed(pager.request(), "no results")
    with pytest.raises(ServerIncompatible):
        pager.malformed(pager.request(), "no results")


def test_silence_is_not_taken_for_a_page_too_big_and_a_stalled_answer_is() -> None:
    silent = ServerNotAnswering("took it and said nothing", host="server")
    silent.__cause__ = httpx.ReadTimeout("silent")
    stalled = ServerNotAnswering("stopped answering mid-answer", host="server", status_code=200)
    stalled.__cause__ = httpx.ReadTimeout("stalled")
    assert unanswered(silent)
    assert not size_related(silent)
    assert size_related(stalled)
    assert not unanswered(stalled)


def test_a_page_met_with_silence_ends_the_pass_and_the_next_asks_for_less() -> None:
    """Not one smaller page after another, each waiting out the same silence."""
    asked: list[PageRequest] = []

    def fetch(request: PageRequest) -> SearchRawPage:
        asked.append(request)
        if len(asked) > 1:
            raise ServerNotAnswering("took it and said nothing", host="server")
        return _page(list(range(request.limit)))

    pager = _pager()
    fetcher = PageFetcher(fetch, pager, threading.Event())
    fetcher.start()
    try:
        fetcher.next()
        with pytest.raises(ServerNotAnswering):
            fetcher.next()
    finally:
        fetcher.stop()
    assert [request.limit for request in asked] == [50, 50]
    assert pager.profile.page_size == 25
