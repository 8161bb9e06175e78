"""Remote images a person allowed for one item, fetched so that saved content cannot aim them.

A saved page chooses the image addresses, so each fetch could be turned against the person's
own network (a router's admin page, a cloud metadata service, a local development server).
Every hop is therefore resolved here, each of its addresses is checked (loopback, link-local,
private, shared, multicast, reserved and unspecified ranges are refused, IPv4 inside IPv6
included), and the connection goes to the address that was checked, never to a second DNS
answer. Redirects are followed by hand so each hop gets the same check.

Each image has a total deadline (not a per-read timeout: a server dripping one byte at a time
is dropped at its deadline) and a size cap; a cancel returns within a few tens of
milliseconds, whatever the network is doing, because the fetches run as asyncio tasks that
are cancelled, not sockets waited on. What comes back must be a picture by its own bytes
(:mod:`memex_desktop.render.image_check`): no SVG, no page posing as a picture, no header
promising more pixels than the reader decodes. Each refusal has a kind
(:data:`RefusalKind`) that the reader turns into words (``errors.images_not_loaded``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import httpx

from memex_desktop.render.image_check import (
    MAX_IMAGE_PIXELS,
    CheckedImage,
    NotAnImage,
    TooManyPixels,
    check_image,
)

log = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]

MAX_REMOTE_IMAGES = 24
MAX_IMAGE_BYTES = 5 * 1024 * 1024
IMAGE_DEADLINE_S = 15.0
ALL_IMAGES_DEADLINE_S = 60.0
CONNECT_TIMEOUT_S = 5.0
MAX_REDIRECTS = 5
PARALLEL_FETCHES = 4
# How often a running fetch looks at the cancel event: well inside the 200 ms a cancel may take.
CANCEL_POLL_S = 0.02
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# NAT64's well-known prefix carries an IPv4 address in its last 32 bits.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


# Why an image was not loaded, as the reader tells the person (errors.images_not_loaded).
RefusalKind = Literal[
    "unreachable",  # the host is not found, or refuses or drops the connection
    "timed_out",  # no whole answer within the deadline
    "status",  # an HTTP status other than 200 (or a redirect)
    "not_image",  # the answer is no PNG, JPEG, GIF or WebP (an SVG, a web page)
    "too_large",  # more bytes or pixels than the reader takes
    "blocked",  # an address off the public internet, or not http(s)
    "malformed",  # an address or a redirect that cannot be read, or too many redirects
    "cancelled",  # the person moved on, or the whole batch ran out of time
]
REFUSAL_KINDS: tuple[RefusalKind, ...] = get_args(RefusalKind)


@dataclass(frozen=True)
class Refusal:
    """Why one image is not shown: its kind, and a detail for the log (a status, an address)."""

    kind: RefusalKind
    detail: str

    def __str__(self) -> str:
        return self.detail


class ImageRefused(Exception):
    """One image was not fetched; ``kind`` says why, the text gives the detail (for the log)."""

    def __init__(self, kind: RefusalKind, detail: str) -> None:
        super().__init__(detail)
        self.kind: RefusalKind = kind

    def refusal(self) -> Refusal:
        """The refusal this exception stands for."""
        return Refusal(self.kind, str(self))


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (6to4, Teredo, NAT64, IPv4-compatible)."""
    found: list[ipaddress.IPv4Address] = []
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def is_public_address(address: IPAddress) -> bool:
    """Whether an address is on the public internet (what a remote image may come from)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            # The socket layer connects to the IPv4 address itself: judge that one alone.
            return is_public_address(address.ipv4_mapped)
        if not all(is_public_address(inner) for inner in _embedded_ipv4(address)):
            return False
    return address.is_global and not (
        address.is_multicast
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
    )


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host`` (TCP only)."""
    loop = asyncio.get_running_loop()
    answers = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(answer[4][0]) for answer in answers]


@dataclass(frozen=True)
class ImagePolicy:
    """Limits of one batch of image fetches.

    ``first_hop_allowed`` lets a test serve its first hop from a loopback server while every
    redirect still meets the public-address rule; production leaves it empty.
    ``trusted_origins`` (``http://127.0.0.1:8787``) does the same for one server only: the
    demo's emulator, which serves the demo library's pictures.
    """

    max_images: int = MAX_REMOTE_IMAGES
    max_bytes: int = MAX_IMAGE_BYTES
    deadline_s: float = IMAGE_DEADLINE_S
    total_deadline_s: float = ALL_IMAGES_DEADLINE_S
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    max_redirects: int = MAX_REDIRECTS
    parallel: int = PARALLEL_FETCHES
    resolver: Resolver = system_resolver
    first_hop_allowed: frozenset[IPAddress] = frozenset()
    trusted_origins: frozenset[str] = frozenset()
    max_pixels: int = MAX_IMAGE_PIXELS


