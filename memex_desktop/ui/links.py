"""The reader's link policy (pure): where a clicked link may lead, and what is said first.

Saved content is hostile input, so links are allow-listed: ``memex://entity/ID`` (optionally
``?t=SECONDS`` for a moment of a transcript, or ``#anchor``) navigates inside the app, ``#anchor``
scrolls the current document, ``http``/``https`` may open in the browser after the person has
seen where the link goes, and everything else (``file:``, ``javascript:``, ``data:``, ``smb:``,
custom schemes, and any address :func:`~memex_desktop.api.urls.parse_url` refuses, such as one
with direction-reversing characters) is refused. A moment of the item already shown (a
transcript's ``[mm:ss]``) marks its transcript line and offers the video at that moment, a web
address that goes through the same dialog (:func:`moment_hint` says so before the click).

:func:`link_confirmation` is what the "open in your browser?" dialog shows: the registrable
domain first, in its ASCII (``xn--``) spelling, since an international name can be written to
look like another; a warning when text before ``@`` poses as the site; the address elided in
the middle when it is long, and exactly the address that will be opened.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qs, unquote

from memex_desktop.api.urls import WEB_SCHEMES, ParsedUrl, UrlProblem, moment_url, parse_url

LinkKind = Literal["entity", "anchor", "external", "refused"]

_ID_RE = re.compile(r"^[A-Za-z0-9_.:\-]{1,200}$")
# The anchor of a moment of a transcript (``transcript_anchor``).
_MOMENT_ANCHOR = re.compile(r"t-(\d+)")
# About one line of the dialog; the whole address is shown apart, selectable.
MAX_SHOWN_URL_CHARS = 96
MAX_SHOWN_USERINFO_CHARS = 60


@dataclass(frozen=True)
class LinkTarget:
    """What a click on ``url`` does: its kind, the entity or anchor, and why it was refused."""

    kind: LinkKind
    url: str
    entity_id: str | None = None
    anchor: str | None = None
    reason: str = ""
    address: ParsedUrl | None = None


@dataclass(frozen=True)
class LinkConfirmation:
    """What the "open in your browser?" dialog says about one web link.

    ``site`` (the registrable domain, in ASCII) comes first and largest; ``host`` is the whole
    host the browser contacts, with its port; ``open_url`` is exactly what the browser is
    given, ``shown_url`` the same elided in the middle when long.
    """

    site: str
    host: str
    warnings: tuple[str, ...]
    shown_url: str
    open_url: str

    @property
    def elided(self) -> bool:
        """Whether the address is too long to show whole on one line."""
        return self.shown_url != self.open_url


def transcript_anchor(seconds: float) -> str:
    """The anchor name the renderer gives a transcript line starting at ``seconds``."""
    return f"t-{int(seconds)}"


def anchor_seconds(anchor: str | None) -> int | None:
    """The moment a ``t-SECONDS`` anchor stands for (None: not a moment)."""
    found = _MOMENT_ANCHOR.fullmatch(anchor or "")
    return int(found.group(1)) if found else None


def entity_link(entity_id: str, *, seconds: float | None = None) -> str:
    """The ``memex://`` link of an entity (and of a moment in its transcript)."""
    link = f"memex://entity/{entity_id}"
    return link if seconds is None else f"{link}?t={int(seconds)}"


def _refuse(url: str, scheme: str) -> LinkTarget:
    """A refusal with the words shown to the person."""
    shown = f"{scheme}:" if scheme else "this kind of"
    return LinkTarget(
        "refused", url, reason=f"{shown} links are not opened, for your safety ({url[:120]})."
    )


def _entity_target(url: str, parts_path: str, query: str, fragment: str) -> LinkTarget:
    """The target of a memex://entity/ID link, or a refusal when the id is malformed."""
    entity_id = unquote(parts_path.strip("/"))
    if not _ID_RE.match(entity_id):
        return LinkTarget("refused", url, reason="This Memex link does not name an item.")
    anchor = fragment or None
    seconds = parse_qs(query).get("t")
    if seconds:
        try:
            anchor = transcript_anchor(float(seconds[0].rstrip("s")))
        except ValueError:
            anchor = None
    return LinkTarget("entity", url, entity_id=entity_id, anchor=anchor)


def classify_link(url: str) -> LinkTarget:
    """Decide what a click on ``url`` may do."""
    text = url.strip()
    if text.startswith("#"):
        return LinkTarget("anchor", text, anchor=unquote(text[1:]) or None)
    parsed = parse_url(text)
    if isinstance(parsed, UrlProblem):
        return LinkTarget("refused", text, reason=f"This link is not opened. {parsed.reason}")
    if parsed.scheme == "memex":
        return _memex_target(text, parsed)
    if parsed.scheme in WEB_SCHEMES:
        return LinkTarget("external", text, address=parsed)
    return _refuse(text, parsed.scheme)


