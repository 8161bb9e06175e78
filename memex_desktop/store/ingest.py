"""Writes into cache.db: entities with their text, edges and tags, views, feeds, sync state.

Every function here runs inside one transaction on the writer thread and returns the
ChangeSet of what really changed: rows whose ``updated_at`` and raw JSON are unchanged are
skipped, so ingesting the same page twice reports an empty ChangeSet.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import unicodedata
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlite_utils import Database

from memex_desktop.api.content import epoch_ms, moment_of
from memex_desktop.api.identity import other_ids
from memex_desktop.api.models import UNREADABLE_TYPE
from memex_desktop.store import terms
from memex_desktop.store.extract import (
    MENTIONING_TYPES,
    NESTED_KEYS,
    JsonObject,
    Texts,
    columns,
    own_references,
    searchable_texts,
    tag_ids_of,
)
from memex_desktop.store.packing import (
    JsonCodec,
    PackingDictionary,
    codec_of,
    packed_with,
    queue_for_packing,
)
from memex_desktop.store.recency import assign_keys
from memex_desktop.store.rows import ChangeSet
from memex_desktop.store.schema import FTS_FINGERPRINT_KEY
from memex_desktop.store.sql import IN_LIST, in_ids, insert_rows, rows_at_once

# referencesByResultId as plain data: source id -> ([(target, reference type)], tag ids).
References = Mapping[str, tuple[Sequence[tuple[str, str | None]], Sequence[str]]]
# What the indexed texts depend on. The indexes are contentless: removing a row re-derives
# its old terms with today's extraction, so raise EXTRACT_VERSION whenever store/extract.py or
# api/content.py changes what they yield for the same JSON (tests/unit/store/
# test_extract_digest.py fails until it is raised); the indexes are then rebuilt. Unicode data
# decides what a word is (str.isalnum, casefolding), the Python patch version does not.
EXTRACT_VERSION = 5
FTS_FINGERPRINT = (
    f"extract-{EXTRACT_VERSION}/unicode-{unicodedata.unidata_version}"
    f"/sqlite-{sqlite3.sqlite_version}"
)


@dataclass
class _Item:
    """One entity met in a page, with what its position in the page tells about it."""

    data: JsonObject
    authoritative: bool
    attached_to: str | None = None
    nested: list[str] = field(default_factory=list)
    # Filled in by prepare_page: the stored JSON, its hash, what it links to, its columns.
    # The JSON stored for it, as UTF-8.
    encoded: bytes = b""
    raw_hash: str = ""
    own: tuple[str | None, list[tuple[str, float | None]]] = (None, [])
    moment: float | None = None  # a note's place in a video (seconds), when it has one
    cols: dict[str, Any] = field(default_factory=dict)
    # ``encoded`` packed by the caller's thread, with the dictionary of this id.
    packed: tuple[int, bytes] | None = None


@dataclass(frozen=True)
class PreparedPage:
    """A page of entities with everything that needs no database worked out.

    Encoding, hashing and text extraction are most of a page's cost; done by
    :func:`prepare_page` on the thread that received the page, they run alongside the
    writer's SQLite work instead of in front of it.
    """

    items: dict[str, _Item]
    tags: Sequence[JsonObject]
    references: References


def _encoded(data: JsonObject) -> bytes:
    """The raw JSON kept for an entity, as UTF-8 (what the content hash is taken of); nested
    annotations and references are left out: they live as rows and edges."""
    nested = [key for key in NESTED_KEYS if key in data]
    kept = {key: value for key, value in data.items() if key not in nested} if nested else data
    try:
        return orjson.dumps(kept)
    except TypeError:
        # Text holding lone surrogates (legal in JSON escapes) has no UTF-8 form, and
        # integers beyond 64 bits have no native encoding: the json module writes both.
        return json.dumps(kept, separators=(",", ":")).encode()


def _collect(tops: Iterable[JsonObject], referenced: Iterable[JsonObject]) -> dict[str, _Item]:
    """Every entity of a page, nested ones included; complete copies win over partial ones."""
    items: dict[str, _Item] = {}
    for data in tops:
        _visit(items, data, True, None)
    for data in referenced:
        _visit(items, data, True, None)
    return items


# A function of its own, not a closure over ``items``: a closure that calls itself is a
# reference cycle holding the page's every item, which only the cyclic collector frees (and
# the sync's collector settings make its collections rare). At the end of a 10,000-item sync
# the collector found 11,331 objects to free, against 713 without the cycle.
def _visit(
    items: dict[str, _Item], data: Any, authoritative: bool, attached_to: str | None
) -> str | None:
    """Add the entity ``data`` and those nested in it to ``items``; its id (None if none)."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        return None
    entity_id: str = data["id"]
    # A stand-in for an unreadable item never replaces a copy that could be read.
    authoritative = authoritative and data.get("type") != UNREADABLE_TYPE
    known = items.get(entity_id)
    if (
        known is None
        or (authoritative and not known.authoritative)
        or (not known.authoritative and not authoritative and len(data) > len(known.data))
    ):
        inherited = known.attached_to if known is not None else None
        item = _Item(data, authoritative, attached_to or inherited)
        if known is not None:
            item.nested = known.nested
        items[entity_id] = item
    elif attached_to and known.attached_to is None:
        known.attached_to = attached_to
    for note in _listed(data.get("annotations")):
        _visit(items, note, False, entity_id)
    for key in ("references", "resolvedReferences"):
        for reference in _listed(data.get(key)):
            target = _visit(items, reference, False, None)
            if target and target not in items[entity_id].nested:
                items[entity_id].nested.append(target)
    return entity_id


