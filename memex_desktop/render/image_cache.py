"""Pictures the person loaded, kept in the data folder so they read offline afterwards.

``images.db`` (SQLite, beside the library cache) holds each picture fetched on request, under
the address it was fetched from, and the items whose pictures the person asked for, so that
choice outlives a restart. Only what :func:`~memex_desktop.render.remote_images.fetch_images`
brought back over http(s) is ever stored, and every picture is checked again when read
(:mod:`memex_desktop.render.image_check`): a damaged row is dropped, never shown.

A picture is written in one transaction, so a process killed mid-write leaves the old state,
never half a picture. When the pictures pass the size limit (the ``image_cache_mb``
setting), those shown longest ago go first. The file is disposable like the library cache:
one that cannot be read is set aside and started afresh.

Each call opens its own connection (the reader's workers run on several threads); a
connection waits a few seconds for another's write instead of failing.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memex_desktop.render.image_check import CheckedImage, NotAnImage, TooManyPixels, check_image
from memex_desktop.render.remote_images import (
    DEFAULT_POLICY,
    FetchedImages,
    ImagePolicy,
    Refusal,
    fetch_images,
    wanted_images,
)

log = logging.getLogger(__name__)

MEGABYTE = 1_000_000
_BUSY_TIMEOUT_S = 5.0
_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS images (
    url TEXT PRIMARY KEY,
    format TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    size INTEGER NOT NULL,
    body BLOB NOT NULL,
    stored_at REAL NOT NULL,
    used_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS images_by_use ON images (used_at);
CREATE TABLE IF NOT EXISTS items_allowed (
    entity_id TEXT PRIMARY KEY,
    allowed_at REAL NOT NULL
);
"""
# One schema check per file and process: later connections skip the CREATE statements.
_ready: set[Path] = set()
_ready_lock = threading.Lock()


class ImageCache:
    """The pictures kept in one ``images.db`` and the items allowed to show theirs."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max(0, max_bytes)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection to a file whose schema is in place (a damaged file is set aside)."""
        self._prepare()
        with closing(sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)) as connection:
            yield connection

    def _prepare(self) -> None:
        """Create the file and its tables once; set an unreadable file aside and start anew."""
        with _ready_lock:
            if self.path in _ready and self.path.exists():
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._create()
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise
                aside = self.path.with_name(self.path.name + ".damaged")
                log.warning(
                    "image cache %s unreadable (%s); set aside as %s", self.path, exc, aside
                )
                for suffix in ("-wal", "-shm"):
                    self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
                self.path.replace(aside)
                self._create()
            _ready.add(self.path)

    def _create(self) -> None:
        """The tables, in WAL mode (readers never wait for a writer)."""
        with closing(sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)) as connection:
            connection.execute("PRAGMA journal_mode=WAL")
            with connection:
                connection.executescript(_SCHEMA)
                connection.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")

    def images(self, urls: Iterable[str]) -> dict[str, CheckedImage]:
        """The kept pictures of ``urls`` (each checked again), marked as shown now."""
        wanted = list(dict.fromkeys(urls))
        if not wanted:
            return {}
        marks = ",".join("?" * len(wanted))
        found: dict[str, CheckedImage] = {}
        damaged: list[str] = []
        with self._connection() as connection:
            rows = connection.execute(
                f"SELECT url, body FROM images WHERE url IN ({marks})", wanted
            ).fetchall()
            for url, body in rows:
                try:
                    found[str(url)] = check_image(bytes(body))
                except (NotAnImage, TooManyPixels, TypeError) as exc:
                    log.warning("kept picture dropped (%s): %s", exc, str(url)[:200])
                    damaged.append(str(url))
            with connection:
                now = time.time()
                connection.executemany(
                    "UPDATE images SET used_at = ? WHERE url = ?", [(now, url) for url in found]
                )
                connection.executemany("DELETE FROM images WHERE url = ?", [(u,) for u in damaged])
        return found

    def keep(self, images: Mapping[str, CheckedImage]) -> None:
        """Keep fetched pictures (each in one transaction), then drop the oldest over the limit.

        A picture bigger than the whole limit is not kept.
        """
        fitting = {url: image for url, image in images.items() if len(image.body) <= self.max_bytes}
        if not fitting:
            return
        with self._connection() as connection:
            for url, image in fitting.items():
                now = time.time()
                with connection:
                    connection.execute(
                        "INSERT OR REPLACE INTO images"
                        " (url, format, width, height, size, body, stored_at, used_at)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            url,
                            image.format,
                            image.width,
                            image.height,
                            len(image.body),
                            image.body,
                            now,
                            now,
                        ),
                    )
            self._trim(connection)

    def _trim(self, connection: sqlite3.Connection) -> None:
        """Drop the pictures shown longest ago until the rest fit in ``max_bytes``."""
        with connection:
            (total,) = connection.execute("SELECT COALESCE(SUM(size), 0) FROM images").fetchone()
            excess = int(total) - self.max_bytes
            if excess <= 0:
                return
            dropped: list[tuple[str]] = []
            rows = connection.execute("SELECT url, size FROM images ORDER BY used_at, rowid")
            for url, size in rows:
                if excess <= 0:
                    break
                dropped.append((str(url),))
                excess -= int(size)
            connection.executemany("DELETE FROM images WHERE url = ?", dropped)

    def total_bytes(self) -> int:
        """The size of every kept picture together."""
        with self._connection() as connection:
            (total,) = connection.execute("SELECT COALESCE(SUM(size), 0) FROM images").fetchone()
        return int(total)

    def item_allowed(self, entity_id: str) -> bool:
        """Whether the person asked for this item's pictures (in this or an earlier session)."""
        with self._connection() as connection:
            row = connection.execute(
                "SELECT 1 FROM items_allowed WHERE entity_id = ?", (entity_id,)
            ).fetchone()
        return row is not None

    def allow_item(self, entity_id: str) -> None:
        """Remember that the person asked for this item's pictures."""
        with self._connection() as connection, connection:
            connection.execute(
                "INSERT OR REPLACE INTO items_allowed (entity_id, allowed_at) VALUES (?, ?)",
                (entity_id, time.time()),
            )


