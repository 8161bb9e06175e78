"""The highlights of an item: cached ``selector`` entities and those still in the outbox.

A highlight made here shows at once, from its outbox row, as pending; once the server's copy is
cached (from the save's answer or a pull) the cached one is shown instead, never both: the
pending row is matched to the cached entity by its client ``external_id``, its client
``data.id`` or the server id its save was answered with. Highlights made elsewhere (other
Memex clients) are read the same way. Every read is bounded.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from memex_desktop.api.content import (
    SelectorPassage,
    selector_passage,
    selector_target,
    strings_in,
    text_of,
)
from memex_desktop.store.errors import translate
from memex_desktop.store.outbox import OutboxOp
from memex_desktop.store.packing import codec_of
from memex_desktop.store.reader import CacheReader
from memex_desktop.store.sql import IN_LIST, in_ids

MAX_HIGHLIGHTS = 2000
MAX_LINKED_NOTES = 5000
PENDING_PREFIX = "pending:"
# Outbox states of a save the server has not shown in a pull yet.
PENDING_STATES = ("queued", "sending", "accepted", "needs_attention")


class PendingSaves(Protocol):
    """The outbox as highlights read it."""

    def list(self, states: Iterable[str] | None = None) -> list[OutboxOp]:
        """Operations in ``states``, oldest first."""
        ...


@dataclass(frozen=True)
class Highlight:
    """One highlight of an item: what it marks, whether it is on the server yet, its notes.

    ``id`` is the cached entity's id, or ``pending:<external_id>`` for one still in the
    outbox (the name a note on it uses until the highlight has a server id).
    """

    id: str
    target_id: str
    passage: SelectorPassage
    created_at: int = 0
    pending: bool = False
    state: str = ""
    external_id: str | None = None
    client_id: str | None = None
    server_id: str | None = None
    note_ids: tuple[str, ...] = ()

    @property
    def quote(self) -> str:
        """The quoted text ("" for a moment of a video without one)."""
        return self.passage.quote

    def names(self) -> set[str]:
        """Every id a note or a painted mark may know this highlight by."""
        found = {self.id}
        for other in (self.client_id, self.server_id):
            if other:
                found.add(other)
        if self.external_id:
            found.add(f"{PENDING_PREFIX}{self.external_id}")
        return found

    @classmethod
    def from_entity(cls, data: dict[str, Any], created_at: int | None = None) -> Highlight:
        """A cached selector entity's highlight."""
        entity_id = text_of(data.get("id"))
        external = text_of(data.get("external_id")) or None
        return cls(
            id=entity_id,
            target_id=selector_target(data) or "",
            passage=selector_passage(data),
            created_at=int(created_at or 0),
            external_id=external,
        )

    @classmethod
    def from_op(cls, op: OutboxOp, target_id: str) -> Highlight:
        """A highlight still in the outbox (``op`` queues a selector)."""
        payload = op.payload or {}
        client = payload.get("id")
        return cls(
            id=f"{PENDING_PREFIX}{op.external_id}",
            target_id=target_id,
            passage=selector_passage(payload),
            created_at=int(op.created_at),
            pending=True,
            state=op.state,
            external_id=op.external_id,
            client_id=client if isinstance(client, str) and client else None,
            server_id=op.entity_id,
        )


# The links into the item are read first (CROSS JOIN keeps that order) and each linked row
# is looked up by id. Left to choose, SQLite walked every highlight (or note) of the
# library by type and date and looked for a link from each: 0.3 s an item at a million
# items (50,000 highlights), 4 s from a cold disk, against 0.4 ms.
HIGHLIGHTS_OF = (
    "SELECT DISTINCT e.id, e.created_at, r.raw FROM edges g "
    "CROSS JOIN entities e ON e.id = g.source JOIN entity_raw r ON r.rowid = e.rowid "
    f"WHERE g.target IN {IN_LIST} AND e.type = 'selector' "
    "AND e.deleted_upstream_at IS NULL ORDER BY e.created_at, e.id LIMIT ?"
)
NOTES_ON = (
    "SELECT g.target, e.id FROM edges g CROSS JOIN entities e ON e.id = g.source "
    f"WHERE g.target IN {IN_LIST} AND e.type = 'annotation' "
    "AND e.deleted_upstream_at IS NULL ORDER BY e.created_at, e.id LIMIT ?"
)


