"""URL normalization: one spelling per saved page, so the same page is never queued twice."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PATH_SAFE = "/:@!$&'()*+,;=-._~"
# URLs already in canonical form (what the server mostly returns): lowercase http(s) scheme
# and host without port, user or trailing dot, a path and query of characters the slow
# path leaves as they are, no fragment. normalize_url returns them unchanged at once.
_QUERY_CHARS = r"[A-Za-z0-9/:@!$'()*,;\-._~]"
_CANONICAL = re.compile(
    r"https?://(?:[a-z0-9-]{1,63}\.)*[a-z0-9-]{1,63}"
    r"(?:/[A-Za-z0-9/:@!$&'()*+,;=\-._~]*)?"
    rf"(?:\?{_QUERY_CHARS}+={_QUERY_CHARS}*(?:&{_QUERY_CHARS}+={_QUERY_CHARS}*)*)?"
)


def normalize_url(url: str) -> str:
    """The canonical form of an http(s) URL used as the identity of a save.

    Lowercases scheme and host (IDN hosts become punycode), drops default ports, the
    fragment, ``utm_*`` parameters and a trailing slash, and percent-encodes the path the
    same way every time, so ``normalize_url(normalize_url(u)) == normalize_url(u)``.

    Raises:
        ValueError: when ``url`` is not an absolute http or https URL with a host.
    """
    if not isinstance(url, str):
        raise ValueError(f"a URL must be text, not {type(url).__name__}")
    if _is_canonical(url):
        return url
    return parse_and_normalize(url)


def parse_and_normalize(url: str) -> str:
    """:func:`normalize_url` by parsing the URL, without the canonical-form shortcut."""
    text = url.strip()
    if not text:
        raise ValueError("the URL is empty")
    if any(ord(char) < 0x20 or char in " \x7f" for char in text):
        raise ValueError(f"the URL contains spaces or control characters: {text[:200]!r}")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not a valid URL: {text[:200]!r} ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise ValueError(f"only http and https URLs can be saved, not {text[:200]!r}")
    host = _normalize_host(parts.hostname or "", text)
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = quote(unquote(parts.path), safe=_PATH_SAFE).rstrip("/")
    query = _normalize_query(parts.query)
    return urlunsplit((scheme, netloc, path, query, ""))


def _is_canonical(url: str) -> bool:
    """Whether ``url`` is already its own normal form (checked without parsing it)."""
    if _CANONICAL.fullmatch(url) is None or url.endswith("/"):
        return False
    query = url.find("?")
    if query >= 0 and ("?utm_" in url.lower() or "&utm_" in url.lower()):
        return False
    path_end = query if query >= 0 else len(url)
    return not url[:path_end].endswith("/")


def _normalize_host(host: str, original: str) -> str:
    """The lowercase ASCII host; IDN labels become punycode."""
    host = host.rstrip(".").lower()
    if not host:
        raise ValueError(f"the URL has no host: {original[:200]!r}")
    if ":" in host:
        return f"[{host}]"
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise ValueError(f"the URL has an invalid host name: {original[:200]!r}") from exc
    if any(not (char.isalnum() or char in "-._:[]") for char in ascii_host):
        raise ValueError(f"the URL has an invalid host name: {original[:200]!r}")
    return ascii_host.lower()


def _normalize_query(query: str) -> str:
    """The query without tracking parameters, encoded the same way every time."""
    if not query:
        return ""
    pairs = [
        (key, value)
        for key, value in parse_qsl(query, keep_blank_values=True)
        if not key.lower().startswith("utm_")
    ]
    return urlencode(pairs, quote_via=quote, safe="/:@!$'()*,;-._~")
