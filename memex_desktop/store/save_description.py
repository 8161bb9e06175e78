"""What a queued save is, in a few words: the outbox pane and ``outbox list`` say it alike.

A URL save is its address. A note, a reply or a highlight is kept in the outbox as the entity
it will become, which names the item it is on by id only; the item's title comes from the
cache (:func:`saved_items`), and a note still queued names the note a reply answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from memex_desktop.api.content import (
    display_title,
    first_line,
    selector_passage,
    selector_target,
    strings_in,
    text_of,
    type_label,
)
from memex_desktop.api.plain_text import own_words, plain_text
from memex_desktop.store.outbox import OutboxOp
from memex_desktop.store.rows import EntityRow

# How much of the item's title and of the save's own words a description shows: a line of
# `outbox list` or of the pane reads as one, and the pane's tooltip holds the same line.
TITLE_CHARS = 48
WORDS_CHARS = 64
NOTE = "annotation"
HIGHLIGHT = "selector"


@dataclass(frozen=True)
class SavedItem:
    """An item a save is on, as a description names it: its type and its title."""

    type: str
    title: str


class ItemRows(Protocol):
    """The cache as :func:`saved_items` reads it: display rows by id."""

    def get_many(self, ids: Iterable[str]) -> dict[str, EntityRow]:
        """Display rows of the cached ones of ``ids``."""
        ...


def _entity(op: OutboxOp) -> dict[str, Any] | None:
    """The entity an entity save will become (None for a URL save or a damaged row)."""
    payload = op.payload
    return payload if op.kind != "save_url" and isinstance(payload, dict) else None


def _target_id(data: dict[str, Any]) -> str | None:
    """The item a note (its first reference) or a highlight is on."""
    if data.get("type") == HIGHLIGHT:
        return selector_target(data)
    references = strings_in(data.get("reference_content_ids"))
    return references[0] if references else None


def target_ids(ops: Iterable[OutboxOp]) -> list[str]:
    """The ids of the items the saves are on, each once: the titles a listing needs."""
    found = (_target_id(data) for op in ops if (data := _entity(op)) is not None)
    return list(dict.fromkeys(target for target in found if target))


def queued_items(ops: Iterable[OutboxOp]) -> dict[str, SavedItem]:
    """The entities still in the outbox by their client ids: a reply to a note that is not
    cached yet still names it."""
    items: dict[str, SavedItem] = {}
    for op in ops:
        data = _entity(op)
        if data is None:
            continue
        item = SavedItem(text_of(data.get("type")), display_title(data))
        for name in (text_of(data.get("id")), op.external_id or "", op.entity_id or ""):
            if name:
                items[name] = item
    return items


def saved_items(reader: ItemRows, ops: list[OutboxOp]) -> dict[str, SavedItem]:
    """The items the saves are on, by id: read from the cache, else queued in the outbox.

    One bounded read: only the ids the saves name (an outbox holds a few hundred at most).
    """
    items = queued_items(ops)
    wanted = target_ids(ops)
    if wanted:
        for entity_id, row in reader.get_many(wanted).items():
            items[entity_id] = SavedItem(row.type, row.title)
    return items


def _quoted(title: str) -> str:
    """An item's title as a description names it: short, in quotes."""
    return f"“{first_line(title, TITLE_CHARS)}”"


def _words(text: str) -> str:
    """The first words of what a save says."""
    return first_line(text, WORDS_CHARS)


def describe_save(op: OutboxOp, items: Mapping[str, SavedItem] | None = None) -> str:
    """What a save is: its address, "Note on “Title”: first words", "Reply to “…”: …",
    "Highlight in “Title”: “quote”".

    ``items`` names the items the saves are on (:func:`saved_items`); without it, or for an
    item it does not hold, a note is still told by its own words.
    """
    data = _entity(op)
    if data is None:
        return op.url or op.external_id or op.kind
    kind = text_of(data.get("type"))
    target_id = _target_id(data)
    target = (items or {}).get(target_id) if target_id else None
    if kind == HIGHLIGHT:
        quote = selector_passage(data).quote
        said = f": “{_words(quote)}”" if quote.strip() else ""
        where = f" in {_quoted(target.title)}" if target else ""
        return f"Highlight{where}{said}"
    # A note is markdown, and one on a passage begins by quoting it: it is told by what it
    # says itself, in plain words.
    # Its first line, made plain before it is cut: a link's address takes none of the room.
    own = own_words(text_of(data.get("text")))
    line = next((line for line in own.splitlines() if line.strip()), "")
    words = _words(plain_text(line)) or _words(display_title(data))
    if kind == NOTE:
        if target is None:
            return f"Note: {words}"
        if target.type == NOTE:
            return f"Reply to {_quoted(target.title)}: {words}"
        return f"Note on {_quoted(target.title)}: {words}"
    return f"{type_label(kind) if kind else 'Item'}: {words}"