def _listed(value: Any) -> list[Any]:
    """A nested-entity field's items ([] when it is not a list)."""
    return value if isinstance(value, list) else []


def _existing(
    db: Database, ids: Sequence[str]
) -> dict[str, tuple[int, str, int | None, int, int | None]]:
    """id -> (rowid, raw_hash, updated_at, complete, deleted_upstream_at) of cached entities."""
    found: dict[str, tuple[int, str, int | None, int, int | None]] = {}
    for row in rows_at_once(
        db.conn,
        "id, rowid, raw_hash, updated_at, complete, deleted_upstream_at",
        f"FROM entities WHERE id IN {IN_LIST}",
        [in_ids(ids)],
    ):
        found[row[0]] = (row[1], row[2], row[3], row[4], row[5])
    return found


def _types(db: Database, ids: Iterable[str], known: Mapping[str, str]) -> dict[str, str]:
    """Types of the given ids: from the page when there, else from the cache."""
    result = {entity_id: known[entity_id] for entity_id in ids if entity_id in known}
    missing = {entity_id for entity_id in ids if entity_id not in known}
    if not missing:
        return result
    for entity_id, kind in rows_at_once(
        db.conn, "id, type", f"FROM entities WHERE id IN {IN_LIST}", [in_ids(missing)]
    ):
        result[entity_id] = kind
    return result


Edge = tuple[str, str, str]  # (source, target, kind)


def _derive_edges(
    items: Mapping[str, _Item],
    own: Mapping[str, tuple[str | None, list[tuple[str, float | None]]]],
    references: References,
    types: Mapping[str, str],
) -> dict[str, dict[tuple[str, str], float | None]]:
    """source -> {(target, kind): seconds} from everything the page says about each source."""
    edges: dict[str, dict[tuple[str, str], float | None]] = {}

    def parent_kind(target: str, hinted: str | None = None) -> str:
        return "reply" if hinted == "reply" or types.get(target) == "annotation" else "annotates"

    for entity_id, item in items.items():
        out = edges.setdefault(entity_id, {})
        parent, mentions = own[entity_id]
        kind = item.data.get("type")
        if parent is None and kind == "annotation" and item.attached_to:
            parent = item.attached_to
        if parent is not None:
            kind_of_link = parent_kind(parent)
            # A note on a video keeps its moment, so "Referenced by" can link to that line.
            out[(parent, kind_of_link)] = item.moment if kind_of_link == "annotates" else None
        for target, seconds in mentions:
            if target != parent:  # a note citing what it is attached to is attached, once
                out[(target, "references")] = seconds
        if kind in MENTIONING_TYPES:
            for target in item.nested:
                if target != parent and target != entity_id:
                    out.setdefault((target, "references"), None)
    for source, (targets, _tags) in references.items():
        out = edges.setdefault(source, {})
        source_type = types.get(source)
        if source_type == "annotation" and targets:
            parent_id, hint = targets[0]
            if not any(key[1] in ("annotates", "reply") for key in out):
                kind_of_link = parent_kind(parent_id, hint)
                source_item = items.get(source)
                moment = source_item.moment if source_item is not None else None
                out[(parent_id, kind_of_link)] = moment if kind_of_link == "annotates" else None
                out.pop((parent_id, "references"), None)
            rest = targets[1:]
        else:
            rest = targets
        for target, hint in rest:
            if target == source or any(key[0] == target for key in out):
                continue
            if hint == "reply" and source_type == "annotation":
                out[(target, "reply")] = None
            elif source_type in MENTIONING_TYPES or types.get(target) != "annotation":
                # A page "referencing" a note is the note attached to it, not a mention.
                out[(target, "references")] = None
    return {source: out for source, out in edges.items() if out}


