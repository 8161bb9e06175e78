"""An address with a user name or password is refused before it is queued, and no message
repeats the password: it would otherwise be sent to Memex and shown in the terminal and log."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_desktop.store import CredentialsInUrl, Outbox, savable_url, shown_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://alice:secret@example.com/page", "https://***@example.com/page"),
        ("https://token@example.com/x?y=1", "https://***@example.com/x?y=1"),
        ("http://alice:p@ss@example.com", "http://***@example.com"),
        ("https://alice:se cret@example.com/", "https://***@example.com/"),
    ],
)
def test_credentials_are_refused_and_never_repeated(tmp_path: Path, url: str, shown: str) -> None:
    assert shown_url(url) == shown
    with pytest.raises(CredentialsInUrl) as caught:
        savable_url(url)
    assert caught.value.shown == shown
    assert str(caught.value).startswith(f"{shown}: it holds a user name or password")
    with Outbox(tmp_path / "outbox.db") as outbox:
        with pytest.raises(CredentialsInUrl) as caught:
            outbox.enqueue_url(url)
        assert "secret" not in str(caught.value)
        assert "token" not in str(caught.value)
        assert outbox.list() == []


@pytest.mark.parametrize(
    "url",
    ["https://example.com/a@b", "https://example.com/?to=a@b", "https://example.com#x@y"],
)
def test_an_at_sign_after_the_host_is_no_credential(url: str) -> None:
    assert shown_url(url) == url
    assert savable_url(url).startswith("https://example.com")
