"""The stored JSON of entities, packed with zstd and a dictionary trained on the person's
own items.

Most of a cache is its items' JSON, and most of that JSON repeats: keys, URLs, the markup
of saved pages. One item alone compresses poorly (its repeats are in the other items), so
a dictionary is trained once enough items are cached, from a sample of them, and kept in
the cache; every frame names its dictionary, so items packed with an older one stay
readable. Until then, and in caches written before packing, rows hold plain JSON text and
are listed in ``pack_pending``; the writer packs them in batches while nothing else waits,
one transaction per batch, so a cache is readable whatever moment it is stopped at.

Measured on the store benchmark's generated library (10,000 items, 74 MB of JSON): level 3
with a 64 KiB dictionary packs 2.76 to 1 (2.39 without a dictionary); unpacking one item
takes 8 µs, packing all of them 0.5 s; training on 1,000 of them 0.13 s.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

import orjson
import zstandard
from sqlite_utils import Database

from memex_desktop.store.errors import DatabaseCorruptError, StoreBugError
from memex_desktop.store.sql import IN_LIST, in_ids

# A dictionary is trained once this many rows wait to be packed: fewer say too little about
# the library (and a small cache gains little), more leave more to pack afterwards.
TRAIN_AFTER_ROWS = 1000
TRAIN_SAMPLES = 1000
DICTIONARY_BYTES = 64 * 1024
# Fixed cover parameters: letting zstd search for them took 10.9 s for 2,000 samples, these
# 0.13 s for a dictionary packing within 1% as well.
_COVER_K = 1024
_COVER_D = 8
LEVEL = 3
# Rows packed per idle step: about 25 ms of work, so a page arriving meanwhile barely waits.
PACK_BATCH_ROWS = 250
# Free pages (4 KiB) given back to the file system per idle step (about 50 ms) once at
# least VACUUM_AFTER_FREE_PAGES are free.
VACUUM_STEP_PAGES = 2048
VACUUM_AFTER_FREE_PAGES = 1024

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass(frozen=True)
class PackingDictionary:
    """A cache's current packing dictionary as plain bytes, which any thread may hold: a
    compressor is not thread-safe, so each thread packs with one of its own."""

    dict_id: int
    data: bytes


def _compressor_for(data: bytes) -> zstandard.ZstdCompressor:
    # A checksum (4 bytes a frame) so a damaged row is an error, not other JSON.
    return zstandard.ZstdCompressor(
        level=LEVEL, dict_data=zstandard.ZstdCompressionDict(data), write_checksum=True
    )


_thread_compressors = threading.local()


def packed_with(dictionary: PackingDictionary, encoded: bytes) -> bytes:
    """``encoded`` packed as :meth:`JsonCodec.pack` packs it with ``dictionary``, on the
    calling thread (a sync packs its pages before the writer sees them)."""
    held: tuple[int, zstandard.ZstdCompressor] | None = getattr(_thread_compressors, "held", None)
    if held is None or held[0] != dictionary.dict_id:
        held = (dictionary.dict_id, _compressor_for(dictionary.data))
        _thread_compressors.held = held
    return held[1].compress(encoded)


def decoded(text: str | bytes) -> Any:
    """The value of an item's JSON text, as the store wrote it.

    orjson: for the 50 hits of a search, 2.7 ms against 9.1 ms with the json module (100
    plain queries of the store benchmark on 100,000 items, best of five). The json module
    reads what only it could write (lone surrogates, integers beyond 64 bits).
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