def prepare_page(
    entities: Sequence[JsonObject],
    *,
    referenced: Sequence[JsonObject] = (),
    tags: Sequence[JsonObject] = (),
    references: References | None = None,
    packing: PackingDictionary | None = None,
) -> PreparedPage:
    """The part of ingesting a page that needs no database (safe on any thread).

    The searchable texts are extracted here, on the caller's thread (for a sync not the
    writer's), for the page's own items; an item only referenced is written only when the
    cache lacks it, most often not (16,000 of 23,600 in a generated library's first 200
    pages), so its long body text is extracted by the writer when it is written. With
    ``packing`` (the cache's dictionary when the page was received), the JSON of the page's
    own items is packed here too, the others' by the writer.
    """
    items = _collect(entities, referenced)
    for item in items.values():
        encoded = _encoded(item.data)
        item.raw_hash = hashlib.blake2b(encoded, digest_size=12).hexdigest()
        item.encoded = encoded
        item.own = own_references(item.data, encoded.decode())
        item.moment = moment_of(item.data) if item.data.get("type") == "annotation" else None
        item.cols = columns(item.data, body=item.authoritative)
        if packing is not None and item.authoritative:
            item.packed = (packing.dict_id, packed_with(packing, encoded))
    return PreparedPage(items, list(tags), references or {})


def apply_page(
    db: Database,
    page: PreparedPage,
    *,
    now_ms: int,
    memo: TextMemo | None = None,
    written: list[int] | None = None,
) -> ChangeSet:
    """Write a prepared page in the current transaction.

    Written rows are queued in fts_pending (their rowids appended to ``written``); the
    caller indexes them now or later with :func:`index_pending` / :func:`index_rows`,
    which find the texts computed here in ``memo`` instead of re-reading the JSON.
    """
    items, tags, references = page.items, page.tags, page.references
    ids = list(items)
    existing = _existing(db, ids)
    inserts: list[tuple[str, _Item]] = []
    updates: list[tuple[str, _Item, int]] = []
    for entity_id, item in items.items():
        old = existing.get(entity_id)
        if old is None:
            inserts.append((entity_id, item))
        elif _should_update(item, item.raw_hash, old):
            updates.append((entity_id, item, old[0]))
    changed = {entity_id for entity_id, *_ in inserts} | {entity_id for entity_id, *_ in updates}
    rowids = _write_entities(db, inserts, updates, now_ms, memo if memo is not None else {})
    if written is not None:
        written.extend(rowids)

    page_types = {entity_id: str(item.data.get("type")) for entity_id, item in items.items()}
    aliases = {
        other: entity_id for entity_id, item in items.items() for other in other_ids(item.data)
    }
    edges_changed = _write_aliases(db, aliases)
    referred = set(ids)
    for source, (targets, _tags) in references.items():
        referred.add(source)
        referred.update(target for target, _hint in targets)
    own = {entity_id: item.own for entity_id, item in items.items()}
    for parent, mentions in own.values():
        if parent is not None:
            referred.add(parent)
        referred.update(target for target, _seconds in mentions)
    types = _types(db, referred, page_types)
    unknown = sorted(entity_id for entity_id in referred if entity_id not in types)
    if unknown:
        aliases.update(_aliases_of(db, unknown))
    if aliases:
        # A reference may name an item by its other id (its library row): point it at the one.
        references = _resolve_references(references, aliases)
        own = {entity_id: _resolve_own(links, aliases) for entity_id, links in own.items()}
        types.update(_types(db, {aliases[i] for i in unknown if i in aliases}, page_types))
    edges = _without_parent_mentions(db, _derive_edges(items, own, references, types), types)
    replace_sources = {entity_id for entity_id in changed if items[entity_id].authoritative}
    wrote_edges = _write_edges(db, edges, replace_sources)
    edges_changed = wrote_edges or edges_changed
    # Each statement is a chance for the sync's other threads to hold the GIL (see
    # sql.insert_rows): the clean-up runs only when this page wrote edges.
    attached = (
        []
        if not wrote_edges
        else [
            source
            for source, out in edges.items()
            if any(kind in ("annotates", "reply") for _, kind in out)
        ]
    )
    edges_changed = _drop_mentions_of_parents(db, attached) or edges_changed
    new_notes = [
        entity_id for entity_id, *_ in inserts if page_types.get(entity_id) == "annotation"
    ]
    if new_notes:
        before = db.conn.total_changes
        db.conn.execute(
            "UPDATE OR REPLACE edges SET kind = 'reply' "
            f"WHERE kind = 'annotates' AND target IN {IN_LIST}",
            [in_ids(new_notes)],
        )
        edges_changed = edges_changed or db.conn.total_changes > before

    tag_changes = _write_tags(db, tags)
    entity_tags: dict[str, set[str]] = {}
    for entity_id, item in items.items():
        entity_tags.setdefault(entity_id, set()).update(tag_ids_of(item.data))
    for source, (_targets, tag_list) in references.items():
        entity_tags.setdefault(source, set()).update(tag_list)
    tag_changes |= _write_entity_tags(db, entity_tags, replace_sources)
    return ChangeSet(
        entity_ids=frozenset(changed),
        tag_ids=frozenset(tag_changes),
        edges_changed=edges_changed,
    )


