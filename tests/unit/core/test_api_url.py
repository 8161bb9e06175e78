"""A bad API address, from a flag, the environment or the settings: one clear line, no crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_desktop import cli, services
from memex_desktop.api.errors import BadApiUrl
from memex_desktop.api.urls import normalized_api_url
from memex_desktop.errors import user_message
from memex_desktop.settings import Settings


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://memex.garden/api", "https://memex.garden/api"),
        ("  HTTPS://Memex.Garden/api/ ", "https://memex.garden/api"),
        ("http://127.0.0.1:8765", "http://127.0.0.1:8765"),
        ("http://localhost:8765/", "http://localhost:8765"),
    ],
)
def test_a_usable_address_is_named_one_way(given: str, expected: str) -> None:
    assert normalized_api_url(given) == expected


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("notaurl", "does not start with a scheme"),
        ("memex.garden/api", "does not start with a scheme"),
        ("ftp://memex.garden/api", "“ftp:”"),
        ("https://", "no web site"),
        ("https://memex.garden/api?key=1", "query"),
        ("https://memex.garden/api#top", "fragment"),
        ("https://ann:hunter2@memex.garden/api", "password"),
        ("https://memex.garden:99999/api", "port"),
    ],
)
def test_an_unusable_address_says_why_without_its_password(given: str, why: str) -> None:
    with pytest.raises(BadApiUrl) as caught:
        normalized_api_url(given)
    message = user_message(caught.value)
    assert message.level == "error"
    assert why in message.one_line()
    assert "Settings" in message.one_line()
    assert "hunter2" not in message.one_line()
    assert "hunter2" not in str(caught.value)


def test_only_an_address_given_for_the_run_is_a_usage_problem() -> None:
    saved_bad = Settings(api_url="memex.garden/api")
    assert services.given_api_url_problem(saved_bad, None, environ={}) is None
    assert services.given_api_url_problem(Settings(), "https://memex.garden/api", {}) is None
    assert isinstance(services.given_api_url_problem(Settings(), "notaurl", {}), BadApiUrl)
    from_environment = {"MEMEX_API_URL": "memex.garden"}
    assert isinstance(services.given_api_url_problem(Settings(), None, from_environment), BadApiUrl)


@pytest.mark.parametrize("command", [["sync"], ["logout"], ["doctor"], ["search", "x", "--remote"]])
def test_the_command_line_says_it_in_one_line_and_exits_with_usage(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(
        ["--data-dir", str(tmp_path), "--api-url", "notaurl", "--api-key", "k", *command]
    )
    err = capsys.readouterr().err
    assert status == cli.EXIT_USAGE
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("memex-desktop:")]
    assert lines == [
        "memex-desktop: The API address “notaurl” cannot be used. This is not a complete "
        "address: it does not start with a scheme. Correct it in Settings (or where it was "
        "given: --api-url or MEMEX_API_URL), for example https://memex.garden/api."
    ]