class JsonCodec:
    """Packs and unpacks the stored JSON of one connection's cache.

    Not thread-safe: like the connection it reads dictionaries through, it belongs to the
    thread using that connection.
    """

    def __init__(self, db: Database) -> None:
        # Weakly: the codec is the value of its database in a weak-keyed map, and a strong
        # reference back would keep both (and the connection's page cache) alive forever.
        self._db_ref = weakref.ref(db)
        self._decompressors: dict[int, zstandard.ZstdDecompressor] = {}
        self._compressor: zstandard.ZstdCompressor | None = None
        self._dictionary: PackingDictionary | None = None
        self._compressor_known = False

    def _db(self) -> Database:
        db = self._db_ref()
        if db is None:
            raise StoreBugError("the stored JSON was read after its connection was closed")
        return db

    # ------------------------------------------------------------------ reading

    def text(self, stored: str | bytes) -> str | bytes:
        """The JSON text of a stored value: as stored, or unpacked (UTF-8 bytes)."""
        if isinstance(stored, bytes) and stored[:4] == _ZSTD_MAGIC:
            dict_id = zstandard.get_frame_parameters(stored).dict_id
            try:
                return self._decompressor(dict_id).decompress(stored)
            except zstandard.ZstdError as exc:
                raise DatabaseCorruptError(f"a stored item cannot be unpacked: {exc}") from exc
        return stored

    def decoded(self, stored: str | bytes) -> Any:
        """The JSON value of a stored value."""
        return decoded(self.text(stored))

    def _decompressor(self, dict_id: int) -> zstandard.ZstdDecompressor:
        found = self._decompressors.get(dict_id)
        if found is not None:
            return found
        if dict_id == 0:
            found = zstandard.ZstdDecompressor()
        else:
            row = (
                self._db()
                .execute("SELECT dictionary FROM json_dictionaries WHERE dict_id = ?", [dict_id])
                .fetchone()
            )
            if row is None:
                raise DatabaseCorruptError(f"the packing dictionary {dict_id} is missing")
            found = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(row[0]))
        self._decompressors[dict_id] = found
        return found

    # ------------------------------------------------------------------ writing

    def pack(self, encoded: bytes) -> str | bytes:
        """What to store for an item's JSON: packed once a dictionary exists, else the text
        (and the caller lists the row in ``pack_pending``)."""
        compressor = self._current_compressor()
        return compressor.compress(encoded) if compressor is not None else encoded.decode()

    def can_pack(self) -> bool:
        """Whether :meth:`pack` packs (a dictionary has been trained)."""
        return self._current_compressor() is not None

    def dictionary(self) -> PackingDictionary | None:
        """The dictionary :meth:`pack` packs with now (None before one is trained)."""
        self._current_compressor()
        return self._dictionary

    def _current_compressor(self) -> zstandard.ZstdCompressor | None:
        if not self._compressor_known:
            row = (
                self._db()
                .execute(
                    "SELECT dict_id, dictionary FROM json_dictionaries "
                    "ORDER BY trained_at_ms DESC LIMIT 1"
                )
                .fetchone()
            )
            self._dictionary = None if row is None else PackingDictionary(int(row[0]), row[1])
            self._compressor = None if row is None else _compressor_for(row[1])
            self._compressor_known = True
        return self._compressor

    def train(self, samples: list[bytes | bytearray | memoryview[int]]) -> None:
        """Train a dictionary on ``samples`` and keep it in the cache (current transaction)."""
        trained = zstandard.train_dictionary(
            DICTIONARY_BYTES, samples, k=_COVER_K, d=_COVER_D, level=LEVEL
        )
        self._db().execute(
            "INSERT OR REPLACE INTO json_dictionaries (dict_id, dictionary, trained_at_ms) "
            "VALUES (?, ?, ?)",
            [trained.dict_id(), trained.as_bytes(), int(time.time() * 1000)],
        )
        self._compressor_known = False


_codecs: weakref.WeakKeyDictionary[Database, JsonCodec] = weakref.WeakKeyDictionary()
_codecs_lock = threading.Lock()


def codec_of(db: Database) -> JsonCodec:
    """The codec of ``db``'s connection (one per connection, made on first use)."""
    with _codecs_lock:
        found = _codecs.get(db)
        if found is None:
            found = _codecs[db] = JsonCodec(db)
        return found


