"""Turning what a person drops on the window into URLs to save (pure functions, no Qt).

A drag from a browser carries the link in several formats at once: ``text/uri-list`` (RFC 2483,
one URL per line, ``#`` comments), ``text/x-moz-url`` (Firefox: UTF-16 "url\\ntitle" pairs)
and ``text/plain``. A drag from a file manager carries ``file:`` URLs, which are saved only
when they point at an internet shortcut (``.url`` on Windows, ``.webloc`` on macOS): the
shortcut's target is read, never the file itself. Only ``http``/``https`` links are saved;
anything else (``javascript:``, ``file:``, ``data:``, ``smb:``, ...) is refused with a reason.
"""

from __future__ import annotations

import configparser
import plistlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.parsers.expat import ExpatError

from memex_desktop.api.text_links import find_links
from memex_desktop.api.urls import WEB_SCHEMES, UrlProblem, parse_url
from memex_desktop.store.urls import CredentialsInUrl, normalize_url, savable_url, shown_url

# Every save is a request to Memex and uses the person's plan: a drop of more links than this is
# almost always a whole file dropped by accident. The links past it are refused by name.
MAX_URLS_PER_DROP = 5_000
MAX_SHORTCUT_BYTES = 64 * 1024
MAX_URL_LENGTH = 8 * 1024
# Why a link with a user name or password in it is not saved (it would be sent to Memex).
_CREDENTIALS_REFUSED = (
    "The link holds a user name or password (before @), which would be sent to Memex with "
    "it; save the link without them."
)
SHORTCUT_SUFFIXES = (".url", ".webloc")

URI_LIST = "text/uri-list"
MOZ_URL = "text/x-moz-url"
PLAIN_TEXT = "text/plain"


@dataclass(frozen=True)
class DropVerdict:
    """One dropped link and whether it may be saved (``reason`` says why not)."""

    url: str
    accepted: bool
    reason: str = ""


def _decode(data: bytes, mime: str) -> str:
    """Text of one mime payload; x-moz-url is UTF-16 (with or without a BOM)."""
    if mime == MOZ_URL:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return data.decode("utf-16", errors="replace")
        if len(data) >= 2 and data[1:2] == b"\x00":
            return data.decode("utf-16-le", errors="replace")
    return data.decode("utf-8", errors="replace")


def parse_uri_list(text: str) -> list[str]:
    """The URLs of a text/uri-list payload (comments and blank lines skipped)."""
    return [
        line.strip()
        for line in text.replace("\r\n", "\n").split("\n")
        if line.strip() and not line.strip().startswith("#")
    ]


def parse_moz_url(text: str) -> list[str]:
    """The URLs of a text/x-moz-url payload: alternating url and title lines."""
    lines = [line.strip() for line in text.replace("\x00", "").replace("\r\n", "\n").split("\n")]
    return [line for line in lines[0::2] if line]


def parse_plain_text(text: str) -> list[str]:
    """The links in dropped or pasted text, found as chat apps find them."""
    return find_links(text)


def parse_shortcut_file(name: str, content: bytes) -> str | None:
    """The target URL of a ``.url`` or ``.webloc`` internet shortcut, or None."""
    suffix = Path(name).suffix.lower()
    if len(content) > MAX_SHORTCUT_BYTES:
        return None
    if suffix == ".url":
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(content.decode("utf-8-sig", errors="replace"))
        except configparser.Error:
            return None
        for section in parser.sections():
            if section.lower() == "internetshortcut":
                value = parser[section].get("URL")
                return value.strip() if value else None
        return None
    if suffix == ".webloc":
        try:
            data = plistlib.loads(content)
        except (plistlib.InvalidFileException, ExpatError, ValueError, TypeError, OverflowError):
            return None
        value = data.get("URL") if isinstance(data, dict) else None
        return value.strip() if isinstance(value, str) else None
    return None


def local_path_of(url: str) -> Path | None:
    """The local path of a ``file:`` URL (``file:///x`` or ``file://localhost/x``), or None."""
    try:
        parts = urlsplit(url)
    except ValueError:  # unbalanced IPv6 brackets
        return None
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parts.path)) if parts.path else None