def _without_parent_mentions(
    db: Database,
    edges: dict[str, dict[tuple[str, str], float | None]],
    types: Mapping[str, str],
) -> dict[str, dict[tuple[str, str], float | None]]:
    """Derived edges without a note "referencing" what it is attached to (by this page or an
    earlier one), so a page seen again writes nothing."""
    parents: dict[str, set[str]] = {}
    for source, out in edges.items():
        for target, kind in out:
            if kind in ("annotates", "reply"):
                parents.setdefault(source, set()).add(target)
    mentioning = [
        source
        for source, out in edges.items()
        if types.get(source) == "annotation" and any(kind == "references" for _, kind in out)
    ]
    if mentioning:
        for source, target in rows_at_once(
            db.conn,
            "source, target",
            f"FROM edges WHERE kind IN ('annotates', 'reply') AND source IN {IN_LIST}",
            [in_ids(mentioning)],
        ):
            parents.setdefault(source, set()).add(target)
    for source, targets in parents.items():
        derived = edges.get(source)
        if derived:
            for target in targets:
                derived.pop((target, "references"), None)
    return edges


def _drop_mentions_of_parents(db: Database, sources: Sequence[str]) -> bool:
    """A note is attached to its parent, not also "referencing" it: pages that show the note
    in different places (nested, listed, with or without its links) must not leave both."""
    if not sources:
        return False
    conn = db.conn
    before = conn.total_changes
    conn.execute(
        "DELETE FROM edges WHERE kind = 'references' "
        f"AND source IN {IN_LIST} AND EXISTS (SELECT 1 FROM edges p"
        " WHERE p.source = edges.source AND p.target = edges.target"
        " AND p.kind IN ('annotates', 'reply'))",
        [in_ids(sources)],
    )
    return conn.total_changes > before


def _write_aliases(db: Database, aliases: Mapping[str, str]) -> bool:
    """Record the other ids of the page's items; edges already naming one move to the item.

    Returns whether any edge moved.
    """
    if not aliases:
        return False
    conn = db.conn
    known = dict(_aliases_of(db, sorted(aliases)))
    fresh = [(alias, target) for alias, target in aliases.items() if known.get(alias) != target]
    if not fresh:
        return False
    insert_rows(conn, "INSERT OR REPLACE INTO entity_aliases (alias, id)", fresh)
    before = conn.total_changes
    for alias, target in fresh:
        for column in ("source", "target"):
            conn.execute(
                f"UPDATE OR REPLACE edges SET {column} = ? WHERE {column} = ?", (target, alias)
            )
    return conn.total_changes > before


def _aliases_of(db: Database, ids: Sequence[str]) -> dict[str, str]:
    """alias -> canonical id for those of ``ids`` that are other ids of a cached item."""
    found: dict[str, str] = {}
    for alias, entity_id in rows_at_once(
        db.conn,
        "alias, id",
        f"FROM entity_aliases WHERE alias IN {IN_LIST}",
        [in_ids(ids)],
    ):
        found[alias] = entity_id
    return found


def _resolve_references(references: References, aliases: Mapping[str, str]) -> References:
    """``referencesByResultId`` with every id pointed at its item's one id."""
    return {
        aliases.get(source, source): (
            [(aliases.get(target, target), hint) for target, hint in targets],
            tags,
        )
        for source, (targets, tags) in references.items()
    }


def _resolve_own(
    links: tuple[str | None, list[tuple[str, float | None]]], aliases: Mapping[str, str]
) -> tuple[str | None, list[tuple[str, float | None]]]:
    """An item's own parent and mentions pointed at canonical ids."""
    parent, mentions = links
    return (
        aliases.get(parent, parent) if parent is not None else None,
        [(aliases.get(target, target), seconds) for target, seconds in mentions],
    )


