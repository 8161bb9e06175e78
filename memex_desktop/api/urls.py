"""Web addresses as hostile input: the one parser every layer asks before it trusts a URL.

:func:`parse_url` and :func:`parse_web_url` never raise. They return a :class:`ParsedUrl` (the
parts, the host as people read it and as it is looked up, whether it is an international name
or mixes scripts, its registrable domain, any user name hidden before ``@``) or a
:class:`UrlProblem` whose reason is written for people.

The parser is stricter than a browser's (the WHATWG URL standard) on purpose: whatever it
accepts, browsers and the url crate under nh3 read with the same host, so an address shown to
someone is where the link goes. It refuses:

- direction controls (U+202E and its kin), line separators, control characters and lone
  surrogates anywhere, and invisible or space characters in the host;
- ports above 65535, numeric hosts that are not four decimal numbers up to 255
  (``1.2.3.4.5``, ``0x7f.1``), IPv6 hosts with broken brackets, empty hosts or empty labels,
  percent-encoded hosts, labels the IDNA rules reject;
- addresses longer than :data:`MAX_URL_CHARS` (what Chrome accepts).

The registrable domain is an approximation, not the Public Suffix List: the last two labels of
the host, or three when the last two are one of the common two-level public suffixes in
:data:`TWO_LEVEL_SUFFIXES` (``co.uk``, ``com.au``, ...). Private suffixes such as
``github.io`` are not known, so ``alice.github.io`` counts as ``github.io``.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlsplit, urlunsplit

import idna

from memex_desktop.api.errors import BadApiUrl

MAX_URL_CHARS = 2 * 1024 * 1024
MAX_HOST_CHARS = 253
MAX_LABEL_CHARS = 63
MAX_PORT = 65535
WEB_SCHEMES = frozenset({"http", "https"})

HostKind = Literal["domain", "ipv4", "ipv6", "none"]

# Common public suffixes of two labels, under which every name is registered separately.
TWO_LEVEL_SUFFIXES = frozenset(
    f"{second}.{top}"
    for top, seconds in {
        "uk": "ac co gov ltd me net nhs org plc police sch",
        "au": "asn com edu gov id net org",
        "nz": "ac co geek gen govt net org school",
        "jp": "ac ad co ed go gr lg ne or",
        "kr": "ac co go ne or re",
        "cn": "ac com edu gov net org",
        "tw": "com edu gov net org",
        "hk": "com edu gov net org",
        "in": "ac co edu gov net org",
        "br": "com edu gov net org",
        "za": "ac co gov net org",
        "mx": "com edu gob net org",
        "ar": "com edu gob net org",
        "tr": "com edu gov net org",
        "sg": "com edu gov net org",
        "my": "com edu gov net org",
        "id": "ac co go or web",
        "il": "ac co gov org",
        "th": "ac co go in or",
        "ua": "com edu gov net org",
        "ru": "com net org",
        "pl": "com net org",
        "es": "com edu gob nom org",
        "at": "ac co gv or",
        "eg": "com edu gov org",
        "pk": "com edu gov net org",
        "ng": "com edu gov org",
        "ke": "ac co go or",
        "ph": "com edu gov net org",
        "vn": "com edu gov net org",
    }.items()
    for second in seconds.split()
)

# Characters refused anywhere: C0 and C1 controls, lone surrogates, line and paragraph
# separators, and the Bidi_Control characters, which reorder how the text around them reads.
_HIDDEN_ANYWHERE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e") | frozenset(
    "\u2066\u2067\u2068\u2069"
)
_CONTROL_NAMES = {"\x00": "NULL", "\t": "TAB", "\n": "LINE FEED", "\r": "CARRIAGE RETURN"}
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_ASCII_LABEL = re.compile(r"[a-z0-9_\-]{1,63}")
# Most hosts: ASCII labels whose last one starts with a letter (so it is no IPv4 address).
_PLAIN_HOST = re.compile(r"(?:[a-z0-9_\-]{1,63}\.)*[a-z][a-z0-9_\-]{0,62}\.?")
# The url crate reads a host whose last label looks like a number as an IPv4 address.
_NUMERIC_LABEL = re.compile(r"[0-9]+|0[xX][0-9A-Fa-f]*")
_IPV4_PART = re.compile(r"0|[1-9][0-9]{0,2}")
_AUTHORITY_END = re.compile(r"[/?#]")
_WEB_AUTHORITY_END = re.compile(r"[/?#\\]")
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"
# Scripts that one name may mix (Chrome's "highly restrictive" profile, UTS #39).
_SCRIPT_SETS = (
    frozenset({"Latin", "Han", "Hiragana", "Katakana"}),
    frozenset({"Latin", "Han", "Bopomofo"}),
    frozenset({"Latin", "Han", "Hangul"}),
)
_SCRIPT_WORDS = {"CJK": "Han", "IDEOGRAPHIC": "Han", "KANGXI": "Han"}
# Unicode names whose script is two words long (OLD ITALIC, NEW TAI LUE, TAI THAM).
_TWO_WORD_SCRIPTS = frozenset({"OLD", "NEW", "TAI", "PAHAWH", "CAUCASIAN", "MASARAM"})


@dataclass(frozen=True)
class UrlProblem:
    """Why a text is not a usable URL (words for people) and the hidden characters in it."""

    reason: str
    characters: tuple[str, ...] = ()
    reverses_text: bool = False


@dataclass(frozen=True)
class ParsedUrl:
    """An absolute URL that parsed cleanly, with its host in both spellings.

    ``host`` is how the host reads (Unicode labels, lowercase: ``bücher.example``),
    ``ascii_host`` how it is looked up (punycode: ``xn--bcher-kva.example``); IPv6 hosts keep
    their brackets in both. ``registrable_domain`` is in ASCII (see the module docstring for
    how it is found). ``scripts`` lists the scripts of the host's letters in the order met.
    """

    scheme: str
    userinfo: str
    host: str
    ascii_host: str
    host_kind: HostKind
    port: int | None
    path: str
    query: str
    fragment: str
    is_idn: bool
    mixed_scripts: bool
    scripts: tuple[str, ...]
    registrable_domain: str

    @property
    def is_web(self) -> bool:
        """Whether this is an http(s) address with a host (one a browser can open)."""
        return self.scheme in WEB_SCHEMES and self.host_kind != "none"

    @property
    def hides_address(self) -> bool:
        """Whether text before ``@`` makes the address read as another site's."""
        return bool(self.userinfo)

    def ascii_url(self, *, userinfo: bool = False, fragment: bool = True) -> str:
        """The URL in ASCII, built from the parsed parts (punycode host, percent-encoding).

        A browser given this text goes where the parts say; the user name is left out unless
        asked for, since it only ever serves to make an address look like another.
        """
        authority = self.ascii_host
        if self.port is not None:
            authority = f"{authority}:{self.port}"
        if userinfo and self.userinfo:
            authority = f"{_encode(self.userinfo, '!$&()*+,;=-._~%:')}@{authority}"
        path = self.path
        if self.scheme in WEB_SCHEMES:
            path = path.replace("\\", "/") or "/"
        text = f"{self.scheme}://{authority}" if self.host_kind != "none" else f"{self.scheme}:"
        text += _encode(path, _PATH_SAFE)
        if self.query:
            text += "?" + _encode(self.query, _QUERY_SAFE)
        if fragment and self.fragment:
            text += "#" + _encode(self.fragment, _QUERY_SAFE)
        return text