@dataclass
class LoadedImages:
    """An item's pictures: those shown (kept or just fetched) and why the others are not."""

    images: dict[str, CheckedImage] = field(default_factory=dict)
    refused: dict[str, Refusal] = field(default_factory=dict)
    from_cache: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class ImageSource:
    """Where the reader gets an item's pictures: the kept ones first, the rest from the web.

    ``path`` None keeps nothing (every picture is fetched each time, no choice remembered);
    ``max_bytes`` is the ``image_cache_mb`` setting in bytes.
    """

    path: Path | None
    max_bytes: int
    policy: ImagePolicy = DEFAULT_POLICY

    @classmethod
    def limited(
        cls, path: Path | None, megabytes: float, policy: ImagePolicy = DEFAULT_POLICY
    ) -> ImageSource:
        """The source keeping pictures in ``path`` (paths.image_cache_path) up to ``megabytes``."""
        return cls(path, int(megabytes * MEGABYTE), policy)

    def cache(self) -> ImageCache | None:
        """The cache of this source, if it keeps pictures."""
        return ImageCache(self.path, self.max_bytes) if self.path is not None else None

    def load(
        self,
        urls: list[str],
        cancel: threading.Event,
        before_fetch: Callable[[dict[str, CheckedImage]], None] | None = None,
    ) -> LoadedImages:
        """Worker: the pictures of ``urls``, kept ones without the network, new ones kept.

        ``before_fetch`` gets the kept pictures when others must come from the web first, so
        the reader can show the item without waiting for the network.
        """
        wanted = wanted_images(urls, self.policy)
        cache = self.cache()
        kept: dict[str, CheckedImage] = {}
        if cache is not None and wanted:
            try:
                kept = cache.images(wanted)
            except (sqlite3.Error, OSError) as exc:
                log.warning("kept pictures not read: %s", exc)
        missing = [url for url in wanted if url not in kept]
        if missing and before_fetch is not None:
            before_fetch(kept)
        fetched = fetch_images(missing, cancel, self.policy) if missing else FetchedImages()
        if cache is not None and fetched.images:
            try:
                cache.keep(fetched.images)
            except (sqlite3.Error, OSError) as exc:
                # Shown now all the same; only offline reading later is lost.
                log.warning("fetched pictures not kept: %s", exc)
        return LoadedImages({**kept, **fetched.images}, dict(fetched.refused), set(kept))

    def item_allowed(self, entity_id: str) -> bool:
        """Worker: whether the person asked for this item's pictures before."""
        cache = self.cache()
        if cache is None:
            return False
        try:
            return cache.item_allowed(entity_id)
        except (sqlite3.Error, OSError) as exc:
            log.warning("the choice to show an item's pictures was not read: %s", exc)
            return False

    def allow_item(self, entity_id: str) -> None:
        """Worker: remember that the person asked for this item's pictures."""
        cache = self.cache()
        if cache is not None:
            cache.allow_item(entity_id)