def _query(reader: CacheReader, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """One bounded read on ``reader``'s connection."""
    try:
        return list(reader.db.execute(sql, list(params)).fetchall())
    except sqlite3.Error as exc:
        context = f"reading the highlights in {reader.path.name}"
        raise translate(exc, context, file=reader.path) from exc


def names_of(reader: CacheReader, entity_id: str) -> list[str]:
    """The item's one id (when cached) and its other ids (a library row id)."""
    row = reader.get(entity_id)
    canonical = row.id if row is not None else entity_id
    aliases = _query(reader, "SELECT alias FROM entity_aliases WHERE id = ? LIMIT 10", [canonical])
    return list(dict.fromkeys([canonical, entity_id, *(str(a[0]) for a in aliases)]))


def cached_highlights(
    reader: CacheReader, entity_id: str, limit: int = MAX_HIGHLIGHTS
) -> list[Highlight]:
    """The cached highlights of an item (not deleted upstream), oldest first, with the ids
    of the cached notes on or citing each."""
    names = names_of(reader, entity_id)
    rows = _query(reader, HIGHLIGHTS_OF, [in_ids(names), limit])
    found: list[Highlight] = []
    codec = codec_of(reader.db)
    for entity_id_found, created_at, raw in rows:
        data = codec.decoded(raw)
        if not isinstance(data, dict):
            continue
        data = {**data, "id": entity_id_found}
        highlight = Highlight.from_entity(data, created_at)
        if highlight.target_id not in names:
            # Linked by its references (not its target_id): it is still about this item.
            highlight = _with(highlight, target_id=names[0])
        found.append(highlight)
    notes = _linked_notes(reader, [h.id for h in found])
    return [_with(h, note_ids=tuple(notes.get(h.id, ()))) for h in found]


def _linked_notes(reader: CacheReader, highlight_ids: list[str]) -> dict[str, list[str]]:
    """highlight id -> the cached notes attached to it or citing it, oldest first."""
    if not highlight_ids:
        return {}
    rows = _query(reader, NOTES_ON, [in_ids(highlight_ids), MAX_LINKED_NOTES])
    linked: dict[str, list[str]] = {}
    for target, note_id in rows:
        linked.setdefault(str(target), []).append(str(note_id))
    return linked


def _with(highlight: Highlight, **changes: Any) -> Highlight:
    """A copy of ``highlight`` with some fields changed."""
    return Highlight(**{**highlight.__dict__, **changes})


def pending_highlights(ops: Sequence[OutboxOp], names: Sequence[str]) -> list[Highlight]:
    """Highlights of the item named by ``names`` among outbox rows, with the pending notes
    linked to each (by the ids the notes pane shows them under)."""
    wanted = set(names)
    found = [
        Highlight.from_op(op, names[0])
        for op in ops
        if _is_selector_save(op) and text_of((op.payload or {}).get("target_id")) in wanted
    ]
    links = pending_note_links(ops)
    return [_with_pending_notes(h, links) for h in found]


def _with_pending_notes(highlight: Highlight, links: dict[str, list[str]]) -> Highlight:
    """``highlight`` also naming the queued notes that name it."""
    queued = (note for name in sorted(highlight.names()) for note in links.get(name, ()))
    return _with(highlight, note_ids=tuple(dict.fromkeys([*highlight.note_ids, *queued])))


def _is_selector_save(op: OutboxOp) -> bool:
    """Whether an outbox row saves a highlight."""
    return (
        op.kind == "save_entity"
        and bool(op.external_id)
        and isinstance(op.payload, dict)
        and op.payload.get("type") == "selector"
    )


def pending_note_links(ops: Iterable[OutboxOp]) -> dict[str, list[str]]:
    """id named by a queued note -> the ``pending:<external_id>`` of the notes naming it."""
    links: dict[str, list[str]] = {}
    for op in ops:
        payload = op.payload
        if op.kind != "save_entity" or not isinstance(payload, dict) or not op.external_id:
            continue
        if payload.get("type") != "annotation":
            continue
        for named in strings_in(payload.get("reference_content_ids"))[1:]:
            links.setdefault(named, []).append(f"{PENDING_PREFIX}{op.external_id}")
    return links


def _aliases(reader: CacheReader, ids: Sequence[str]) -> set[str]:
    """The other ids (library row ids) of cached items."""
    if not ids:
        return set()
    rows = _query(
        reader,
        f"SELECT alias FROM entity_aliases WHERE id IN {IN_LIST} LIMIT ?",
        [in_ids(ids), MAX_HIGHLIGHTS * 2],
    )
    return {str(row[0]) for row in rows}


def item_highlights(
    reader: CacheReader, outbox: PendingSaves | None, entity_id: str
) -> list[Highlight]:
    """Every highlight of an item, each once: the cached ones, and those of the outbox whose
    server copy is not cached yet; oldest first."""
    cached = cached_highlights(reader, entity_id)
    ops = outbox.list(states=PENDING_STATES) if outbox is not None else []
    if not ops:
        return cached
    known_ids = {h.id for h in cached} | _aliases(reader, [h.id for h in cached])
    known_external = {h.external_id for h in cached if h.external_id}
    pending = [
        p
        for p in pending_highlights(ops, names_of(reader, entity_id))
        if p.external_id not in known_external
        and p.server_id not in known_ids
        and p.client_id not in known_ids
    ]
    # A cached highlight may be named by a queued note (by its id, or by the pending id the
    # note was written under before the highlight was sent).
    links = pending_note_links(ops)
    merged = [*(_with_pending_notes(h, links) for h in cached), *pending]
    merged.sort(key=lambda h: (h.created_at, h.id))
    return merged


def _squeezed(text: str) -> str:
    """Text with every run of white space as one space, trimmed (for comparing passages)."""
    return " ".join(text.split())


def same_passage(highlight: Highlight, quote: str, prefix: str, suffix: str) -> bool:
    """Whether ``highlight`` marks this quote at this place (its context agrees)."""
    if _squeezed(highlight.quote) != _squeezed(quote):
        return False
    ours, theirs = _squeezed(prefix), _squeezed(highlight.passage.prefix)
    if ours and theirs and not (ours.endswith(theirs) or theirs.endswith(ours)):
        return False
    ours, theirs = _squeezed(suffix), _squeezed(highlight.passage.suffix)
    return not (ours and theirs and not (ours.startswith(theirs) or theirs.startswith(ours)))
