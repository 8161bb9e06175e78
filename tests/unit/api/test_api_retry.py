"""Backoff and Retry-After parsing of memex_desktop.api.retry."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memex_desktop.api.retry import RetryPolicy, is_retryable_status, parse_retry_after

NOW = 1_700_000_000.0  # Tue, 14 Nov 2023 22:13:20 GMT


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", 0.0),
        ("7", 7.0),
        (" 1.5 ", 1.5),
        ("-3", 0.0),
        ("Tue, 14 Nov 2023 22:13:30 GMT", 10.0),
        ("Tuesday, 14-Nov-23 22:13:50 GMT", 30.0),
        ("Tue, 14 Nov 2023 22:00:00 GMT", 0.0),
        (None, None),
        ("", None),
        ("soon", None),
        ("nan", None),
        ("inf", None),
        ("Tue, 14 Nov 2023 22:13:30", None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now_epoch_s=NOW) == expected


@given(st.text(max_size=60))
def test_parse_retry_after_never_raises(value: str) -> None:
    result = parse_retry_after(value, now_epoch_s=NOW)
    assert result is None or result >= 0.0


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(408, True), (429, True), (500, True), (503, True), (599, True), (400, False), (401, False),
     (402, False), (404, False), (409, False), (200, False), (307, False)],
)  # fmt: skip
def test_retryable_statuses(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


def test_backoff_is_full_jitter_exponential_and_capped() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=8.0)
    assert [policy.backoff_s(i, lambda: 1.0) for i in range(6)] == [0.5, 1, 2, 4, 8, 8]
    assert policy.backoff_s(3, lambda: 0.0) == 0.0
    assert policy.backoff_s(3, lambda: 0.25) == 1.0
    assert policy.backoff_s(1000, lambda: 1.0) == 8.0


@given(st.integers(min_value=0, max_value=10_000), st.floats(allow_nan=False))
def test_backoff_stays_within_bounds(retry_index: int, draw: float) -> None:
    wait = RetryPolicy().backoff_s(retry_index, lambda: draw)
    assert 0.0 <= wait <= RetryPolicy().max_delay_s