def _memex_target(text: str, parsed: ParsedUrl) -> LinkTarget:
    """The target of a ``memex:`` link: an item (and a place in it), or a refusal."""
    plain = not parsed.userinfo and parsed.port is None
    if plain and parsed.host == "entity":
        return _entity_target(text, parsed.path, parsed.query, parsed.fragment)
    # Some writers put the host in the path: memex:entity/ID.
    if parsed.host_kind == "none" and parsed.path.startswith("entity/"):
        path = parsed.path[len("entity/") :]
        return _entity_target(text, path, parsed.query, parsed.fragment)
    return LinkTarget("refused", text, reason="This Memex link does not name an item.")


def link_confirmation(address: ParsedUrl) -> LinkConfirmation:
    """What to show before opening a web address in the browser."""
    open_url = address.ascii_url()
    host = address.ascii_host if address.port is None else f"{address.ascii_host}:{address.port}"
    return LinkConfirmation(
        site=address.registrable_domain,
        host=host,
        warnings=_warnings(address),
        shown_url=elide_middle(open_url, MAX_SHOWN_URL_CHARS),
        open_url=open_url,
    )


# A title in a link's hint is cut after this many characters.
MAX_HINT_TITLE_CHARS = 80


def link_hint(
    url: str,
    titles: Mapping[str, str],
    current_id: str | None = None,
    *,
    current_url: str | None = None,
    has_line: Callable[[int], bool] | None = None,
) -> str:
    """Where a link of the reader goes, said while the person points at it (before a click):
    a web link's real address (as the browser gets it) and what may be wrong with it, the
    title of the item a ``memex://`` link opens (``titles`` by id), or why it is refused.

    A moment of the item shown (``current_id``) marks its transcript line, when it has one
    there (``has_line``), and offers the video at that moment when the item has a web
    address (``current_url``): see :func:`moment_hint`.
    """
    target = classify_link(url)
    if target.kind == "external" and target.address is not None:
        confirmation = link_confirmation(target.address)
        lines = [f"Opens {confirmation.shown_url} in your browser, after asking"]
        return "\n".join([*lines, *confirmation.warnings])
    if target.kind == "entity" and target.entity_id is not None:
        # The renderer's own words for moments and long titles (imported when first needed).
        from memex_desktop.render.document import shorten
        from memex_desktop.render.entities import format_offset

        seconds = anchor_seconds(target.anchor)
        clock = format_offset(seconds) if seconds is not None else ""
        at = f" at {clock}" if clock else ""
        if target.entity_id == current_id and seconds is not None:
            line = has_line(seconds) if has_line is not None else True
            video = moment_url(current_url, seconds) if current_url else None
            return moment_hint(clock, has_line=line, video=video)
        if target.entity_id == current_id:
            return "Is the item shown here already"
        title = titles.get(target.entity_id, "").strip()
        if not title:
            return f"Opens an item that is not in the local library yet{at} in the reader"
        return f"Opens “{shorten(title, MAX_HINT_TITLE_CHARS)}”{at} in the reader"
    if target.kind == "anchor":
        return "Goes to another place in this item"
    return target.reason


def moment_hint(clock: str, *, has_line: bool, video: str | None) -> str:
    """What a click on a moment (``clock``) of the item shown does, said before it: its
    transcript line is scrolled to and marked (when there is one), and the video is offered
    at that moment, in the browser after the link dialog (when ``video`` is a web address)."""
    address = parse_url(video) if video else None
    if not isinstance(address, ParsedUrl) or address.scheme not in WEB_SCHEMES:
        if has_line:
            return f"Goes to the transcript line at {clock} and marks it"
        return f"This item has no transcript line at {clock}"
    confirmation = link_confirmation(address)
    offer = f"offers to open the video at {clock} in your browser, after asking"
    first = f"Marks the transcript line at {clock}, then {offer}" if has_line else offer
    lines = [first[:1].upper() + first[1:], confirmation.shown_url]
    return "\n".join([*lines, *confirmation.warnings])


def _warnings(address: ParsedUrl) -> tuple[str, ...]:
    """Why the address may not be what it seems, most important first."""
    site = address.registrable_domain
    found: list[str] = []
    if address.hides_address:
        shown = elide_middle(address.userinfo, MAX_SHOWN_USERINFO_CHARS)
        found.append(
            f"This link hides its real address: {site}. The text before “@” ({shown}) only "
            "poses as the site, and is left out."
        )
    if address.mixed_scripts:
        found.append(
            f"The name {site} mixes {_and(address.scripts)} letters, a way to look like "
            "another, familiar name. It is shown as the browser looks it up."
        )
    elif address.is_idn:
        found.append(
            f"{site} is an international name, shown as the browser looks it up: its letters "
            "may look like those of another name."
        )
    if address.host_kind in ("ipv4", "ipv6"):
        found.append("The address is a bare number (an IP address), not a site's name.")
    return tuple(found)


def _and(words: tuple[str, ...]) -> str:
    """``Cyrillic and Latin``; ``Greek, Cyrillic and Latin``."""
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)


def elide_middle(text: str, limit: int) -> str:
    """``text`` shortened to ``limit`` characters by an ellipsis in its middle."""
    if len(text) <= limit:
        return text
    kept = limit - 1
    head = kept * 2 // 3
    return f"{text[:head]}…{text[len(text) - (kept - head) :]}"
