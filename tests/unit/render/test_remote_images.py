"""Remote images against a real local HTTP server: redirects, deadlines, caps and cancel.

The server listens on 127.0.0.1, which the production policy refuses; the tests allow that
address for the first hop only (``first_hop_allowed``), so every redirect meets the rule
exactly as shipped.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from support.images import SVG_WITH_SCRIPT, png_bomb, png_bytes

from memex_desktop.render.remote_images import (
    DEFAULT_POLICY,
    FetchedImages,
    ImagePolicy,
    Resolver,
    fetch_images,
    is_public_address,
    origin_of,
    wanted_images,
)

IMAGE = png_bytes(30, 20)
# Bodies served as they are, each with the Content-Type named.
SERVED: dict[str, tuple[str, bytes]] = {
    "/picture.svg": ("image/svg+xml", SVG_WITH_SCRIPT),
    "/svg-as-png.png": ("image/png", SVG_WITH_SCRIPT),
    "/page.png": ("text/html", b"<html><body>Not found</body></html>"),
    "/html-as-png.png": ("image/png", b"<!doctype html><p>Sign in</p>"),
    "/bomb.png": ("image/png", png_bomb()),
    "/untyped.png": ("application/octet-stream", IMAGE),
}
LOOPBACK = ipaddress.ip_address("127.0.0.1")


@dataclass
class ImageServer:
    """A loopback image server with hostile paths; it records what was asked of it."""

    port: int = 0
    requests: list[tuple[str, str]] = field(default_factory=list)
    client_ports: list[int] = field(default_factory=list)
    drip_started: threading.Event = field(default_factory=threading.Event)
    stopping: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        """The address of ``path`` on this server, under ``host``."""
        return f"http://{host}:{self.port}{path}"


def _handler(server: ImageServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class serving the paths the tests use."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the tests read ``server.requests`` instead."""

        def _redirect(self, location: str) -> None:
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            server.requests.append((self.path, self.headers.get("Host", "")))
            server.client_ports.append(self.client_address[1])
            port = server.port
            redirects = {
                "/to-loopback": f"http://127.0.0.1:{port}/ok.png",
                "/to-localhost": f"http://localhost:{port}/ok.png",
                "/to-mapped": f"http://[::ffff:127.0.0.1]:{port}/ok.png",
                "/to-private-name": f"http://intranet.test:{port}/ok.png",
                "/to-file": "file:///etc/passwd",
            }
            if self.path in redirects:
                self._redirect(redirects[self.path])
            elif self.path == "/ok.png":
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(IMAGE)))
                self.end_headers()
                self.wfile.write(IMAGE)
            elif self.path in SERVED:
                content_type, body = SERVED[self.path]
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif self.path == "/drip.png":
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", "1000")
                self.end_headers()
                server.drip_started.set()
                # One byte every two seconds, until the client gives up or the server stops.
                for _ in range(1000):
                    try:
                        self.wfile.write(b"x")
                        self.wfile.flush()
                    except OSError:
                        return
                    if server.stopping.wait(2.0):
                        return
            elif self.path == "/endless.png":
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                chunk = b"y" * 65536
                while not server.stopping.is_set():
                    try:
                        self.wfile.write(chunk)
                    except OSError:
                        return
            elif self.path == "/declared-huge.png":
                self.send_response(200)
                self.send_header("Content-Length", str(10**12))
                self.end_headers()
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

    return Handler


@pytest.fixture
def image_server() -> Iterator[ImageServer]:
    """A running loopback image server (stopped, with its slow answers, after the test)."""
    state = ImageServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def _names(mapping: dict[str, list[str]]) -> Resolver:
    """A resolver answering from ``mapping`` (a name it lacks is not found)."""

    async def resolve(host: str, port: int) -> list[str]:
        if host not in mapping:
            raise OSError(f"{host} not found")
        return mapping[host]

    return resolve


LOCAL_TEST = replace(DEFAULT_POLICY, first_hop_allowed=frozenset({LOOPBACK}))


def _bodies(found: FetchedImages) -> dict[str, bytes]:
    """The bytes of each image fetched."""
    return {url: image.body for url, image in found.images.items()}


def test_an_image_from_the_allowed_first_hop_is_fetched(image_server: ImageServer) -> None:
    url = image_server.url("/ok.png")
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert _bodies(found) == {url: IMAGE}


