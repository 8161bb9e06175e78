"""How many page requests a full pass keeps under way: grown while the server keeps pace.

Over a real network a page spends most of its time on round trips, not in this process, so
several requests in flight hide the latency; against a server that is already busy, more
requests only queue up behind each other (each answer comes later) or get refused (429/503).
:class:`InFlightLimit` is the decision alone (no threads, no I/O, no clock): the fetcher tells it
how long each answer took and when the server pushed back, and asks it how many to keep going.

The scheme is additive increase, multiplicative decrease, judged by latency as TCP Vegas does:
the fastest recent answer is what the server takes when nothing queues, and an answer much
slower than that means requests now wait for each other. Until the first such sign the limit
grows by one per steady answer (doubling every round of answers, as TCP's slow start); after it,
by one per round. A slowdown takes a quarter off; a 429 or 503 halves it. Answers to requests
sent before a decrease say nothing about the new limit, so a round of them is not judged. While
the pages already fetched wait for the writer, the limit does not grow: more requests would only
hold more pages in memory.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

# The answers whose fastest is the server's unloaded latency: recent enough to follow a server
# that became slower for good (then more requests in flight help again), enough not to take a
# burst of slow answers for the new normal.
BASELINE_ANSWERS = 32
# An answer counts as slowed down beyond this multiple of the baseline, and beyond this margin:
# on loopback answers take milliseconds, and a few more of them are noise, not queueing.
SLOWDOWN_FACTOR = 1.6
SLOWDOWN_MARGIN_S = 0.025


@dataclass
class InFlightLimit:
    """Requests to keep in flight, between 1 and ``cap``, from the answers seen so far.

    Not thread-safe: one fetcher owns it.
    """

    cap: int
    start: int = 2
    limit: int = field(init=False)
    _slow_start: bool = field(default=True, init=False)
    _steady_in_round: int = field(default=0, init=False)
    _ignore: int = field(default=0, init=False)
    _writer_behind: bool = field(default=False, init=False)
    _recent: deque[float] = field(
        default_factory=lambda: deque(maxlen=BASELINE_ANSWERS), init=False
    )
    # What happened so far (for the log, the benchmark and tests).
    most: int = field(default=0, init=False)
    slowdowns: int = field(default=0, init=False)
    # Refusals heard, and the decreases they caused (one per round of requests).
    refusals: int = field(default=0, init=False)
    pushbacks: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.cap < 1:
            raise ValueError("the cap of requests in flight must be at least 1")
        self.limit = max(1, min(self.start, self.cap))
        self.most = self.limit

    @property
    def baseline_s(self) -> float | None:
        """The fastest recent answer: the latency of a server with nothing queued."""
        return min(self._recent) if self._recent else None

    def answered(self, elapsed_s: float) -> None:
        """One page came back after ``elapsed_s`` (request sent to page decoded)."""
        baseline = self.baseline_s
        self._recent.append(elapsed_s)
        if self._ignore > 0:
            self._ignore -= 1
            return
        if baseline is not None and elapsed_s > max(
            baseline * SLOWDOWN_FACTOR, baseline + SLOWDOWN_MARGIN_S
        ):
            self.slowdowns += 1
            self._decrease(self.limit - max(1, self.limit // 4))
            return
        if self._writer_behind:
            self._steady_in_round = 0
            return
        if self._slow_start:
            self._grow()
            return
        self._steady_in_round += 1
        if self._steady_in_round >= self.limit:
            self._grow()

    def pushed_back(self) -> None:
        """The server refused a request for its load (429 Too Many Requests, 503)."""
        self.refusals += 1
        if self._ignore > 0:
            # One decrease per round: this request was sent before it. A refusal ends a
            # request as an answer does, so a round refused whole still comes to its end.
            self._ignore -= 1
            return
        self.pushbacks += 1
        self._decrease(self.limit // 2)

    def writer_behind(self, behind: bool) -> None:
        """Whether fetched pages are waiting for the writer (then the network is not the limit)."""
        self._writer_behind = behind

    def _grow(self) -> None:
        """One more request in flight (within the cap); a new round starts."""
        self._steady_in_round = 0
        if self.limit < self.cap:
            self.limit += 1
            self.most = max(self.most, self.limit)

    def _decrease(self, to: int) -> None:
        """Fewer requests in flight, and growth by rounds from now on."""
        self._slow_start = False
        self._steady_in_round = 0
        # Requests sent under the old limit are still coming back, slowed by the same cause.
        self._ignore = self.limit
        self.limit = max(1, min(to, self.cap))
