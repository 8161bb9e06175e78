"""The decision of how many page requests to keep in flight (no I/O, no clock)."""

import pytest

from memex_desktop.sync.concurrency import InFlightLimit


def _answer(limit: InFlightLimit, elapsed_s: float, times: int) -> None:
    for _ in range(times):
        limit.answered(elapsed_s)


def test_it_grows_while_answers_keep_the_same_speed_but_never_past_the_cap() -> None:
    limit = InFlightLimit(cap=12, start=2)
    _answer(limit, 0.2, 5)
    assert limit.limit == 7  # one more per steady answer until the first slowdown
    _answer(limit, 0.2, 50)
    assert limit.limit == 12
    assert limit.most == 12


def test_a_slowdown_takes_a_quarter_off_and_growth_becomes_one_per_round() -> None:
    limit = InFlightLimit(cap=16, start=2)
    _answer(limit, 0.2, 10)
    assert limit.limit == 12
    limit.answered(0.5)
    assert limit.limit == 9
    assert limit.slowdowns == 1
    # Answers to requests sent under the old limit are not judged, slow or not.
    _answer(limit, 0.5, 12)
    assert limit.limit == 9
    _answer(limit, 0.2, 8)
    assert limit.limit == 9  # a round is as many answers as the limit
    limit.answered(0.2)
    assert limit.limit == 10


def test_small_differences_on_a_fast_server_are_not_a_slowdown() -> None:
    limit = InFlightLimit(cap=8, start=2)
    _answer(limit, 0.002, 3)
    limit.answered(0.02)  # ten times slower, but within the margin of a loopback server
    assert limit.slowdowns == 0
    assert limit.limit == 6


def test_a_refusal_halves_once_per_round() -> None:
    limit = InFlightLimit(cap=16, start=2)
    _answer(limit, 0.1, 8)
    assert limit.limit == 10
    limit.pushed_back()
    assert limit.limit == 5
    limit.pushed_back()  # sent together with the first one: the same overload
    assert limit.limit == 5
    _answer(limit, 0.1, 10)
    limit.pushed_back()
    assert limit.limit == 2
    assert limit.pushbacks == 2
    limit.writer_behind(True)  # rounds pass without growth
    for _ in range(5):
        _answer(limit, 0.1, 20)
        limit.pushed_back()
    assert limit.limit == 1  # never below one


def test_a_round_refused_whole_ends_and_the_next_refusal_halves_again() -> None:
    limit = InFlightLimit(cap=16, start=2)
    _answer(limit, 0.1, 8)
    limit.pushed_back()
    assert limit.limit == 5
    for _ in range(10):  # the requests sent under the old limit of 10, all refused
        limit.pushed_back()
    assert limit.limit == 5
    limit.pushed_back()  # sent under the new limit: the server is still overloaded
    assert limit.limit == 2
    assert (limit.refusals, limit.pushbacks) == (12, 2)


def test_no_growth_while_the_writer_is_behind() -> None:
    limit = InFlightLimit(cap=16, start=2)
    limit.writer_behind(True)
    _answer(limit, 0.1, 20)
    assert limit.limit == 2
    limit.writer_behind(False)
    _answer(limit, 0.1, 3)
    assert limit.limit == 5


def test_a_server_that_became_slower_for_good_gets_more_requests_again() -> None:
    limit = InFlightLimit(cap=16, start=2)
    _answer(limit, 0.1, 4)
    limit.answered(1.0)
    lowered = limit.limit
    # The fast answers age out of the baseline: one second is the new normal.
    _answer(limit, 1.0, 60)
    assert limit.baseline_s == 1.0
    assert limit.limit > lowered


def test_the_start_is_within_the_cap_and_the_cap_must_allow_one() -> None:
    assert InFlightLimit(cap=1, start=2).limit == 1
    limit = InFlightLimit(cap=1)
    _answer(limit, 0.1, 10)
    assert limit.limit == 1
    with pytest.raises(ValueError, match="at least 1"):
        InFlightLimit(cap=0)