def parse_url(text: object) -> ParsedUrl | UrlProblem:
    """Parse an absolute URL of any scheme; never raises.

    Web schemes (http, https) need ``//`` and a host; other schemes may have an empty host
    (``file:///x``) or none at all (``mailto:a@b``).
    """
    if not isinstance(text, str):
        return UrlProblem(f"An address must be text, not {type(text).__name__}.")
    url = text.strip(" \t\n\r\f")
    if not url:
        return UrlProblem("The address is empty.")
    if len(url) > MAX_URL_CHARS:
        return UrlProblem(
            f"The address is {len(url):,} characters long; browsers open at most {MAX_URL_CHARS:,}."
        )
    if hidden := _hidden_characters(url):
        return _hidden_problem(hidden)
    scheme_match = _SCHEME.match(url)
    if scheme_match is None:
        return UrlProblem("This is not a complete address: it does not start with a scheme.")
    scheme = scheme_match.group(1).lower()
    rest = url[scheme_match.end() :]
    web = scheme in WEB_SCHEMES
    if not rest.startswith("//"):
        if web:
            return UrlProblem("The link has no web site in it.")
        return _assemble(scheme, "", None, None, *_split_tail(rest))
    rest = rest[2:]
    end = _authority_end(rest, web)
    authority, tail = rest[:end], rest[end:]
    userinfo, at, hostport = authority.rpartition("@")
    if not at:
        userinfo = ""
    split = _split_host_port(hostport)
    if isinstance(split, UrlProblem):
        return split
    host_text, port = split
    if not host_text:
        if web or port is not None or userinfo:
            return UrlProblem("The link has no web site in it.")
        path, query, fragment = _split_tail(tail)
        # An empty authority (file:///x) stays in the path, so the URL is rebuilt as it was.
        return _assemble(scheme, "", None, None, "//" + path, query, fragment)
    host = _parse_host(host_text)
    if isinstance(host, UrlProblem):
        return host
    return _assemble(scheme, userinfo, host, port, *_split_tail(tail))


