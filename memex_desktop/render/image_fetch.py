"""Fetching the remote images of one item: every hop resolved, checked and pinned.

What :func:`memex_desktop.render.remote_images.fetch_images` runs once it knows which
addresses are wanted; the rules (the policy, which addresses are public, what a refusal
is) live there, this module does the network part with httpx and asyncio.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import threading
from typing import Any

import httpx

from memex_desktop.render.image_check import CheckedImage, NotAnImage, TooManyPixels, check_image
from memex_desktop.render.remote_images import (
    CANCEL_POLL_S,
    FetchedImages,
    ImagePolicy,
    ImageRefused,
    IPAddress,
    Refusal,
    RefusalKind,
    is_public_address,
    origin_of,
)

log = logging.getLogger(__name__)

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def fetch_batch(wanted: list[str], cancel: threading.Event, policy: ImagePolicy) -> FetchedImages:
    """Fetch ``wanted`` (already filtered and capped) under ``policy`` until done or cancelled."""
    return asyncio.run(_fetch_batch(wanted, cancel, policy))


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


def _parse_address(text: str) -> IPAddress | None:
    """An address from a resolver answer (a scope suffix like ``%eth0`` dropped)."""
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _checked_body(body: bytes, policy: ImagePolicy) -> CheckedImage:
    """``body`` as a picture by its own bytes, or the refusal that says why not."""
    try:
        return check_image(body, policy.max_pixels)
    except NotAnImage as exc:
        raise ImageRefused("not_image", str(exc)) from exc
    except TooManyPixels as exc:
        raise ImageRefused("too_large", str(exc)) from exc