def _should_update(
    item: _Item, raw_hash: str, old: tuple[int, str, int | None, int, int | None]
) -> bool:
    """Whether a cached row must be rewritten with this copy."""
    _rowid, old_hash, old_updated, old_complete, deleted_at = old
    if item.authoritative:
        return old_hash != raw_hash or not old_complete or deleted_at is not None
    if old_hash == raw_hash:
        return False
    new_updated = epoch_ms(item.data.get("updated_at"))
    if new_updated is not None and old_updated is not None and new_updated > old_updated:
        return True
    return not old_complete and (
        new_updated is None or old_updated is None or new_updated >= old_updated
    )


_ENTITY_COLUMNS = (
    "type, title, url, normalized_url, author, site, snippet_source, created_at, updated_at, "
    "status, raw_hash, complete, cached_at, deleted_upstream_at"
)
_ENTITY_ASSIGNMENTS = ", ".join(f"{name.strip()} = ?" for name in _ENTITY_COLUMNS.split(","))

# The four indexed texts of an entity: title, author, summary, body.
# raw_hash -> texts computed while ingesting, so indexing later need not re-read the JSON.
TextMemo = MutableMapping[str, Texts]
MEMO_LIMIT = 3000  # texts kept for the indexer (about 20 MB); beyond, it re-reads the JSON


def _entity_values(
    item: _Item, cols: Mapping[str, Any], raw_hash: str, now_ms: int
) -> tuple[Any, ...]:
    return (
        cols["type"], cols["title"], cols["url"], cols["normalized_url"], cols["author"],
        cols["site"], cols["snippet_source"], cols["created_at"], cols["updated_at"],
        cols["status"], raw_hash, 1 if item.authoritative else 0, now_ms, None,
    )  # fmt: skip


def _texts(cols: Mapping[str, Any]) -> Texts:
    return (cols["text_title"], cols["text_author"], cols["text_summary"], cols["text_body"])


def texts_of_stored(codec: JsonCodec, stored: str | bytes) -> Texts:
    """The indexed texts of an entity, re-derived from its stored JSON."""
    data = codec.decoded(stored)
    return searchable_texts(data if isinstance(data, dict) else {})


def _packed(codec: JsonCodec, item: _Item) -> str | bytes:
    """What to store for an item's JSON: as the caller packed it if that was with the
    dictionary in use now, else packed here."""
    current = codec.dictionary()
    if item.packed is not None and current is not None and item.packed[0] == current.dict_id:
        return item.packed[1]
    return codec.pack(item.encoded)


def _write_entities(
    db: Database,
    inserts: Sequence[tuple[str, _Item]],
    updates: Sequence[tuple[str, _Item, int]],
    now_ms: int,
    memo: TextMemo,
) -> list[int]:
    """Insert new rows under recency keys, rewrite changed ones, queue them for indexing."""
    conn = db.conn
    codec = codec_of(db)
    raws: list[tuple[int, str | bytes]] = []
    in_place: list[tuple[Any, ...]] = []
    _unindex(db, [rowid for *_, rowid in updates])
    pending: list[tuple[str, _Item, int | None]] = [
        (entity_id, item, None) for entity_id, item in inserts
    ]
    pending += updates
    rows: list[tuple[Any, ...]] = []
    for entity_id, item, old_rowid in pending:
        raw_hash = item.raw_hash
        cols = item.cols
        if len(memo) < MEMO_LIMIT:
            known = cols["text_body"] is not None
            memo[raw_hash] = _texts(cols) if known else searchable_texts(item.data)
        values = _entity_values(item, cols, raw_hash, now_ms)
        if old_rowid is not None:
            # The key stays: search order is approximate only if created_at changed.
            in_place.append((*values, entity_id))
            raws.append((old_rowid, _packed(codec, item)))
            continue
        rows.append((entity_id, *values))
    if in_place:
        conn.executemany(f"UPDATE entities SET {_ENTITY_ASSIGNMENTS} WHERE id = ?", in_place)
    if rows:
        keys = assign_keys(db, [row[8] for row in rows])  # created_at
        insert_rows(
            conn,
            f"INSERT INTO entities (rowid, id, {_ENTITY_COLUMNS})",
            [(key, *row) for key, row in zip(keys, rows, strict=True)],
        )
        new_raws = {row[0]: key for key, row in zip(keys, rows, strict=True)}
        raws += [
            (new_raws[entity_id], _packed(codec, item))
            for entity_id, item, old in pending
            if old is None
        ]
    insert_rows(conn, "INSERT OR REPLACE INTO entity_raw (rowid, raw)", raws)
    written = [rowid for rowid, _raw in raws]
    insert_rows(conn, "INSERT OR IGNORE INTO fts_pending (rowid)", [(r,) for r in written])
    if written and not codec.can_pack():
        queue_for_packing(db, written)
    return written