def parse_web_url(text: object) -> ParsedUrl | UrlProblem:
    """Parse an http(s) address with a host (one a browser may open); never raises."""
    parsed = parse_url(text)
    if isinstance(parsed, UrlProblem) or parsed.is_web:
        return parsed
    return UrlProblem(
        f"Only web addresses (http or https) are opened; this one is a “{parsed.scheme}:” address."
    )


def normalized_api_url(text: str) -> str:
    """The API root as requests and remembered sign-ins name it: an http(s) address with a
    host and no user name, query or fragment; its host in lower case, no slash at the end.

    Raises:
        BadApiUrl: ``text`` is not such an address.
    """
    parsed = parse_web_url(text)
    if isinstance(parsed, UrlProblem):
        raise BadApiUrl(text, parsed.reason)
    if parsed.userinfo:
        raise BadApiUrl(text, "It must not hold a user name or a password.")
    if parsed.query or parsed.fragment:
        raise BadApiUrl(text, "It must not have a query (?…) or a fragment (#…).")
    parts = urlsplit(text.strip())
    return urlunsplit((parts.scheme, parts.netloc.lower(), parts.path.rstrip("/"), "", ""))


# Hosts whose players start at ``?t=SECONDSs``; any other video is asked for its moment with a
# media fragment (``#t=SECONDS``, which HTML video players and Vimeo honour).
_YOUTUBE_DOMAINS = frozenset({"youtube.com", "youtu.be", "youtube-nocookie.com"})


def moment_url(url: object, seconds: float) -> str | None:
    """The web address of a video at ``seconds`` into it, or None when ``url`` is not a web
    address (what the reader's "Open at this moment" opens)."""
    parsed = parse_web_url(url)
    if isinstance(parsed, UrlProblem) or seconds < 0:
        return None
    at = int(seconds)
    if parsed.registrable_domain in _YOUTUBE_DOMAINS:
        kept = [
            part
            for part in parsed.query.split("&")
            if part and part.split("=", 1)[0] not in ("t", "start")
        ]
        query = "&".join([*kept, f"t={at}s"])
        return _with_parts(parsed, query, parsed.fragment)
    return _with_parts(parsed, parsed.query, f"t={at}")


