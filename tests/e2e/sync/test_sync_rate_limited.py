"""A server that refuses a sync for its load (429 with Retry-After, 503) for a while: the sync
waits as asked, sends fewer requests at once and finishes; refusals that outlast its patience
fail it without losing or marking anything, and the next sync reads the rest."""

from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import library_ids

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import user_message
from memex_desktop.sync import SyncOutcome
from memex_desktop.sync.types import SyncProgress

REFUSALS = [
    pytest.param(
        lambda emulator, n: emulator.faults.next_status(429, n, retry_after=1, paths=["/search"]),
        id="429",
    ),
    pytest.param(
        lambda emulator, n: emulator.faults.next_status(503, n, paths=["/search"]), id="503"
    ),
]


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(600, seed=5, words_per_entity=10)


def _synced_whole(harness: Any, emulator: Any, library: dict[str, Any], report: Any) -> None:
    """Every item the server lists is cached once (the first-party profile leaves some
    unlisted, cached only where others name them)."""
    assert report.outcome is SyncOutcome.OK, report.error
    ids = library_ids(library)
    held = set(harness.reader.all_ids())
    assert ids - emulator.state.unlisted_ids() <= held <= ids
    assert harness.reader.stats().entities == len(held)


def _once_past(done: int, arm: Any) -> Any:
    """A progress callback that calls ``arm()`` once, when the pull has passed ``done`` items
    (pages need not end on round numbers: a server may drop rows from them)."""
    armed: list[bool] = []

    def progress(step: SyncProgress) -> None:
        if step.phase == "pull" and step.done >= done and not armed:
            armed.append(True)
            arm()

    return progress


@pytest.mark.parametrize("refuse", REFUSALS)
def test_refusals_on_a_first_sync_are_waited_out(
    refuse: Any, library: dict[str, Any], library_emulator: Any, harness_factory: Any
) -> None:
    """The first sync's probe of how the server pages meets them first."""
    emulator = library_emulator(library, latency_ms=5)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=40, client_retries=3)
    refuse(emulator, 10)  # the client gives up after 4 of them: twice, then the rest
    heard: list[SyncProgress] = []
    report = harness.new_engine().run(full=True, progress=heard.append)
    _synced_whole(harness, emulator, library, report)
    assert emulator.faults.armed == 0
    waits = [step for step in heard if step.waiting_s is not None]
    assert len(waits) == 2, waits
    assert all("the server asked to slow down" in step.message for step in waits)


def test_a_503_naming_its_wait_is_waited_as_named_and_said(
    library: dict[str, Any], library_emulator: Any, harness_factory: Any
) -> None:
    """A 503 with Retry-After (a server down for maintenance, saying for how long) is waited
    out as it names, not with a wait of the sync's own, and the progress says that wait."""
    emulator = library_emulator(library, latency_ms=5)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=40, client_retries=3)
    emulator.faults.next_status(503, 4, retry_after=2, paths=["/search"])  # the client's 4 tries
    heard: list[SyncProgress] = []
    report = harness.new_engine(rand=lambda: 0.0).run(full=True, progress=heard.append)
    _synced_whole(harness, emulator, library, report)
    waits = [step for step in heard if step.waiting_s is not None]
    assert [step.waiting_s for step in waits] == [2.0]
    assert waits[0].message.endswith("the server asked to slow down, asking again in 2 s")


def test_a_503_naming_a_wait_longer_than_the_patience_fails_at_once_saying_when(
    library: dict[str, Any], library_emulator: Any, harness_factory: Any
) -> None:
    """Maintenance announced for longer than a sync waits: the sync stops at once (nothing
    is gained by asking before then), and the words say when the server will be back."""
    emulator = library_emulator(library, latency_ms=5)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=40, client_retries=1)
    harness.new_engine().run(full=True)
    emulator.faults.next_status(503, 1_000, retry_after=600, paths=["/search"])
    heard: list[SyncProgress] = []
    report = harness.new_engine().run(full=True, progress=heard.append)
    assert report.outcome is SyncOutcome.SERVER_DOWN
    assert [step for step in heard if step.waiting_s is not None] == []
    message = user_message(report.error)
    assert message.action == "The server says to try again in 10 min; nothing local is lost."


@pytest.mark.parametrize("refuse", REFUSALS)
def test_refusals_during_paging_send_fewer_requests_and_the_pass_finishes(
    refuse: Any, library: dict[str, Any], library_emulator: Any, harness_factory: Any
) -> None:
    emulator = library_emulator(library, latency_ms=20)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=40, client_retries=3)
    harness.new_engine().run(full=True)  # the server's paging is known: no probes below
    engine = harness.new_engine(rand=lambda: 0.0)  # the shortest waits

    refuse_after_first_pages = _once_past(120, lambda: refuse(emulator, 20))
    report = engine.run(full=True, progress=refuse_after_first_pages)
    _synced_whole(harness, emulator, library, report)
    assert emulator.faults.armed == 0
    assert engine.in_flight is not None
    assert engine.in_flight.refusals >= 20
    assert engine.in_flight.pushbacks >= 1  # the limit went down for them


def test_refusals_beyond_the_patience_fail_the_sync_and_lose_nothing(
    library: dict[str, Any], library_emulator: Any, harness_factory: Any
) -> None:
    emulator = library_emulator(library, latency_ms=5)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=40, client_retries=1)
    harness.new_engine().run(full=True)
    before = set(harness.reader.all_ids())
    engine = harness.new_engine(patience_s=2.5)

    refuse_mid_pass = _once_past(
        200, lambda: emulator.faults.next_status(429, 1_000, retry_after=1, paths=["/search"])
    )
    report = engine.run(full=True, progress=refuse_mid_pass)
    assert report.outcome is SyncOutcome.SERVER_DOWN
    assert "429" in str(report.error)
    assert report.full_pass_completed is False
    # Nothing was taken for deleted, and the next sync, once the server answers, reads on.
    assert set(harness.reader.all_ids()) == before
    emulator.faults.clear()
    _synced_whole(harness, emulator, library, harness.new_engine().run())