def _unindex(db: Database, rowids: Sequence[int]) -> None:
    """Remove indexed rows from both indexes before a rewrite.

    The indexes are contentless: the old texts are re-derived from the old JSON, which
    gives exactly what was indexed (the extraction fingerprint guarantees the same code).
    """
    if not rowids:
        return
    old = db.conn.execute(
        f"SELECT rowid, raw FROM entity_raw WHERE rowid IN {IN_LIST} "
        "AND rowid NOT IN (SELECT rowid FROM fts_pending)",
        [in_ids(rowids)],
    ).fetchall()
    if old:
        codec = codec_of(db)
        texts = [(rowid, *texts_of_stored(codec, raw)) for rowid, raw in old]
        db.conn.executemany(
            "INSERT INTO body_fts (body_fts, rowid, title, author, summary, body) "
            "VALUES ('delete', ?, ?, ?, ?, ?)",
            texts,
        )
        db.conn.executemany(
            "INSERT INTO title_fts (title_fts, rowid, title, author) VALUES ('delete', ?, ?, ?)",
            [row[:3] for row in texts],
        )


def index_rows(db: Database, rowids: Sequence[int], memo: TextMemo) -> int:
    """Index the given queued rows now (texts from ``memo`` when there); returns how many."""
    found: list[tuple[int, str]] = db.conn.execute(
        "SELECT p.rowid, e.raw_hash FROM fts_pending p JOIN entities e ON e.rowid = p.rowid "
        f"WHERE p.rowid IN {IN_LIST}",
        [in_ids(rowids)],
    ).fetchall()
    _index(db, found, memo)
    return len(found)


def index_pending(db: Database, limit: int, memo: TextMemo | None = None) -> int:
    """Move up to ``limit`` queued rows (newest first) into the indexes; returns how many."""
    found = db.conn.execute(
        "SELECT p.rowid, e.raw_hash FROM fts_pending p LEFT JOIN entities e "
        "ON e.rowid = p.rowid ORDER BY p.rowid DESC LIMIT ?",
        (limit,),
    ).fetchall()
    _index(db, found, memo if memo is not None else {})
    return len(found)


def merge_index_step(db: Database, pages: int) -> bool:
    """Merge about ``pages`` pages of both search indexes towards one b-tree each; whether
    nothing was left to merge.

    Rows are indexed a few dozen at a time, so a sync leaves each index as hundreds of small
    b-trees that every query reads one by one. Merged into one (100,000 items): the store
    benchmark's search p95 went from 24.5 to 18.4 ms of CPU (two runs alternated, median).
    """
    before = db.conn.total_changes
    for table in ("body_fts", "title_fts"):
        # A negative amount merges b-trees of every level, however few: towards one.
        db.conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)", (-pages,))
    # Each command counts as one change itself; anything more is work done.
    return db.conn.total_changes - before <= 2


def _index(db: Database, found: Sequence[tuple[int, str | None]], memo: TextMemo) -> None:
    """Insert the texts of queued rows into both indexes and dequeue them."""
    conn = db.conn
    texts: dict[int, Texts] = {}
    missing: list[int] = []
    for rowid, raw_hash in found:
        known = memo.pop(raw_hash, None) if raw_hash is not None else None
        if known is not None:
            texts[rowid] = known
        elif raw_hash is not None:
            missing.append(rowid)
    if missing:
        codec = codec_of(db)
        for rowid, raw in conn.execute(
            f"SELECT rowid, raw FROM entity_raw WHERE rowid IN {IN_LIST}", [in_ids(missing)]
        ):
            texts[rowid] = texts_of_stored(codec, raw)
    # Ascending rowids: FTS5 flushes its pending terms to a new segment whenever a rowid is
    # not larger than the previous one in the transaction, one segment per row otherwise.
    ordered = sorted(texts.items())
    insert_rows(
        conn,
        "INSERT INTO body_fts (rowid, title, author, summary, body)",
        [(rowid, *values) for rowid, values in ordered],
    )
    insert_rows(
        conn,
        "INSERT INTO title_fts (rowid, title, author)",
        [(rowid, values[0], values[1]) for rowid, values in ordered],
    )
    terms.note_indexed(conn, [values for _, values in ordered])
    if found:
        dequeued = in_ids(row[0] for row in found)
        conn.execute(f"DELETE FROM fts_pending WHERE rowid IN {IN_LIST}", [dequeued])