def _resolve_shortcut(url: str, read_file: Callable[[Path], bytes] | None) -> str:
    """Replace a file: URL of an internet shortcut with its target; other URLs unchanged."""
    path = local_path_of(url)
    if path is None or read_file is None or path.suffix.lower() not in SHORTCUT_SUFFIXES:
        return url
    try:
        content = read_file(path)
    except OSError:
        return url
    return parse_shortcut_file(path.name, content) or url


def urls_from_mime(
    payloads: Mapping[str, bytes], *, read_file: Callable[[Path], bytes] | None = None
) -> list[str]:
    """Every link carried by a drop, in order, without duplicates.

    Args:
        payloads: mime type -> raw bytes (only the three link formats are looked at; the
            richest present wins: uri-list, then x-moz-url, then plain text).
        read_file: reads a dropped internet-shortcut file (bounded by the caller); None
            means shortcut files are not opened.
    """
    found: list[str] = []
    if payloads.get(URI_LIST):
        found = parse_uri_list(_decode(payloads[URI_LIST], URI_LIST))
    if not found and payloads.get(MOZ_URL):
        found = parse_moz_url(_decode(payloads[MOZ_URL], MOZ_URL))
    if not found and payloads.get(PLAIN_TEXT):
        found = parse_plain_text(_decode(payloads[PLAIN_TEXT], PLAIN_TEXT))
    unique: dict[str, str] = {}
    for url in found:
        resolved = _resolve_shortcut(url, read_file)
        unique.setdefault(_save_identity(resolved), resolved)
    return list(unique.values())


def _save_identity(url: str) -> str:
    """What makes two links one save (``www.`` and tracking variants are one page)."""
    try:
        return normalize_url(url.strip())
    except ValueError:
        return url


def judge_url(url: str) -> DropVerdict:
    """Whether a dropped link may be saved: only an http(s) address the outbox accepts."""
    if len(url) > MAX_URL_LENGTH:
        return DropVerdict(
            shown_url(url)[:80] + "…", False, "The link is too long to be a web address."
        )
    text = url.strip()
    try:
        savable_url(text)
    except CredentialsInUrl as exc:
        # The toast and the log show the address with *** where the password was.
        return DropVerdict(exc.shown, False, _CREDENTIALS_REFUSED)
    except ValueError:
        pass  # said more precisely below
    parsed = parse_url(text)
    if isinstance(parsed, UrlProblem):
        return DropVerdict(url, False, parsed.reason)
    if parsed.scheme not in WEB_SCHEMES:
        return DropVerdict(
            url,
            False,
            f"Only web links (http and https) can be saved; {parsed.scheme}: links are refused.",
        )
    try:
        normalize_url(text)
    except ValueError as exc:
        return DropVerdict(url, False, f"The link cannot be saved: {exc}.")
    return DropVerdict(text, True)


def too_many_reason() -> str:
    """Why a link past the most one drop saves was not queued, and what to do."""
    return f"One drop saves at most {MAX_URLS_PER_DROP:,} links; drop or paste the rest again."


def judge_drop(
    payloads: Mapping[str, bytes], *, read_file: Callable[[Path], bytes] | None = None
) -> list[DropVerdict]:
    """Every link of a drop with its verdict, in the order they were dropped.

    Links past the first :data:`MAX_URLS_PER_DROP` accepted ones are refused, each by name.
    """
    verdicts: list[DropVerdict] = []
    accepted = 0
    for url in urls_from_mime(payloads, read_file=read_file):
        verdict = judge_url(url)
        if verdict.accepted:
            accepted += 1
            if accepted > MAX_URLS_PER_DROP:
                verdict = DropVerdict(verdict.url, False, too_many_reason())
        verdicts.append(verdict)
    return verdicts


def read_shortcut_bounded(path: Path) -> bytes:
    """Read at most MAX_SHORTCUT_BYTES + 1 bytes of a dropped shortcut file."""
    with path.open("rb") as handle:
        return handle.read(MAX_SHORTCUT_BYTES + 1)