DEFAULT_POLICY = ImagePolicy()


@dataclass
class FetchedImages:
    """What a batch brought: each image fetched (checked), the reason for each refused."""

    images: dict[str, CheckedImage] = field(default_factory=dict)
    refused: dict[str, Refusal] = field(default_factory=dict)
    cancelled: bool = False


def _parse_address(text: str) -> IPAddress | None:
    """An address from a resolver answer (a scope suffix like ``%eth0`` dropped)."""
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


async def _checked_address(url: httpx.URL, policy: ImagePolicy, hop: int) -> IPAddress:
    """The address to connect to for ``url``, after every address of its host passed."""
    host = url.raw_host.decode("ascii")
    if url.scheme not in ("http", "https") or not host:
        raise ImageRefused("blocked", "not an http(s) address")
    port = url.port or (443 if url.scheme == "https" else 80)
    literal = _parse_address(host)
    try:
        answers = [host] if literal is not None else await policy.resolver(host, port)
    except OSError as exc:
        raise ImageRefused("unreachable", f"host not found ({type(exc).__name__})") from exc
    parsed = [_parse_address(answer) for answer in answers]
    addresses = [address for address in parsed if address is not None]
    if not addresses or len(addresses) != len(parsed):
        raise ImageRefused("unreachable", "host has no usable address")
    if hop == 0 and origin_of(url) in policy.trusted_origins:
        return addresses[0]
    allowed = policy.first_hop_allowed if hop == 0 else frozenset()
    for address in addresses:
        if not (address in allowed or is_public_address(address)):
            raise ImageRefused("blocked", f"address {address} is not on the public internet")
    return addresses[0]


def origin_of(url: httpx.URL | str) -> str:
    """``scheme://host:port`` of an address, the port always written (for trusted_origins)."""
    parsed = httpx.URL(url) if isinstance(url, str) else url
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    host = parsed.raw_host.decode("ascii").lower()
    shown = f"[{host}]" if ":" in host else host
    return f"{parsed.scheme}://{shown}:{port}"


def _pinned_request(client: httpx.AsyncClient, url: httpx.URL, address: IPAddress) -> httpx.Request:
    """A GET of ``url`` sent to ``address``: same Host header and TLS name, no second lookup."""
    host_header = url.netloc.decode("ascii")
    headers = {"Host": host_header, "Accept": "image/*", "Accept-Encoding": "identity"}
    target = url.copy_with(host=str(address))
    extensions = {"sni_hostname": url.raw_host.decode("ascii")} if url.scheme == "https" else {}
    return client.build_request("GET", target, headers=headers, extensions=extensions)