def _with_parts(parsed: ParsedUrl, query: str, fragment: str) -> str:
    """``parsed`` as ASCII text with another query and fragment."""
    base = parsed.ascii_url(fragment=False).split("?", 1)[0]
    text = base + ("?" + _encode(query, _QUERY_SAFE) if query else "")
    return text + ("#" + _encode(fragment, _QUERY_SAFE) if fragment else "")


def registrable_domain(ascii_host: str) -> str:
    """The part of a host someone registered: ``news.bbc.co.uk`` gives ``bbc.co.uk``.

    An approximation (see the module docstring); IP addresses and one-label hosts are their
    own registrable domain.
    """
    labels = ascii_host.rstrip(".").split(".")
    if len(labels) <= 2 or ascii_host.startswith("["):
        return ascii_host.rstrip(".")
    if ".".join(labels[-2:]) in TWO_LEVEL_SUFFIXES:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def hidden_characters(text: str) -> str:
    """The characters of ``text`` that reorder, hide or break how it reads ('' when none).

    Direction controls, control characters, line separators, lone surrogates, and format
    characters (zero-width spaces, soft hyphens); a name showing any of them is not shown.
    """
    if text.isascii() and text.isprintable():
        return ""
    return "".join(
        char for char in text if _HIDDEN_ANYWHERE.match(char) or unicodedata.category(char) == "Cf"
    )


def character_names(characters: str) -> tuple[str, ...]:
    """``U+202E RIGHT-TO-LEFT OVERRIDE`` for each distinct character, in the order met."""
    return tuple(f"U+{ord(char):04X} {_character_name(char)}" for char in dict.fromkeys(characters))


def _character_name(char: str) -> str:
    """The Unicode name of a character; controls, which have none, by their usual name."""
    return unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "control character")


# --------------------------------------------------------------------------- the parts


@dataclass(frozen=True)
class _Host:
    """A validated host: how it reads, how it is looked up, what kind, which scripts."""

    shown: str
    ascii: str
    kind: HostKind
    is_idn: bool
    mixed_scripts: bool
    scripts: tuple[str, ...]


def _assemble(
    scheme: str,
    userinfo: str,
    host: _Host | None,
    port: int | None,
    path: str,
    query: str,
    fragment: str,
) -> ParsedUrl:
    """The parsed URL from its checked parts."""
    if host is None:
        host = _Host("", "", "none", False, False, ())
    domain = registrable_domain(host.ascii) if host.kind == "domain" else host.ascii
    return ParsedUrl(
        scheme=scheme,
        userinfo=userinfo,
        host=host.shown,
        ascii_host=host.ascii,
        host_kind=host.kind,
        port=port,
        path=path,
        query=query,
        fragment=fragment,
        is_idn=host.is_idn,
        mixed_scripts=host.mixed_scripts,
        scripts=host.scripts,
        registrable_domain=domain,
    )


def _hidden_characters(url: str) -> str:
    """The characters of ``url`` refused anywhere in an address ('' when none)."""
    if url.isascii() and url.isprintable():
        return ""
    return "".join(match.group(0) for match in _HIDDEN_ANYWHERE.finditer(url))


def _hidden_problem(hidden: str) -> UrlProblem:
    """The refusal of an address holding hidden characters, naming them."""
    names = character_names(hidden)
    listed = ", ".join(names[:4]) + (" and others" if len(names) > 4 else "")
    if any(char in _BIDI_CONTROLS for char in hidden):
        return UrlProblem(
            f"The address contains characters that reverse how text reads ({listed}), so what "
            "it shows may not be where it goes.",
            names,
            reverses_text=True,
        )
    return UrlProblem(f"The address contains hidden control characters ({listed}).", names)