def _samples(db: Database) -> list[bytes | bytearray | memoryview[int]]:
    rows = db.execute(
        "SELECT r.raw FROM entity_raw r WHERE r.rowid IN "
        "(SELECT rowid FROM pack_pending ORDER BY random() LIMIT ?)",
        [TRAIN_SAMPLES],
    ).fetchall()
    return [raw.encode() if isinstance(raw, str) else bytes(raw) for (raw,) in rows]


def packing_due(db: Database) -> bool:
    """Whether :func:`pack_step` has work: rows to pack with a dictionary, or enough of them
    to train one."""
    if codec_of(db).can_pack():
        return db.execute("SELECT 1 FROM pack_pending LIMIT 1").fetchone() is not None
    return (
        db.execute("SELECT 1 FROM pack_pending LIMIT 1 OFFSET ?", [TRAIN_AFTER_ROWS - 1]).fetchone()
        is not None
    )


def train_if_due(db: Database) -> bool:
    """Train the dictionary when there is none and enough rows wait; whether one exists."""
    codec = codec_of(db)
    if codec.can_pack():
        return True
    if not packing_due(db):
        return False
    codec.train(_samples(db))
    return True


def pack_step(db: Database, rows: int | None = None) -> int:
    """Pack up to ``rows`` rows waiting in ``pack_pending`` (training the dictionary first
    when there is none and enough rows wait); how many were packed."""
    if not train_if_due(db):
        return 0
    codec = codec_of(db)
    rows = rows or PACK_BATCH_ROWS
    found = db.execute(
        "SELECT p.rowid, r.raw FROM pack_pending p JOIN entity_raw r ON r.rowid = p.rowid "
        "ORDER BY p.rowid DESC LIMIT ?",
        [rows],
    ).fetchall()
    # The same rows (rows without JSON included: they are only dequeued).
    dequeued = db.conn.execute(
        "DELETE FROM pack_pending WHERE rowid IN (SELECT rowid FROM pack_pending "
        "ORDER BY rowid DESC LIMIT ?)",
        [rows],
    ).rowcount
    # Rows already packed (rewritten since they were queued) are left as they are.
    packed = [(codec.pack(raw.encode()), rowid) for rowid, raw in found if isinstance(raw, str)]
    db.conn.executemany("UPDATE entity_raw SET raw = ? WHERE rowid = ?", packed)
    return int(dequeued)


def give_back_free_pages(db: Database) -> bool:
    """Return a step of free pages to the file system (caches made with incremental
    vacuum); whether more are left. Packing frees most of the pages an item's JSON took."""
    conn: sqlite3.Connection = db.conn
    if int(conn.execute("PRAGMA auto_vacuum").fetchone()[0]) != 2:  # incremental
        return False
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    if free < VACUUM_AFTER_FREE_PAGES:
        return False
    # The pragma frees one page per step of its statement, and the sqlite3 module steps a
    # pragma once: one statement per page (25 µs each).
    for _page in range(min(free, VACUUM_STEP_PAGES)):
        conn.execute("PRAGMA incremental_vacuum(1)")
    return free > VACUUM_STEP_PAGES


def rewrite_due(db: Database) -> bool:
    """Whether the cache was made before packing (no incremental vacuum) and has nothing
    left to pack. Packing small items in place frees room inside pages, not whole pages:
    only rewriting the file gives that room back."""
    conn: sqlite3.Connection = db.conn
    if int(conn.execute("PRAGMA auto_vacuum").fetchone()[0]) != 0:
        return False
    return conn.execute("SELECT 1 FROM pack_pending LIMIT 1").fetchone() is None


def queue_for_packing(db: Database, rowids: list[int]) -> None:
    """List rows just written as plain JSON for packing."""
    db.conn.execute(
        f"INSERT OR IGNORE INTO pack_pending (rowid) SELECT value FROM {IN_LIST}",
        [in_ids(rowids)],
    )