def test_the_production_policy_refuses_a_loopback_image(image_server: ImageServer) -> None:
    url = image_server.url("/ok.png")
    found = fetch_images([url], threading.Event())
    assert found.images == {}
    assert "public internet" in found.refused[url].detail
    assert found.refused[url].kind == "blocked"
    assert image_server.requests == []


@pytest.mark.parametrize("path", ["/to-loopback", "/to-mapped", "/to-file"])
def test_a_redirect_to_loopback_is_refused(image_server: ImageServer, path: str) -> None:
    url = image_server.url(path)
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert found.images == {}
    assert url in found.refused
    # The redirect itself was read; its target on loopback was never asked for.
    assert [request for request, _ in image_server.requests] == [path]


def test_a_redirect_to_a_name_resolving_to_loopback_is_refused(image_server: ImageServer) -> None:
    """localhost is checked after resolving it, like any other name."""
    policy = replace(LOCAL_TEST, resolver=_names({"localhost": ["127.0.0.1", "::1"]}))
    url = image_server.url("/to-localhost")
    found = fetch_images([url], threading.Event(), policy)
    assert "127.0.0.1 is not on the public internet" in found.refused[url].detail
    assert [request for request, _ in image_server.requests] == ["/to-localhost"]


def test_a_redirect_to_a_name_with_one_private_address_is_refused(
    image_server: ImageServer,
) -> None:
    """Every address of a name is checked: one public answer does not vouch for a private one."""
    policy = replace(LOCAL_TEST, resolver=_names({"intranet.test": ["93.184.216.34", "10.0.0.7"]}))
    url = image_server.url("/to-private-name")
    found = fetch_images([url], threading.Event(), policy)
    assert "10.0.0.7" in found.refused[url].detail
    assert len(image_server.requests) == 1


def test_the_connection_goes_to_the_checked_address(image_server: ImageServer) -> None:
    """A name only the policy's resolver knows still loads: no second lookup happens."""
    policy = replace(LOCAL_TEST, resolver=_names({"cdn.test": ["127.0.0.1"]}))
    url = image_server.url("/ok.png", host="cdn.test")
    found = fetch_images([url], threading.Event(), policy)
    assert _bodies(found) == {url: IMAGE}
    assert image_server.requests == [("/ok.png", f"cdn.test:{image_server.port}")]


def test_each_image_gets_its_own_connection(image_server: ImageServer) -> None:
    """Two names on one address never share a connection (nor, over TLS, a certificate)."""
    names = {"cdn-a.test": ["127.0.0.1"], "cdn-b.test": ["127.0.0.1"]}
    policy = replace(LOCAL_TEST, resolver=_names(names), parallel=1)
    urls = [image_server.url("/ok.png", host=name) for name in names]
    found = fetch_images(urls, threading.Event(), policy)
    assert set(found.images) == set(urls)
    assert len(set(image_server.client_ports)) == 2


def test_a_dripping_image_is_abandoned_at_its_deadline(image_server: ImageServer) -> None:
    policy = replace(LOCAL_TEST, deadline_s=1.0)
    url = image_server.url("/drip.png")
    started = time.monotonic()
    found = fetch_images([url], threading.Event(), policy)
    elapsed = time.monotonic() - started
    assert found.images == {}
    assert "within 1 s" in found.refused[url].detail
    assert found.refused[url].kind == "timed_out"
    assert 0.9 <= elapsed < 1.5


def test_cancel_returns_within_200_ms(image_server: ImageServer) -> None:
    policy = replace(LOCAL_TEST, deadline_s=60.0)
    cancel = threading.Event()
    urls = [image_server.url("/drip.png"), image_server.url("/ok.png?second")]
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(fetch_images(urls, cancel, policy)))
    worker.start()
    assert image_server.drip_started.wait(10)
    cancelled_at = time.monotonic()
    cancel.set()
    worker.join(5)
    assert not worker.is_alive()
    assert time.monotonic() - cancelled_at < 0.2
    (found,) = outcome
    assert isinstance(found, FetchedImages)
    assert found.cancelled
    assert found.refused[urls[0]].kind == "cancelled"


