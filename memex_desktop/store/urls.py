"""URL normalization: one spelling per saved page, so the same page is never queued twice."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from memex_desktop.api.urls import MAX_HOST_CHARS, UrlProblem, parse_url

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Parameters that say who shared a link or which campaign sent it, never which page it is
# (Facebook, Google Ads, Mailchimp), dropped beside every ``utm_*``.
TRACKING_PARAMETERS = frozenset({"fbclid", "gclid", "mc_cid", "mc_eid"})
_TRACKING_IN_QUERY = re.compile(
    rf"[?&](?:utm_|(?:{'|'.join(sorted(TRACKING_PARAMETERS))})(?:[=&]|$))", re.IGNORECASE
)
_PATH_SAFE = "/:@!$&'()*+,;=-._~"
# URLs in canonical form but for a leading ``www.`` and trailing slashes (what the server
# mostly returns): lowercase http(s) scheme and host without port, user or trailing dot, a
# path and query of characters the slow path leaves as they are, no fragment. normalize_url
# rewrites them without parsing: 4.3 instead of 32 µs an address (the addresses of the
# 20,000-item store benchmark's library, most beginning with www., best of five).
_QUERY_CHARS = r"[A-Za-z0-9/:@!$'()*,;\-._~]"
_CANONICAL = re.compile(
    r"https?://(?P<host>(?:[a-z0-9-]{1,63}\.)*[a-z0-9-]{1,63})"
    r"(?P<path>/[A-Za-z0-9/:@!$&'()*+,;=\-._~]*)?"
    rf"(?P<query>\?{_QUERY_CHARS}+={_QUERY_CHARS}*(?:&{_QUERY_CHARS}+={_QUERY_CHARS}*)*)?"
)


def normalize_url(url: str) -> str:
    """The canonical form of an http(s) URL used as the identity of a save.

    Lowercases scheme and host (IDN hosts become punycode), drops a leading ``www.``, default
    ports, the fragment, ``utm_*`` and the other :data:`TRACKING_PARAMETERS`, and a trailing
    slash, and percent-encodes the path the same way every time, so
    ``normalize_url(normalize_url(u)) == normalize_url(u)``.

    Raises:
        ValueError: when ``url`` is not an absolute http or https URL with a host that
            :func:`memex_desktop.api.urls.parse_url` accepts (the message says why).
    """
    if not isinstance(url, str):
        raise ValueError(f"a URL must be text, not {type(url).__name__}")
    if (simple := _simple_normal_form(url)) is not None:
        return simple
    return parse_and_normalize(url)


_SPACE_OR_CONTROL = re.compile("[\x00-\x20\x7f]")
# A user name (and password) before ``@`` in an address's authority, whatever follows: found
# in the text itself, so an address that does not parse is caught too.
_CREDENTIALS = re.compile(r"^(\s*[A-Za-z][A-Za-z0-9+.\-]*://)[^/?#]*@")


class CredentialsInUrl(ValueError):
    """An address with a user name or password in it, refused before it is queued: saved,
    it would be sent to Memex and shown in the terminal, the window and the log.

    ``shown`` is the address with ``***`` in their place, the only spelling any message uses.
    """

    def __init__(self, url: str) -> None:
        self.shown = shown_url(url)
        super().__init__(
            f"{self.shown}: it holds a user name or password (before @), which would be sent to "
            "Memex with it; save the address without them"
        )


def shown_url(url: str) -> str:
    """``url`` with any user name and password before ``@`` replaced by ``***``, for words a
    person or a log sees (an address without them is returned as it is)."""
    return _CREDENTIALS.sub(r"\1***@", url, count=1)


def savable_url(url: str) -> str:
    """The identity (:func:`normalize_url`) of an address a save may queue: every place that
    saves an address asks this first.

    Raises:
        CredentialsInUrl: the address holds a user name or password.
        ValueError: it is not an http(s) address (the message says why).
    """
    if isinstance(url, str) and _CREDENTIALS.match(url):
        raise CredentialsInUrl(url)
    return normalize_url(url)


def parse_and_normalize(url: str) -> str:
    """:func:`normalize_url` by parsing the URL, without the canonical-form shortcut."""
    text = url.strip()
    if not text:
        raise ValueError("the URL is empty")
    if _SPACE_OR_CONTROL.search(text):
        raise ValueError(f"the URL contains spaces or control characters: {text[:200]!r}")
    parsed = parse_url(text)
    if isinstance(parsed, UrlProblem):
        reason = parsed.reason[:1].lower() + parsed.reason[1:]
        raise ValueError(f"not a valid URL: {text[:200]!r} ({reason.rstrip('.')})")
    if parsed.scheme not in _DEFAULT_PORTS:
        raise ValueError(f"only http and https URLs can be saved, not {text[:200]!r}")
    host = _without_www(parsed.ascii_host.removesuffix("."))
    port = parsed.port
    netloc = host if port in (None, _DEFAULT_PORTS[parsed.scheme]) else f"{host}:{port}"
    path = quote(unquote(parsed.path.replace("\\", "/")), safe=_PATH_SAFE).rstrip("/")
    query = _normalize_query(parsed.query)
    return urlunsplit((parsed.scheme, netloc, path, query, ""))


def earlier_key_prefixes(normalized: str) -> list[str]:
    """Where keys an earlier :func:`normalize_url` gave this page begin (before any query).

    Earlier versions kept ``www.`` and the :data:`TRACKING_PARAMETERS`: a key stored then
    is this key's scheme (either one), host with or without ``www.`` and path, then nothing
    or a query. Whoever looks such keys up normalizes each candidate again to compare.
    """
    parts = urlsplit(normalized)
    hosts = (parts.netloc, f"www.{parts.netloc}")
    return [f"{scheme}://{host}{parts.path}" for scheme in _DEFAULT_PORTS for host in hosts]


def host_and_path(url: str) -> tuple[str, str]:
    """The host (lowercase) and path of an address as ``urlsplit`` reads them; ``("", "")``
    when it cannot be read. Canonical addresses are read by :data:`_CANONICAL`: indexing
    reads every item's address, in 2-3 µs this way against 12-14 µs with ``urlsplit``
    (the addresses of the 20,000-item store benchmark's library, best of five)."""
    if found := _CANONICAL.fullmatch(url):
        return found["host"], found["path"] or ""
    try:
        parts = urlsplit(url)
        return parts.hostname or "", parts.path
    except ValueError:
        return "", ""


def _simple_normal_form(url: str) -> str | None:
    """The normal form of a URL that needs no parsing to normalize, else None: one matching
    :data:`_CANONICAL`, whose ``www.`` and trailing slashes are all there is to drop."""
    found = _CANONICAL.fullmatch(url)
    if found is None:
        return None
    host, path, query = found.group("host", "path", "query")
    # Numeric hosts must be valid IPv4 and xn-- labels valid punycode: the parser checks.
    if len(host) > MAX_HOST_CHARS or "xn--" in host or host.rsplit(".", 1)[-1].isdigit():
        return None
    if query and _TRACKING_IN_QUERY.search(query) is not None:
        return None
    scheme = url[: found.start("host")]
    return f"{scheme}{_without_www(host)}{(path or '').rstrip('/')}{query or ''}"


def _without_www(host: str) -> str:
    """``host`` without leading ``www.`` labels, unless only a top-level domain is left."""
    while host.startswith("www.") and "." in host[4:]:
        host = host[4:]
    return host


def _is_tracking(key: str) -> bool:
    """Whether a query parameter only tracks who shared or sent the link."""
    lowered = key.lower()
    return lowered.startswith("utm_") or lowered in TRACKING_PARAMETERS


def _normalize_query(query: str) -> str:
    """The query without tracking parameters, encoded the same way every time."""
    if not query:
        return ""
    pairs = [
        (key, value)
        for key, value in parse_qsl(query, keep_blank_values=True)
        if not _is_tracking(key)
    ]
    return urlencode(pairs, quote_via=quote, safe="/:@!$'()*,;-._~")
