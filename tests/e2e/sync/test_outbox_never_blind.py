"""Saves are never re-sent blindly, counted in POSTs per URL against the real emulator.

A 2xx whose body cannot be read is "accepted, unconfirmed" and the next pull confirms it. A
save a crash left ``sending`` is looked for in the cache, then with the server's exact-URL
lookup (an INFERRED endpoint, so the emulator serves it only when switched on and the engine
asks only when allowed), and sent again only when neither has it. The crash is what a killed
process leaves in outbox.db: the row claimed (``sending``, one attempt) and the engine gone;
whether the POST had gone out is set up by sending it, or not, before the new engine starts.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import FAST_POLICY

from memex_desktop.api.client import MemexClient
from memex_desktop.api.errors import ServerNotAnswering
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import ConnectionState, failure_message, state_words, user_message
from memex_desktop.sync import SyncEngine

pytestmark = pytest.mark.e2e

URL_PATH = "/save-content-by-url"
LOOKUP_PATH = "/find-content-by-url"


def _posts(emulator: Any, path: str = URL_PATH) -> int:
    return sum(1 for record in emulator.state.requests if record.path == path)


def _saved_with_url(emulator: Any, url: str) -> int:
    state = emulator.state
    return sum(
        1 for entity_id in state.entity_ids() if (state.entity(entity_id) or {}).get("url") == url
    )


@pytest.fixture
def launch() -> Iterator[Any]:
    """``launch(harness, base_url, read_timeout=5.0, **options)``: another launch, a fresh
    client (short read timeout) and engine over the same stores; clients closed after."""
    clients: list[MemexClient] = []

    def make(harness: Any, base_url: str, *, read_timeout: float = 5.0, **options: Any) -> Any:
        client = MemexClient(
            base_url,
            api_key=TEST_API_KEY,
            max_retries=1,
            deadline_s=20.0,
            timeout=httpx.Timeout(5.0, read=read_timeout),
            sleep=lambda _s: None,
        )
        clients.append(client)
        return SyncEngine(
            client,
            harness.writer,
            harness.outbox,
            reader=harness.reader,
            page_size=50,
            outbox_policy=FAST_POLICY,
            **options,
        )

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def started(one_profile_emulator: Any, harness_factory: Any) -> Any:
    def start(**config: Any) -> tuple[Any, Any]:
        emulator = one_profile_emulator(generate_library(20, seed=5, words_per_entity=6), **config)
        harness = harness_factory(emulator.base_url, TEST_API_KEY)
        assert harness.engine.run(full=True).ok
        emulator.state.requests.clear()
        return emulator, harness

    return start


@pytest.mark.parametrize("mode", ["garbage", "stall"])
def test_a_2xx_that_cannot_be_read_is_accepted_and_never_sent_again(
    started: Any, launch: Any, mode: str
) -> None:
    emulator, harness = started()
    url = f"https://unreadable.example/{mode}"
    harness.outbox.enqueue_url(url)
    engine = launch(harness, emulator.base_url, read_timeout=0.5)
    emulator.faults.unreadable_success(count=1, mode=mode, paths=[URL_PATH])
    report = engine.drain_outbox()
    assert report.ok, report.error
    assert report.sent == 1
    [op] = harness.outbox.list()
    assert (op.state, op.entity_id) == ("accepted", None)
    assert _posts(emulator) == 1
    # Later syncs send nothing more; the next pull sees the entity and confirms the save.
    assert engine.drain_outbox().sent == 0
    assert engine.run().ok
    assert harness.outbox.list()[0].state == "confirmed"
    assert _posts(emulator) == 1
    assert _saved_with_url(emulator, url) == 1


def _crash_while_sending(harness: Any, url: str) -> None:
    """What a process killed mid-send leaves: the save claimed, nothing recorded after."""
    harness.outbox.enqueue_url(url)
    claimed = harness.outbox.claim_next()
    assert claimed is not None
    assert claimed.state == "sending"


def test_a_save_in_flight_at_a_crash_that_the_cache_has_is_confirmed_not_sent(
    started: Any, launch: Any
) -> None:
    emulator, harness = started()
    url = "https://crash.example/reached-and-pulled"
    _crash_while_sending(harness, url)
    harness.client.save_content_by_url(url)  # the POST that went out before the kill
    assert harness.new_engine().pull().ok  # another window's pull cached it meanwhile
    report = launch(harness, emulator.base_url).drain_outbox()
    assert report.ok, report.error
    [op] = harness.outbox.list()
    assert op.state == "confirmed"
    assert op.entity_id is not None
    assert _posts(emulator) == 1
    assert _posts(emulator, LOOKUP_PATH) == 0, "the cache answered; the server was not asked"


def test_a_save_in_flight_at_a_crash_found_by_the_servers_lookup_is_not_sent(
    started: Any, launch: Any
) -> None:
    emulator, harness = started(exact_url_lookup=True)
    url = "https://crash.example/reached-not-pulled"
    _crash_while_sending(harness, url)
    saved = harness.client.save_content_by_url(url)
    report = launch(harness, emulator.base_url, exact_url_lookup=True).drain_outbox()
    assert report.ok, report.error
    [op] = harness.outbox.list()
    assert (op.state, op.entity_id) == ("accepted", saved.entity.id)
    assert harness.reader.raw_json(saved.entity.id) is not None
    assert _posts(emulator) == 1
    assert _posts(emulator, LOOKUP_PATH) == 1


def test_a_save_that_never_left_is_sent_once_after_the_lookup_says_so(
    started: Any, launch: Any
) -> None:
    emulator, harness = started(exact_url_lookup=True)
    url = "https://crash.example/never-sent"
    _crash_while_sending(harness, url)
    report = launch(harness, emulator.base_url, exact_url_lookup=True).drain_outbox()
    assert report.ok, report.error
    assert report.sent == 1
    assert _posts(emulator) == 1
    assert _posts(emulator, LOOKUP_PATH) == 1
    assert harness.outbox.list()[0].state == "accepted"


def test_without_a_lookup_on_the_server_the_probe_fails_once_and_the_save_is_resent_once(
    started: Any, launch: Any
) -> None:
    emulator, harness = started()  # the emulator's lookup is off: 404, like the real service
    urls = ["https://crash.example/a", "https://crash.example/b"]
    for url in urls:
        _crash_while_sending(harness, url)
        harness.client.save_content_by_url(url)
    report = launch(harness, emulator.base_url, exact_url_lookup=True).drain_outbox()
    assert report.ok, report.error
    assert _posts(emulator, LOOKUP_PATH) == 1, "the missing lookup was asked for again"
    assert _posts(emulator) == 4, "each save is sent at most once more"
    for url in urls:
        assert _saved_with_url(emulator, url) == 1
    assert {op.state for op in harness.outbox.list()} == {"accepted"}


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server that accepts TCP connections (the kernel's backlog) and never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def test_a_server_that_never_answers_is_called_not_answering_with_its_host(
    harness_factory: Any, launch: Any, silent_server: str
) -> None:
    harness = harness_factory(silent_server, TEST_API_KEY)
    for index in range(3):
        harness.outbox.enqueue_url(f"https://silent.example/{index}")
    report = launch(harness, silent_server, read_timeout=0.3).drain_outbox()
    error = report.error
    assert isinstance(error, ServerNotAnswering)
    assert error.host == "127.0.0.1"
    message = user_message(error)
    assert message.text == "The Memex server at 127.0.0.1 is not answering."
    assert "offline" not in message.one_line().lower()
    words = state_words(ConnectionState.OFFLINE, error=error)
    assert words.label == "127.0.0.1 is not answering; saves wait"
    # One save waited out the silence; the others were not each made to wait too.
    ops = harness.outbox.list()
    assert sorted(op.attempts for op in ops) == [0, 0, 1]
    tried = next(op for op in ops if op.attempts)
    assert (tried.state, tried.error_kind) == ("queued", "not_answering")
    assert "did not answer" in failure_message(tried.error_kind).text