def _authority_end(rest: str, web: bool) -> int:
    """Where the authority of ``rest`` ends: at ``/ ? #`` (and ``\\`` for web schemes)."""
    stop = (_WEB_AUTHORITY_END if web else _AUTHORITY_END).search(rest)
    return stop.start() if stop is not None else len(rest)


def _split_tail(tail: str) -> tuple[str, str, str]:
    """Path, query and fragment of what follows the authority."""
    tail, _, fragment = tail.partition("#")
    path, _, query = tail.partition("?")
    return path, query, fragment


def _split_host_port(hostport: str) -> tuple[str, int | None] | UrlProblem:
    """The host text and port of an authority without its user name."""
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            return UrlProblem("The site's IPv6 address is missing its closing bracket “]”.")
        host, after = hostport[: close + 1], hostport[close + 1 :]
        if after and not after.startswith(":"):
            return UrlProblem("Something follows the site's IPv6 address that is not a port.")
        port_text = after[1:] if after else None
    else:
        if "[" in hostport or "]" in hostport:
            return UrlProblem("The site's name has a bracket in it, which no web name has.")
        host, colon, port_text_found = hostport.partition(":")
        port_text = port_text_found if colon else None
    if not port_text:  # "host:" has no port, like browsers read it
        return host, None
    if not (port_text.isascii() and port_text.isdigit()):
        return UrlProblem(f"The port “{port_text[:20]}” is not a number.")
    if len(port_text) > 5 or int(port_text) > MAX_PORT:
        return UrlProblem(f"The port {port_text[:20]} is out of range (0 to {MAX_PORT}).")
    return host, int(port_text)


def _parse_host(text: str) -> _Host | UrlProblem:
    """Check a non-empty host and spell it both ways."""
    if text.startswith("["):
        return _ipv6_host(text[1:-1])
    odd = [char for char in text if char in " %" or _invisible(char)] if _odd_host(text) else []
    if odd:
        if "%" in odd:
            return UrlProblem("The site's name is percent-encoded, which hides what it says.")
        names = character_names("".join(odd))
        return UrlProblem(
            f"The site's name contains invisible or space characters ({', '.join(names[:4])}).",
            names,
        )
    if text.isascii():
        mapped = text.lower()
        if _PLAIN_HOST.fullmatch(mapped) and "xn--" not in mapped and len(mapped) <= MAX_HOST_CHARS:
            return _Host(mapped, mapped, "domain", False, False, ("Latin",))
    else:
        try:
            mapped = idna.uts46_remap(text, std3_rules=False, transitional=False)
        except (idna.IDNAError, ValueError):
            return UrlProblem("The site's name has characters that no web name may have.")
    name = mapped[:-1] if mapped.endswith(".") else mapped
    labels = name.split(".")
    if not all(labels):
        return UrlProblem("The site's name has an empty part (two dots in a row, or a dot first).")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        return _ipv4_host(labels)
    return _domain_host(labels, trailing_dot=name != mapped)


def _odd_host(text: str) -> bool:
    """Whether a host may hold a space, a percent sign or an invisible character (quickly)."""
    return not text.isascii() or " " in text or "%" in text


def _invisible(char: str) -> bool:
    """Whether a host character is a format character (zero-width, soft hyphen) or a space."""
    return not char.isascii() and unicodedata.category(char) in ("Cf", "Zs")


def _ipv6_host(inner: str) -> _Host | UrlProblem:
    """An IPv6 host in its compressed form."""
    if "%" in inner or not inner.isascii():
        return UrlProblem("The site's IPv6 address is not valid.")
    try:
        address = ipaddress.IPv6Address(inner)
    except ValueError:
        return UrlProblem("The site's IPv6 address is not valid.")
    shown = f"[{address.compressed}]"
    return _Host(shown, shown, "ipv6", False, False, ())