def rebuild_index_if_stale(db: Database) -> bool:
    """Queue every entity for re-indexing when the indexes were built by other extraction
    code (or another Python/SQLite), whose texts could not be removed exactly; True if so."""
    found = db.execute("SELECT value FROM sync_state WHERE key = ?", [FTS_FINGERPRINT_KEY])
    row = found.fetchone()
    if row is not None and row[0] == FTS_FINGERPRINT:
        return False
    db.execute("INSERT INTO body_fts (body_fts) VALUES ('delete-all')")
    db.execute("INSERT INTO title_fts (title_fts) VALUES ('delete-all')")
    db.execute("INSERT OR IGNORE INTO fts_pending (rowid) SELECT rowid FROM entities")
    db.execute(
        "INSERT OR REPLACE INTO sync_state (key, value) VALUES (?, ?)",
        [FTS_FINGERPRINT_KEY, FTS_FINGERPRINT],
    )
    return True


def _write_edges(
    db: Database,
    edges: Mapping[str, Mapping[tuple[str, str], float | None]],
    replace_sources: set[str],
) -> bool:
    """Store derived edges; sources rewritten authoritatively get exactly their new set."""
    conn = db.conn
    before = conn.total_changes
    replace = sorted(replace_sources)
    old: dict[str, dict[tuple[str, str], float | None]] = {}
    for source, target, kind, seconds in conn.execute(
        f"SELECT source, target, kind, timestamp_s FROM edges WHERE source IN {IN_LIST}",
        [in_ids(replace)],
    ):
        old.setdefault(source, {})[(target, kind)] = seconds
    removals: list[tuple[str, str, str]] = []
    upserts: list[tuple[str, str, str, float | None]] = []
    additions: list[tuple[str, str, str, float | None]] = []
    for source in replace:
        new = edges.get(source, {})
        previous = old.get(source, {})
        removals += [(source, t, k) for (t, k) in previous if (t, k) not in new]
        upserts += [
            (source, t, k, s)
            for (t, k), s in new.items()
            if (t, k) not in previous or previous[(t, k)] != s
        ]
    for source, new in edges.items():
        if source not in replace_sources:
            additions += [(source, t, k, s) for (t, k), s in new.items()]
    if removals:
        conn.executemany("DELETE FROM edges WHERE source = ? AND target = ? AND kind = ?", removals)
    insert_rows(conn, "INSERT OR REPLACE INTO edges", upserts)
    insert_rows(conn, "INSERT OR IGNORE INTO edges", additions)
    return conn.total_changes > before


def _write_tags(db: Database, tags: Sequence[JsonObject]) -> set[str]:
    """Upsert tag rows whose JSON changed; returns their ids."""
    wanted = {
        tag["id"]: tag for tag in tags if isinstance(tag, dict) and isinstance(tag.get("id"), str)
    }
    if not wanted:
        return set()
    current: dict[str, str] = {}
    ids = sorted(wanted)
    current.update(db.execute(f"SELECT id, raw FROM tags WHERE id IN {IN_LIST}", [in_ids(ids)]))
    rows = []
    for tag_id in ids:
        tag = wanted[tag_id]
        raw = json.dumps(tag, ensure_ascii=False, separators=(",", ":"))
        if current.get(tag_id) != raw:
            name = tag.get("name") if isinstance(tag.get("name"), str) else tag_id
            rows.append(
                (
                    tag_id,
                    name,
                    epoch_ms(tag.get("created_at")),
                    epoch_ms(tag.get("updated_at")),
                    raw,
                )
            )
    db.conn.executemany("INSERT OR REPLACE INTO tags VALUES (?, ?, ?, ?, ?)", rows)
    return {row[0] for row in rows}


def _write_entity_tags(
    db: Database, entity_tags: Mapping[str, set[str]], replace_sources: set[str]
) -> set[str]:
    """Store tag links; returns the tags whose membership changed.

    Sources in ``replace_sources`` get exactly their new tags; others only gain tags.
    """
    conn = db.conn
    old: dict[str, set[str]] = {}
    for entity_id, tag_id in rows_at_once(
        conn,
        "entity_id, tag_id",
        f"FROM entity_tags WHERE entity_id IN {IN_LIST}",
        [in_ids(set(entity_tags) | replace_sources)],
    ):
        old.setdefault(entity_id, set()).add(tag_id)
    removals = [
        (entity_id, tag_id)
        for entity_id in sorted(replace_sources)
        for tag_id in sorted(old.get(entity_id, set()) - entity_tags.get(entity_id, set()))
    ]
    if removals:
        conn.executemany("DELETE FROM entity_tags WHERE entity_id = ? AND tag_id = ?", removals)
    additions = [
        (entity_id, tag_id)
        for entity_id, tag_set in entity_tags.items()
        for tag_id in sorted(tag_set - old.get(entity_id, set()))
    ]
    insert_rows(conn, "INSERT OR IGNORE INTO entity_tags (entity_id, tag_id)", additions)
    return {tag_id for _entity, tag_id in removals + additions}