async def _read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    """The body of ``response``, refused as soon as it passes ``max_bytes``."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ImageRefused("not_image", f"encoded body ({encoding[:20]})")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ImageRefused("too_large", f"larger than {max_bytes} bytes")
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > max_bytes:
            raise ImageRefused("too_large", f"cut at {max_bytes} bytes")
    return bytes(body)


# Types a server may give a picture: its own image type, or none worth the name.
_GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})


def _check_declared_type(response: httpx.Response) -> None:
    """Refuse an answer whose Content-Type says it is no raster picture (SVG, HTML, JSON)."""
    declared = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if declared.startswith("image/svg"):
        raise ImageRefused("not_image", "an SVG document")
    if not (declared.startswith("image/") or declared in _GENERIC_TYPES):
        raise ImageRefused("not_image", f"content type {declared[:60]}")


def _checked_body(body: bytes, policy: ImagePolicy) -> CheckedImage:
    """``body`` as a picture by its own bytes, or the refusal that says why not."""
    try:
        return check_image(body, policy.max_pixels)
    except NotAnImage as exc:
        raise ImageRefused("not_image", str(exc)) from exc
    except TooManyPixels as exc:
        raise ImageRefused("too_large", str(exc)) from exc


async def _fetch_one(client: httpx.AsyncClient, url: str, policy: ImagePolicy) -> CheckedImage:
    """One image, following at most ``max_redirects`` redirects, each hop checked."""
    try:
        current = httpx.URL(url)
    except (httpx.InvalidURL, ValueError) as exc:
        raise ImageRefused("malformed", "malformed address") from exc
    for hop in range(policy.max_redirects + 1):
        address = await _checked_address(current, policy, hop)
        request = _pinned_request(client, current, address)
        response = await client.send(request, stream=True)
        try:
            if response.status_code in _REDIRECTS:
                location = response.headers.get("location", "")
                if not location:
                    raise ImageRefused("malformed", "redirect without a location")
                try:
                    current = current.join(location)
                except (httpx.InvalidURL, ValueError) as exc:
                    raise ImageRefused("malformed", "malformed redirect") from exc
                continue
            if response.status_code != 200:
                raise ImageRefused("status", f"status {response.status_code}")
            _check_declared_type(response)
            return _checked_body(await _read_capped(response, policy.max_bytes), policy)
        finally:
            await response.aclose()
    raise ImageRefused("malformed", f"more than {policy.max_redirects} redirects")


async def _fetch_within_deadline(
    client: httpx.AsyncClient,
    url: str,
    policy: ImagePolicy,
    slots: asyncio.Semaphore,
    found: FetchedImages,
) -> None:
    """Fetch one image into ``found`` (or note why not) within its own total deadline."""
    async with slots:
        try:
            found.images[url] = await asyncio.wait_for(
                _fetch_one(client, url, policy), policy.deadline_s
            )
        except TimeoutError:
            found.refused[url] = Refusal(
                "timed_out", f"not complete within {policy.deadline_s:g} s"
            )
        except ImageRefused as exc:
            found.refused[url] = exc.refusal()
        except httpx.TimeoutException as exc:
            found.refused[url] = Refusal("timed_out", f"network timeout ({type(exc).__name__})")
        except (httpx.HTTPError, httpx.InvalidURL, OSError, ValueError) as exc:
            found.refused[url] = Refusal("unreachable", f"network error ({type(exc).__name__})")


async def _watch_cancel(cancel: threading.Event) -> None:
    """Return once ``cancel`` is set (polled: a threading.Event cannot wake an event loop)."""
    while not cancel.is_set():
        await asyncio.sleep(CANCEL_POLL_S)


async def _fetch_batch(
    urls: list[str], cancel: threading.Event, policy: ImagePolicy
) -> FetchedImages:
    """Every image of ``urls``, a few at a time, until done, cancelled or out of time."""
    found = FetchedImages()
    timeout = httpx.Timeout(policy.deadline_s, connect=policy.connect_timeout_s)
    # No proxies from the environment: a proxy would connect to addresses never checked here.
    # No kept-alive connections: connections are keyed by address, so a second host on the
    # same address would reuse a TLS session whose certificate named the first.
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(
        timeout=timeout, limits=limits, follow_redirects=False, trust_env=False
    ) as client:
        slots = asyncio.Semaphore(max(1, policy.parallel))
        fetches: asyncio.Future[Any] = asyncio.gather(
            *(_fetch_within_deadline(client, url, policy, slots, found) for url in urls)
        )
        watcher: asyncio.Future[Any] = asyncio.ensure_future(_watch_cancel(cancel))
        await asyncio.wait(
            {fetches, watcher}, timeout=policy.total_deadline_s, return_when=asyncio.FIRST_COMPLETED
        )
        found.cancelled = cancel.is_set()
        for task in (fetches, watcher):
            task.cancel()
        await asyncio.gather(fetches, watcher, return_exceptions=True)
    for url in urls:
        if url not in found.images and url not in found.refused:
            detail = "cancelled" if found.cancelled else "out of time"
            kind: RefusalKind = "cancelled" if found.cancelled else "timed_out"
            found.refused[url] = Refusal(kind, detail)
    return found


def wanted_images(urls: list[str], policy: ImagePolicy = DEFAULT_POLICY) -> list[str]:
    """The distinct http(s) image addresses of an item, at most ``max_images`` of them."""
    distinct = dict.fromkeys(url for url in urls if url.lower().startswith(("http://", "https://")))
    return list(distinct)[: policy.max_images]


def fetch_images(
    urls: list[str], cancel: threading.Event, policy: ImagePolicy = DEFAULT_POLICY
) -> FetchedImages:
    """Worker: fetch the images the person allowed for one item (see the module doc)."""
    wanted = wanted_images(urls, policy)
    if not wanted or cancel.is_set():
        return FetchedImages(cancelled=cancel.is_set())
    return asyncio.run(_fetch_batch(wanted, cancel, policy))