def _ipv4_host(labels: list[str]) -> _Host | UrlProblem:
    """An IPv4 host, only in its usual form of four decimal numbers up to 255."""
    if len(labels) != 4 or not all(
        _IPV4_PART.fullmatch(part) and int(part) <= 255 for part in labels
    ):
        return UrlProblem(
            f"The site “{'.'.join(labels)[:60]}” is a number but not a valid IPv4 address."
        )
    shown = ".".join(labels)
    return _Host(shown, shown, "ipv4", False, False, ())


def _domain_host(labels: list[str], *, trailing_dot: bool) -> _Host | UrlProblem:
    """A domain name, each label checked and spelled in Unicode and in punycode."""
    shown_labels: list[str] = []
    ascii_labels: list[str] = []
    for label in labels:
        spelled = _label_spellings(label)
        if isinstance(spelled, UrlProblem):
            return spelled
        shown_labels.append(spelled[0])
        ascii_labels.append(spelled[1])
    ascii_name = ".".join(ascii_labels)
    if len(ascii_name) > MAX_HOST_CHARS:
        return UrlProblem(f"The site's name is longer than {MAX_HOST_CHARS} characters.")
    dot = "." if trailing_dot else ""
    label_scripts = [_scripts(label) for label in shown_labels]
    scripts = tuple(dict.fromkeys(script for found in label_scripts for script in found))
    return _Host(
        shown=".".join(shown_labels) + dot,
        ascii=ascii_name + dot,
        kind="domain",
        is_idn=any(label.startswith("xn--") for label in ascii_labels),
        mixed_scripts=any(_mixes_scripts(found) for found in label_scripts),
        scripts=scripts,
    )


def _label_spellings(label: str) -> tuple[str, str] | UrlProblem:
    """(Unicode, ASCII) spellings of one host label, or why it is refused."""
    try:
        if label.isascii():
            if not _ASCII_LABEL.fullmatch(label):
                return UrlProblem(
                    f"The site's name has characters that no web name may have ({label[:40]})."
                )
            if not label.startswith("xn--"):
                return label, label
            shown = idna.decode(label)
            if idna.encode(shown).decode("ascii") != label:
                raise idna.IDNAError(label)
            return shown, label
        ascii_label = idna.encode(label).decode("ascii")
    except (idna.IDNAError, ValueError):
        return UrlProblem(f"The site's name is not a valid international name ({label[:40]}).")
    if len(ascii_label) > MAX_LABEL_CHARS:
        return UrlProblem(f"A part of the site's name is longer than {MAX_LABEL_CHARS} letters.")
    return label, ascii_label


def _scripts(label: str) -> tuple[str, ...]:
    """The scripts of a label's letters and digits, in the order met."""
    if label.isascii():
        return ("Latin",) if any(char.isalpha() for char in label) else ()
    return tuple(dict.fromkeys(script for char in label if (script := _script_of(char))))


def _script_of(char: str) -> str:
    """The script of a letter or digit ('' for characters every script shares)."""
    if char.isascii():
        return "Latin" if char.isalpha() else ""
    category = unicodedata.category(char)
    if not (category.startswith("L") or category == "Nd"):
        return ""
    words = unicodedata.name(char, "").replace("-", " ").split()
    if not words or words[0] == "MODIFIER":
        return ""
    if words[0] in _TWO_WORD_SCRIPTS and len(words) > 1:
        return f"{words[0]} {words[1]}".title()
    return _SCRIPT_WORDS.get(words[0], words[0].title())


def _mixes_scripts(scripts: tuple[str, ...]) -> bool:
    """Whether one label's scripts are a mixture no single writing system uses."""
    if len(scripts) <= 1:
        return False
    found = frozenset(scripts)
    return not any(found <= allowed for allowed in _SCRIPT_SETS)


def _encode(text: str, safe: str) -> str:
    """Percent-encode what a URL part may not hold; valid ``%XX`` escapes are kept."""
    if "%" in text:
        text = _STRAY_PERCENT.sub("%25", text)
    return quote(text, safe=safe)
