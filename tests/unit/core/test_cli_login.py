"""`memex-desktop login`: what it says before the browser (or the person) signs in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memex_desktop import cli, signin

AUTHORIZE_URL = "http://127.0.0.1:9/oauth/authorize?client_id=c"


@pytest.fixture
def sign_ins(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The sign-ins `login` starts; each shows the authorize address as a real one would."""
    started: list[dict[str, Any]] = []

    def sign_in(api_url: str, *, show_url: Callable[[str], None], **kwargs: Any) -> None:
        started.append({"api_url": api_url, **kwargs})
        if kwargs["open_browser"] is not None:
            assert kwargs["open_browser"](AUTHORIZE_URL) is False
        show_url(AUTHORIZE_URL)

    monkeypatch.setattr(signin, "sign_in", sign_in)
    monkeypatch.setattr(signin, "tokens_outlive_process", lambda: True)
    return started


def test_no_browser_says_to_open_the_printed_address(
    sign_ins: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["login", "--no-browser", "--api-url", "http://127.0.0.1:9"])
    assert status == cli.EXIT_OK
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith("Signing in to http://127.0.0.1:9 with the address printed below")
    assert "in the browser" not in err
    assert AUTHORIZE_URL in err
    assert len(sign_ins) == 1


def test_with_a_browser_it_says_the_browser(
    sign_ins: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["login", "--api-url", "http://127.0.0.1:9"]) == cli.EXIT_OK
    assert "Signing in to http://127.0.0.1:9 in the browser" in capsys.readouterr().err
    assert sign_ins[0]["open_browser"] is None


def test_an_unusable_address_is_the_only_line(
    sign_ins: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["login", "--api-url", "notaurl"]) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("memex-desktop: The API address “notaurl” cannot be used.")
    assert len(err.strip().splitlines()) == 1
    assert "Signing in" not in err
    assert sign_ins == []