def test_an_endless_image_is_cut_at_the_cap(image_server: ImageServer) -> None:
    policy = replace(LOCAL_TEST, max_bytes=200_000)
    url = image_server.url("/endless.png")
    found = fetch_images([url], threading.Event(), policy)
    assert found.images == {}
    assert found.refused[url].detail == "cut at 200000 bytes"
    assert found.refused[url].kind == "too_large"


def test_a_declared_oversize_image_is_not_read(image_server: ImageServer) -> None:
    url = image_server.url("/declared-huge.png")
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert "larger than" in found.refused[url].detail
    assert found.refused[url].kind == "too_large"


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/picture.svg", "an SVG document"),
        ("/svg-as-png.png", "an SVG document"),
        ("/page.png", "content type text/html"),
        ("/html-as-png.png", "not a PNG, JPEG, GIF or WebP picture"),
    ],
)
def test_what_is_not_a_picture_by_its_bytes_is_refused(
    image_server: ImageServer, path: str, detail: str
) -> None:
    """Whatever the server calls it, only PNG, JPEG, GIF and WebP bytes come back."""
    url = image_server.url(path)
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert found.images == {}
    assert found.refused[url].kind == "not_image"
    assert found.refused[url].detail == detail


def test_a_decompression_bomb_is_refused_by_its_header(image_server: ImageServer) -> None:
    url = image_server.url("/bomb.png")
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert found.images == {}
    assert found.refused[url].kind == "too_large"
    assert found.refused[url].detail == "60000x60000 pixels"


def test_a_picture_served_untyped_is_judged_by_its_bytes(image_server: ImageServer) -> None:
    url = image_server.url("/untyped.png")
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert _bodies(found) == {url: IMAGE}
    assert (found.images[url].width, found.images[url].height) == (30, 20)


def test_an_http_error_status_is_reported_as_such(image_server: ImageServer) -> None:
    url = image_server.url("/missing.png")
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert (found.refused[url].kind, found.refused[url].detail) == ("status", "status 404")


def test_a_server_that_is_not_there_is_unreachable(image_server: ImageServer) -> None:
    """A closed port: the connection is refused at once."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{closed_port}/ok.png"
    found = fetch_images([url], threading.Event(), LOCAL_TEST)
    assert found.refused[url].kind == "unreachable"


def test_a_trusted_origin_is_fetched_from_loopback_on_its_port_only(
    image_server: ImageServer,
) -> None:
    """The demo's emulator is trusted by origin: another port of the same address is not."""
    policy = replace(DEFAULT_POLICY, trusted_origins=frozenset({origin_of(image_server.url("/"))}))
    url = image_server.url("/ok.png")
    found = fetch_images([url], threading.Event(), policy)
    assert _bodies(found) == {url: IMAGE}
    other = f"http://127.0.0.1:{image_server.port + 1}/ok.png"
    assert fetch_images([other], threading.Event(), policy).refused[other].kind == "blocked"
    # A redirect from the trusted origin meets the public-address rule like any other.
    redirected = image_server.url("/to-loopback")
    assert fetch_images([redirected], threading.Event(), policy).refused[redirected].kind == (
        "blocked"
    )


def test_an_origin_always_names_its_port() -> None:
    assert origin_of("https://Media.Example.com/a.png") == "https://media.example.com:443"
    assert origin_of("http://127.0.0.1:8787/media/x.jpg") == "http://127.0.0.1:8787"


def test_only_a_bounded_set_of_http_addresses_is_wanted() -> None:
    urls = ["file:///etc/passwd", "data:image/png;base64,AA", "https://a.example/1.png"]
    urls += [f"https://a.example/{n}.png" for n in range(100)]
    wanted = wanted_images(urls, ImagePolicy(max_images=3))
    assert wanted == [
        "https://a.example/1.png",
        "https://a.example/0.png",
        "https://a.example/2.png",
    ]


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "255.255.255.255",
        "224.0.0.1",
        "233.1.1.1",
        "240.0.0.1",
        "::",
        "::1",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::127.0.0.1",
        "2002:7f00:1::",
        "2002:a9fe:a9fe::1",
        "64:ff9b::a9fe:a9fe",
        "2001:db8::1",
    ],
)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert not is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "2606:4700::6810:84e5", "::ffff:93.184.216.34"]
)
def test_public_addresses_are_allowed(address: str) -> None:
    assert is_public_address(ipaddress.ip_address(address))
