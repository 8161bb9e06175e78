"""The one-shot loopback listener: one redirect, typed errors, never left running."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from memex_desktop.api.oauth import (
    AuthorizationFailed,
    LoopbackListener,
    SignInCancelled,
    SignInDenied,
    SignInTimedOut,
    StateMismatch,
)

STATE = "state-7f3a"
CODE = "code-secret-91be"


@pytest.fixture
def listener() -> Iterator[LoopbackListener]:
    with LoopbackListener(STATE) as running:
        yield running
    assert running.closed


def _visit_later(url: str, answers: list[int]) -> threading.Thread:
    """Send a GET from another thread (the browser), recording the answer's status."""

    def visit() -> None:
        answers.append(httpx.get(url, timeout=5.0).status_code)

    thread = threading.Thread(target=visit, daemon=True)
    thread.start()
    return thread


def _port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
    return False


def test_redirect_uri_is_loopback_on_an_ephemeral_port(listener: LoopbackListener) -> None:
    assert listener.redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
    assert listener.port > 0


def test_one_redirect_gives_the_code_and_closes(
    listener: LoopbackListener, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    answers: list[int] = []
    url = f"{listener.redirect_uri}?code={CODE}&state={STATE}&iss=https%3A%2F%2Fa.example"
    thread = _visit_later(url, answers)
    code, issuer = listener.wait(timeout_s=5.0)
    thread.join(5.0)
    assert (code, issuer) == (CODE, "https://a.example")
    assert answers == [200]
    listener.close()
    assert _port_is_free(listener.port)
    server_lines = [r.getMessage() for r in caplog.records if not r.name.startswith("http")]
    assert not any(CODE in line for line in server_lines)


def test_other_paths_and_later_redirects_get_404(listener: LoopbackListener) -> None:
    results: list[tuple[str, str | None]] = []
    waiter = threading.Thread(target=lambda: results.append(listener.wait(timeout_s=5.0)))
    waiter.start()
    favicon = httpx.get(listener.redirect_uri.replace("/callback", "/favicon.ico"), timeout=5)
    assert favicon.status_code == 404
    first = httpx.get(f"{listener.redirect_uri}?code={CODE}&state={STATE}", timeout=5)
    assert first.status_code == 200
    waiter.join(5.0)
    assert results == [(CODE, None)]


@pytest.mark.parametrize(
    ("query", "error"),
    [
        (f"code={CODE}&state=forged", StateMismatch),
        (f"code={CODE}", StateMismatch),
        ("error=access_denied&state=forged", StateMismatch),
        (f"error=access_denied&state={STATE}", SignInDenied),
        (f"error=server_error&error_description=down&state={STATE}", AuthorizationFailed),
        (f"state={STATE}", AuthorizationFailed),
    ],
)
def test_bad_redirects_end_with_a_typed_error(
    listener: LoopbackListener, query: str, error: type[Exception]
) -> None:
    answers: list[int] = []
    thread = _visit_later(f"{listener.redirect_uri}?{query}", answers)
    with pytest.raises(error) as raised:
        listener.wait(timeout_s=5.0)
    thread.join(5.0)
    assert answers == [400]
    assert CODE not in str(raised.value)


def test_timeout_releases_the_port() -> None:
    with LoopbackListener(STATE) as listener, pytest.raises(SignInTimedOut, match="timed out"):
        listener.wait(timeout_s=0.3)
    assert _port_is_free(listener.port)


def test_cancel_ends_the_wait_promptly() -> None:
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    with LoopbackListener(STATE) as listener, pytest.raises(SignInCancelled):
        listener.wait(timeout_s=30.0, cancel=cancel)
    timer.join()
    assert _port_is_free(listener.port)


def test_a_silent_connection_does_not_block_the_deadline() -> None:
    with (
        LoopbackListener(STATE) as listener,
        socket.create_connection(("127.0.0.1", listener.port)),
    ):
        # Connected, sends nothing (a preconnect): the deadline still holds.
        started = time.monotonic()
        with pytest.raises(SignInTimedOut):
            listener.wait(timeout_s=0.5)
        assert time.monotonic() - started < 2.0
