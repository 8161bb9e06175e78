"""How long a sync keeps asking a server that refuses it for its load (429, 503).

The client retries such a refusal a few times on its own, as suits a person waiting for one
answer. A sync is not a person waiting: a server that sheds load for a minute has not failed
it, and giving up would leave the library half read until the next try. So once the client
gives up, the sync waits as the server asked (its ``Retry-After``, else a growing wait) and asks
again, until the refusals of one request have lasted :data:`PUSHED_BACK_PATIENCE_S` in all. A
503 that names its wait announces maintenance and is waited for as named, as a 429 is; one that
does not says no more than that the server is down, and is given
:data:`UNANNOUNCED_503_PATIENCE_S` only.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from typing import TypeVar

from memex_desktop.api.errors import ApiError, RateLimited, ServerError
from memex_desktop.api.retry import RetryPolicy
from memex_desktop.sync.types import SyncCancelled

_log = logging.getLogger(__name__)

PUSHED_BACK_PATIENCE_S = 300.0
# A 503 that does not say when to come back is more often a server down than a busy one: its
# refusals are waited out for at most this long.
UNANNOUNCED_503_PATIENCE_S = 30.0
# The growing wait when the server does not say how long: 2 s, then up to 4, 8 ... 60 s
# (full jitter, at least MIN_WAIT_S).
PUSHED_BACK_RETRY = RetryPolicy(max_retries=1_000, base_delay_s=2.0, max_delay_s=60.0)
# A refusal is never answered at once: with no Retry-After the jitter may come out near 0.
MIN_WAIT_S = 1.0

T = TypeVar("T")


def pushed_back(exc: BaseException) -> bool:
    """Whether the server refused a request for its load (429, 503): the same request may
    succeed later, and a smaller one would be no lighter for it."""
    return isinstance(exc, RateLimited) or (isinstance(exc, ServerError) and exc.status_code == 503)


class Patience:
    """The refusals of one request so far, and how long to wait after the next one."""

    def __init__(
        self,
        patience_s: float = PUSHED_BACK_PATIENCE_S,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.patience_s = patience_s
        self._rand = rand
        self.refusals = 0
        self.waited_s = 0.0

    def wait_after(self, exc: ApiError) -> float | None:
        """Seconds to wait before asking again after the refusal ``exc``; ``None`` once the
        refusals would last longer than the patience (the request fails then)."""
        asked = exc.retry_after if isinstance(exc, RateLimited | ServerError) else None
        patience_s = self.patience_s
        if asked is None and not isinstance(exc, RateLimited):
            patience_s = min(patience_s, UNANNOUNCED_503_PATIENCE_S)
        if asked is None:
            asked = PUSHED_BACK_RETRY.backoff_s(self.refusals, self._rand)
        wait_s = max(asked, MIN_WAIT_S)
        if self.waited_s + wait_s > patience_s:
            return None
        self.refusals += 1
        self.waited_s += wait_s
        return wait_s

    def answered(self) -> None:
        """The request got an answer: the next request starts with all the patience."""
        self.refusals = 0
        self.waited_s = 0.0


def patiently(
    call: Callable[[], T],
    cancel: threading.Event,
    *,
    patience: Patience | None = None,
    waiting: Callable[[float], None] | None = None,
) -> T:
    """``call()``, asked again while the server refuses it for its load (see the module).

    Raises:
        ApiError: the last refusal once the patience ran out, or any other failure at once.
        SyncCancelled: ``cancel`` was set during a wait.
    """
    patience = patience or Patience()
    while True:
        try:
            return call()
        except ApiError as exc:
            if not pushed_back(exc):
                raise
            wait_s = patience.wait_after(exc)
            if wait_s is None:
                raise
            # Not a warning: the progress tells the person, and the sync goes on.
            _log.info("the server asked to slow down (%s); asking again in %.1f s", exc, wait_s)
            if waiting is not None:
                waiting(wait_s)
            if cancel.wait(wait_s):
                raise SyncCancelled() from exc
