"""Sign-in test helpers: an emulator with its OAuth server, a scripted browser, a fake clock.

Every test may ask for ``oauth_emulator`` by name, and every test starts with a fresh
process-wide token store (``tests/conftest.py`` registers this module as a plugin).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import pytest
from starlette.applications import Starlette

from memex_desktop import signin
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.oauth import OAuthConfig, OAuthServer, register_oauth_routes
from support.emulator import make_config


class FakeClock:
    """A wall clock tests move by hand (epoch seconds)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.now += seconds


@dataclass
class OAuthEmulator:
    """A running emulator whose OAuth server issues tokens its API accepts."""

    running: RunningEmulator
    server: OAuthServer
    clock: FakeClock

    @property
    def base_url(self) -> str:
        """The API base URL (also the issuer and the protected resource)."""
        return self.running.base_url


def attach_oauth(running: RunningEmulator, config: OAuthConfig) -> OAuthServer:
    """Mount an OAuth server on a not-yet-started emulator.

    Uses the emulator's native OAuth when it has one (``state.oauth``), else registers the
    routes on its Starlette app and feeds issued tokens into its accepted bearer tokens.
    """
    native = getattr(running.state, "oauth", None)
    if isinstance(native, OAuthServer):
        native.config = config
        return native
    server = OAuthServer(
        config,
        on_issue=running.state.add_bearer_token,
        on_drop=running.state.revoke_bearer_token,
    )
    starlette_app = running.app.app
    assert isinstance(starlette_app, Starlette)
    register_oauth_routes(starlette_app, server)
    return server


@pytest.fixture
def oauth_emulator() -> Iterator[OAuthEmulator]:
    """The small test library behind an emulator that also acts as the sign-in server."""
    clock = FakeClock()
    running = RunningEmulator(make_config())
    server = attach_oauth(running, OAuthConfig(clock=clock))
    with running:
        yield OAuthEmulator(running, server, clock)


RedirectRewrite = Callable[[str], str]


def replace_query(url: str, **values: str) -> str:
    """``url`` with some query parameters replaced."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    query.update(values)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


@dataclass
class ScriptedBrowser:
    """Stands in for the system browser: follows the authorize URL in a thread.

    ``rewrite`` may change the redirect before it reaches the app (a forged ``state``).
    ``opened`` holds every URL it was asked to open; ``final_status`` the status of the page
    the app's listener answered with.
    """

    rewrite: RedirectRewrite | None = None
    available: bool = True
    follow: bool = True
    opened: list[str] = field(default_factory=list)
    final_status: int | None = None
    error: BaseException | None = None
    threads: list[threading.Thread] = field(default_factory=list)

    def __call__(self, url: str) -> bool:
        self.opened.append(url)
        if not self.available:
            return False
        if self.follow:
            thread = threading.Thread(target=self._visit, args=(url,), daemon=True)
            self.threads.append(thread)
            thread.start()
        return True

    def visit_now(self, url: str) -> None:
        """Follow ``url`` in a thread (when the app printed it instead of opening it)."""
        thread = threading.Thread(target=self._visit, args=(url,), daemon=True)
        self.threads.append(thread)
        thread.start()

    def _visit(self, url: str) -> None:
        try:
            with httpx.Client(timeout=10.0, follow_redirects=False) as http:
                answer = http.get(url)
                location = answer.headers.get("location")
                if answer.status_code != 302 or location is None:
                    self.final_status = answer.status_code
                    return
                if self.rewrite is not None:
                    location = self.rewrite(location)
                self.final_status = http.get(location).status_code
        except httpx.HTTPError as exc:
            self.error = exc

    def join(self) -> None:
        """Wait for the visits to end (bounded)."""
        for thread in self.threads:
            thread.join(10.0)


def files_containing(root: Path, needles: list[str]) -> list[Path]:
    """Every file under ``root`` whose bytes contain one of ``needles``."""
    encoded = [needle.encode() for needle in needles if needle]
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if any(needle in data for needle in encoded):
                found.append(path)
    return found


@pytest.fixture(autouse=True)
def fresh_token_store() -> Iterator[None]:
    """Each test starts with a new process-wide token store (nothing signed in)."""
    signin.default_secret_store.cache_clear()
    yield
    signin.default_secret_store.cache_clear()