def mark_deleted_upstream(db: Database, ids: Sequence[str], now_ms: int) -> ChangeSet:
    """Flag entities the server no longer returns; they stay readable, never erased."""
    marked = {
        row[0]
        for row in db.execute(
            f"SELECT id FROM entities WHERE id IN {IN_LIST} AND deleted_upstream_at IS NULL",
            [in_ids(set(ids))],
        )
    }
    db.conn.executemany(
        "UPDATE entities SET deleted_upstream_at = ? WHERE id = ?",
        [(now_ms, entity_id) for entity_id in sorted(marked)],
    )
    return ChangeSet(deleted_ids=frozenset(marked))


def upsert_views(db: Database, views: Sequence[JsonObject]) -> ChangeSet:
    """Store saved views whose JSON changed."""
    rows = []
    for view in views:
        raw = json.dumps(view, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        current = db.execute("SELECT raw FROM views WHERE id = ?", [view["id"]]).fetchone()
        if current is None or current[0] != raw:
            name = view.get("name") or view.get("title") or view["id"]
            definition = view.get("definition") if isinstance(view.get("definition"), dict) else {}
            rows.append((view["id"], str(name), json.dumps(definition), raw))
    db.conn.executemany("INSERT OR REPLACE INTO views VALUES (?, ?, ?, ?)", rows)
    return ChangeSet(view_ids=frozenset(row[0] for row in rows))


def upsert_feeds(db: Database, feeds: Sequence[JsonObject]) -> ChangeSet:
    """Store feeds whose JSON changed."""
    rows = []
    for feed in feeds:
        raw = json.dumps(feed, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        current = db.execute("SELECT raw FROM feeds WHERE id = ?", [feed["id"]]).fetchone()
        if current is None or current[0] != raw:
            rows.append(
                (
                    feed["id"],
                    str(feed.get("title") or feed.get("feed_url") or feed["id"]),
                    feed.get("feed_url"),
                    feed.get("site_url"),
                    feed.get("source_platform"),
                    raw,
                )
            )
    db.conn.executemany("INSERT OR REPLACE INTO feeds VALUES (?, ?, ?, ?, ?, ?)", rows)
    return ChangeSet(feed_ids=frozenset(row[0] for row in rows))


def record_feed_members(
    db: Database, feed_id: str, entity_ids: Sequence[str], *, complete: bool, now_ms: int
) -> ChangeSet:
    """Remember the items the server listed for a feed.

    A ``complete`` listing replaces what was remembered (items that left the feed go); a
    partial one (its newest items only) adds to it.
    """
    before = set(
        row[0]
        for row in db.execute("SELECT entity_id FROM feed_members WHERE feed_id = ?", [feed_id])
    )
    listed = set(entity_ids)
    if complete:
        db.execute("DELETE FROM feed_members WHERE feed_id = ?", [feed_id])
    db.conn.executemany(
        "INSERT OR IGNORE INTO feed_members (feed_id, entity_id) VALUES (?, ?)",
        [(feed_id, entity_id) for entity_id in dict.fromkeys(entity_ids)],
    )
    db.execute(
        "INSERT OR REPLACE INTO feed_listings (feed_id, listed_at_ms, complete) VALUES (?, ?, ?)",
        [feed_id, now_ms, 1 if complete else 0],
    )
    after = listed if complete else before | listed
    return ChangeSet(feed_ids=frozenset({feed_id}) if after != before else frozenset())


def set_reading_position(db: Database, entity_id: str, position: int, now_ms: int) -> ChangeSet:
    """Remember where an item was being read (not a change any pane shows)."""
    db.execute(
        "INSERT OR REPLACE INTO reading_positions (entity_id, position, updated_at_ms) "
        "VALUES (?, ?, ?)",
        [entity_id, max(0, position), now_ms],
    )
    return ChangeSet.empty()


def set_sync_state(db: Database, key: str, value: str) -> ChangeSet:
    """Persist one sync bookmark (not a visible change)."""
    db.execute("INSERT OR REPLACE INTO sync_state (key, value) VALUES (?, ?)", [key, value])
    return ChangeSet.empty()
