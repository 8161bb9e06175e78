"""A server that stops answering in the middle of a sync (it takes each request and says
nothing): the sync says it is not answering once one page has gone unanswered for the read
timeout, instead of asking again, and again for ever smaller pages, while the person waits;
once the server answers again, the next sync reads on."""

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import library_ids

from memex_desktop.api.client import MemexClient
from memex_desktop.api.errors import ServerNotAnswering
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import ConnectionState, state_words, user_message
from memex_desktop.sync import SyncEngine, SyncOutcome
from memex_desktop.sync.types import SyncProgress

READ_TIMEOUT_S = 1.0
SILENCE_S = 60.0  # longer than anything here waits: the server never answers in time


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(400, seed=11, words_per_entity=10)


@pytest.fixture
def client_factory() -> Iterator[Any]:
    """``client_factory(base_url)``: a client as the app makes one (its retries), with a
    short read timeout; closed after the test."""
    made: list[MemexClient] = []

    def make(base_url: str) -> MemexClient:
        client = MemexClient(
            base_url,
            api_key=TEST_API_KEY,
            timeout=httpx.Timeout(5.0, read=READ_TIMEOUT_S),
            deadline_s=10 * READ_TIMEOUT_S,
            sleep=lambda _s: None,
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def _searches(emulator: Any) -> int:
    return sum(1 for record in emulator.state.requests if record.path == "/search")


def test_a_server_silent_mid_sync_is_called_not_answering_after_one_read_timeout(
    library: dict[str, Any], library_emulator: Any, harness_factory: Any, client_factory: Any
) -> None:
    emulator = library_emulator(library, latency_ms=5)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=40)
    assert harness.engine.run(full=True).ok  # the server's paging is known: no probes below
    engine = SyncEngine(
        client_factory(emulator.base_url),
        harness.writer,
        harness.outbox,
        reader=harness.reader,
        page_size=40,
        max_in_flight=1,  # one request at a time: each one asked for after the silence counts
    )
    silent_since: list[tuple[float, int]] = []

    def progress(step: SyncProgress) -> None:
        if step.phase == "pull" and step.done >= 120 and not silent_since:
            emulator.faults.latency(SILENCE_S)
            silent_since.append((time.monotonic(), _searches(emulator)))

    report = engine.run(full=True, progress=progress)
    (went_silent_at, searches_before), ended_at = silent_since[0], time.monotonic()

    assert report.outcome is SyncOutcome.OFFLINE
    error = report.error
    assert isinstance(error, ServerNotAnswering)
    # One request met the silence: it was neither sent again nor followed by smaller pages.
    assert _searches(emulator) - searches_before == 1
    assert ended_at - went_silent_at < 2.5 * READ_TIMEOUT_S
    assert user_message(error).text == "The Memex server at 127.0.0.1 is not answering."
    words = state_words(report.outcome.state or ConnectionState.OFFLINE, error=error)
    assert words.label == "127.0.0.1 is not answering; saves wait"
    assert harness.reader.deleted_upstream() == []

    emulator.faults.clear()
    resumed = harness.new_engine().run()
    assert resumed.ok, resumed.error
    held = set(harness.reader.all_ids())
    assert library_ids(library) - emulator.state.unlisted_ids() <= held <= library_ids(library)
