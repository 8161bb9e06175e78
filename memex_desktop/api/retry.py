"""When and how long to wait before repeating a Memex API call.

Full-jitter exponential backoff (a random wait between 0 and ``base * 2**attempt``, capped) so
many clients that failed together do not come back together, and ``Retry-After`` (seconds or an
HTTP date) when the server says how long to wait.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Callable
from dataclasses import dataclass

# 408 Request Timeout, 429 Too Many Requests and every 5xx are worth a second try; other
# statuses would fail the same way again.
RETRYABLE_STATUSES = frozenset({408, 429})


def is_retryable_status(status_code: int) -> bool:
    """Whether a response with this status may succeed when the same call is repeated."""
    return status_code in RETRYABLE_STATUSES or 500 <= status_code <= 599


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to back off; the defaults suit an interactive desktop client.

    Attributes:
        max_retries: repetitions after the first attempt (0 disables retrying).
        base_delay_s: the backoff ceiling of the first retry; doubled for every further one.
        max_delay_s: the largest backoff ceiling.
        max_retry_after_s: a ``Retry-After`` longer than this is not waited for: the call
            fails at once (as :class:`~memex_desktop.api.errors.RateLimited` for 429) so the
            caller can schedule it instead of blocking a worker for minutes.
    """

    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_retry_after_s: float = 30.0

    def backoff_s(self, retry_index: int, random: Callable[[], float]) -> float:
        """Full-jitter wait before retry number ``retry_index`` (0 for the first retry)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * (2.0 ** min(retry_index, 30)))
        return ceiling * min(max(random(), 0.0), 1.0)


def parse_retry_after(value: str | None, *, now_epoch_s: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date).

    Returns ``None`` when the header is missing or unreadable; a date in the past gives 0.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        return _seconds_until_http_date(text, now_epoch_s)
    if math.isnan(seconds) or math.isinf(seconds):
        return None
    return max(seconds, 0.0)


def _seconds_until_http_date(text: str, now_epoch_s: float) -> float | None:
    """Seconds from now until an RFC 9110 HTTP date, or ``None`` if it is not one."""
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:
        return None
    return max(moment.timestamp() - now_epoch_s, 0.0)
