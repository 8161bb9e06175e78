"""The reader's link policy (pure): where a clicked link may lead.

Saved content is hostile input, so links are allow-listed: ``memex://entity/ID`` (optionally
``?t=SECONDS`` for a moment of a transcript, or ``#anchor``) navigates inside the app, ``#anchor``
scrolls the current document, ``http``/``https`` may open in the browser after the person has
seen the full address, and everything else (``file:``, ``javascript:``, ``data:``, ``smb:``,
custom schemes) is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

LinkKind = Literal["entity", "anchor", "external", "refused"]

_ID_RE = re.compile(r"^[A-Za-z0-9_.:\-]{1,200}$")


@dataclass(frozen=True)
class LinkTarget:
    """What a click on ``url`` does: its kind, the entity or anchor, and why it was refused."""

    kind: LinkKind
    url: str
    entity_id: str | None = None
    anchor: str | None = None
    reason: str = ""


def transcript_anchor(seconds: float) -> str:
    """The anchor name the renderer gives a transcript line starting at ``seconds``."""
    return f"t-{int(seconds)}"


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
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "memex":
        if parts.netloc.lower() == "entity":
            return _entity_target(text, parts.path, parts.query, parts.fragment)
        # Some writers put the host in the path: memex:entity/ID.
        if parts.path.startswith("entity/"):
            return _entity_target(text, parts.path[len("entity/") :], parts.query, parts.fragment)
        return LinkTarget("refused", text, reason="This Memex link does not name an item.")
    if scheme in ("http", "https"):
        if not parts.hostname:
            return LinkTarget("refused", text, reason="The link has no web site in it.")
        return LinkTarget("external", text)
    if not scheme and parts.fragment and not parts.path and not parts.netloc:
        return LinkTarget("anchor", text, anchor=parts.fragment)
    return _refuse(text, scheme)
