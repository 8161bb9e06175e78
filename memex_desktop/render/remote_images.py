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

import ipaddress
import logging
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from memex_desktop.render.image_check import (
    MAX_IMAGE_PIXELS,
    CheckedImage,
)

if TYPE_CHECKING:
    import httpx

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
    import asyncio  # running in the fetch's event loop, so loaded by then (see fetch_images)

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


def origin_of(url: httpx.URL | str) -> str:
    """``scheme://host:port`` of an address, the port always written (for trusted_origins)."""
    import httpx  # see fetch_images

    parsed = httpx.URL(url) if isinstance(url, str) else url
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    host = parsed.raw_host.decode("ascii").lower()
    shown = f"[{host}]" if ":" in host else host
    return f"{parsed.scheme}://{shown}:{port}"


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
    # The fetching (httpx, asyncio) is imported here, when a person first asks for pictures:
    # the window imports this module at start-up for its policy, and the HTTP stack would
    # cost every start about 60 ms before its first frame.
    from memex_desktop.render import image_fetch

    return image_fetch.fetch_batch(wanted, cancel, policy)
