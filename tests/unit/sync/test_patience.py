"""How long a sync waits for a server that refuses it for its load, and when it gives up."""

import threading

import pytest

from memex_desktop.api.errors import RateLimited, ServerError, ValidationError
from memex_desktop.sync.paging import size_related
from memex_desktop.sync.patience import (
    MIN_WAIT_S,
    UNANNOUNCED_503_PATIENCE_S,
    Patience,
    patiently,
    pushed_back,
)
from memex_desktop.sync.types import SyncCancelled


def test_only_429_and_503_are_refusals_for_load_and_503_is_not_about_page_size() -> None:
    assert pushed_back(RateLimited("busy"))
    assert pushed_back(ServerError("unavailable", status_code=503))
    assert not pushed_back(ServerError("broken", status_code=500))
    assert not pushed_back(ValidationError("bad", status_code=400))
    assert not size_related(ServerError("unavailable", status_code=503))
    assert size_related(ServerError("gateway timeout", status_code=504))


def test_the_wait_is_what_the_server_asked_and_never_none_at_all() -> None:
    patience = Patience(60.0, rand=lambda: 0.0)
    assert patience.wait_after(RateLimited("busy", retry_after=7.0)) == 7.0
    assert patience.wait_after(RateLimited("busy", retry_after=0.0)) == MIN_WAIT_S
    assert patience.wait_after(ServerError("unavailable", status_code=503)) == MIN_WAIT_S


def test_without_a_retry_after_the_waits_grow() -> None:
    patience = Patience(1_000.0, rand=lambda: 1.0)
    waits = [patience.wait_after(RateLimited("busy")) for _ in range(7)]
    assert waits == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]


def test_refusals_that_outlast_the_patience_give_up_and_an_answer_restores_it() -> None:
    patience = Patience(10.0)
    refusal = RateLimited("busy", retry_after=4.0)
    assert patience.wait_after(refusal) == 4.0
    assert patience.wait_after(refusal) == 4.0
    assert patience.wait_after(refusal) is None  # 12 s would be more than 10
    patience.answered()
    assert patience.wait_after(refusal) == 4.0


def test_patiently_asks_again_after_refusals_and_not_after_other_failures() -> None:
    answers: list[object] = [RateLimited("busy", retry_after=0.0), "page"]
    heard: list[float] = []

    def call() -> object:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert patiently(call, threading.Event(), waiting=heard.append) == "page"
    assert heard == [MIN_WAIT_S]
    with pytest.raises(ValidationError):
        patiently(_raises(ValidationError("bad")), threading.Event())


def test_a_cancel_during_the_wait_stops_at_once() -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(SyncCancelled):
        patiently(_raises(RateLimited("busy", retry_after=30.0)), cancel)


def _raises(exc: Exception) -> object:
    def call() -> object:
        raise exc

    return call


def test_a_503_that_does_not_say_when_is_waited_out_briefly() -> None:
    patience = Patience(300.0, rand=lambda: 1.0)
    down = ServerError("unavailable", status_code=503)
    waits = []
    while (wait := patience.wait_after(down)) is not None:
        waits.append(wait)
    assert sum(waits) <= UNANNOUNCED_503_PATIENCE_S
    assert waits == [2.0, 4.0, 8.0, 16.0]
    busy = Patience(300.0, rand=lambda: 1.0)  # a 429 says it is busy: the whole patience
    assert sum(iter(lambda: busy.wait_after(RateLimited("busy")), None)) > 200


def test_a_503_that_names_its_wait_is_waited_as_named_within_the_whole_patience() -> None:
    patience = Patience(300.0, rand=lambda: 1.0)
    maintenance = ServerError("unavailable", status_code=503, retry_after=45.0)
    waits = list(iter(lambda: patience.wait_after(maintenance), None))
    assert waits == [45.0] * 6  # 270 s: a seventh would be more than the 300 s of patience
    assert sum(waits) > UNANNOUNCED_503_PATIENCE_S
    assert Patience(300.0).wait_after(ServerError("x", status_code=503, retry_after=0.0)) == 1.0
    # A wait beyond the whole patience is not begun: the sync fails with what the server said.
    assert Patience(300.0).wait_after(ServerError("x", status_code=503, retry_after=600)) is None
