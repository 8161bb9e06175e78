"""The single writer: one thread owning the only read-write connection to cache.db."""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from memex_desktop.api.models import (
    ContentEntityBase,
    Feed,
    SearchRawPage,
    SearchRawResponse,
    View,
)
from memex_desktop.store import compaction, ingest, packing, terms
from memex_desktop.store.errors import DiskFullError, StoreBugError, StoreError, translate
from memex_desktop.store.extract import JsonObject
from memex_desktop.store.rows import ChangeSet
from memex_desktop.store.schema import BUSY_TIMEOUT_S, connect, open_cache
from memex_desktop.store.threads import lower_current_thread_priority

_log = logging.getLogger(__name__)

WriteTask = Callable[[Database], ChangeSet]
# Writes of at most this many entities (a save's answer, a remote search) are indexed for
# search before their future resolves. Larger ones (sync pages) are committed first, so a
# sync learns within milliseconds that its page is safe, and their rows are indexed from
# the texts ingest computed: at once when no task waits, else once FLUSH_BATCH_ROWS of
# them have come, in one transaction, so a full sync is searchable within a second of its
# last page. Indexed only after 20 ms without a task, as a backlog, they fell behind
# whenever pages came back to back: 24 s of indexing were left after the last page on the
# store benchmark (100,000 items), 32 s on the sync benchmark.
INLINE_INDEX_ROWS = 50
# Rows indexed per idle step (a backlog left by a crash or an extraction change): small
# enough (a few tens of milliseconds) that a page arriving meanwhile barely waits.
INDEX_BATCH_ROWS = 40
INDEX_AFTER_IDLE_S = 0.02
# Rows indexed per transaction by flush_index, and fresh rows indexed at once while tasks
# keep coming: a few hundred milliseconds of work, whose pages the checkpointer copies out
# of the WAL while the next batch runs. FTS5 writes a segment per transaction: 1,000 rows
# at once cost 0.23 ms each, 100 at once 0.26 ms, 40 at once 0.33 ms (20,000 generated
# items, the body index alone).
FLUSH_BATCH_ROWS = 1000
# After this many rows were indexed, the indexes are merged once writes have stopped for
# MERGE_AFTER_IDLE_S, a step of MERGE_STEP_PAGES pages (a few tens of milliseconds) at a
# time. Not in the gaps between a sync's pages: each merge leaves one large b-tree that the
# next merge rewrites, and the store benchmark's ingest (10,000 items) fell from 948 to 812
# items/s when merges ran 20 ms after each page.
MERGE_AFTER_ROWS = 2000
MERGE_STEP_PAGES = 256
MERGE_AFTER_IDLE_S = 1.0
# A compaction checks for waiting tasks every this many SQLite steps, so a write waits for it
# about that long: 0.7 ms apart on average, 1.3 ms at most, over the rewrite of the store
# benchmark's 100,000 items (10,000 steps were 12 ms apart).
COMPACT_CHECK_STEPS = 1000
# Most tasks one transaction takes from the queue (see StoreWriter._run_group).
GROUP_TASKS = 8
# The writer never copies the WAL back into the database itself (that, with its fsyncs, took
# a third of a sync page's commit): a checkpointer thread with a connection of its own does
# it alongside, at most this often while writes keep coming.
CHECKPOINT_INTERVAL_S = 0.25
# Frames committed while a checkpoint runs keep the WAL from starting over; past this size
# the writer finishes the copy itself between two tasks, so the WAL starts over from the
# beginning with the next transaction (and is truncated to journal_size_limit).
WAL_RESTART_BYTES = 32 * 1024 * 1024
# How long a transaction waits for the write lock another process holds on cache.db (another
# memex-desktop syncing, saving or compacting the same data folder) before its task fails as
# locked: longer than any one transaction of theirs (a compaction of a large library takes
# tens of seconds), so a running sync outlasts them instead of failing after BUSY_TIMEOUT_S.
LOCK_PATIENCE_S = 180.0
# How often a write that found the disk full tries to truncate the WAL while the checkpointer
# is busy with it (a fifth of a checkpoint interval apart).
TRUNCATE_ATTEMPTS = 25


_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def now_ms() -> int:
    """The current time in epoch milliseconds."""
    return int(time.time() * 1000)


def entity_json(entity: ContentEntityBase | JsonObject) -> JsonObject:
    """The JSON object of an entity: itself, the raw dict it came from, or its serialization."""
    if isinstance(entity, dict):
        return entity
    return entity.raw or entity.to_json_dict()


class StoreWriter:
    """Runs write tasks one at a time, each in one transaction, on a thread of its own.

    ``submit`` and the helpers return futures resolving to the task's ChangeSet (or raising
    its error: KnownStoreError for disk full / locked / damaged, anything else is a bug).
    """

    def __init__(self, path: Path, *, background: bool = False) -> None:
        """Open ``path`` on the writer thread; ``background`` lowers that thread's priority."""
        self.path = Path(path)
        self._background = background
        self._tasks: queue.Queue[tuple[WriteTask, Future[ChangeSet]] | None] = queue.Queue()
        self._opened: Future[None] = Future()
        self._closed = False
        self._lock = threading.Lock()
        # Texts computed by ingest for rows not indexed yet (used and cleared by the writer).
        self._memo: ingest.TextMemo = {}
        # Rows of large writes committed but not indexed yet (see INLINE_INDEX_ROWS).
        self._fresh_rows: list[int] = []
        # The cache's packing dictionary, read by the threads that hand in sync pages: they
        # pack the page's JSON themselves, which took a tenth of the writer's time.
        self._packing: packing.PackingDictionary | None = None
        # Rows indexed since the indexes were last merged (see MERGE_AFTER_ROWS).
        self._unmerged_rows = 0
        # Packing freed pages not yet given back to the file system (checked once at open).
        self._vacuum_due = True
        # A cache made before packing, packed, to be rewritten (see _rewrite_if_due).
        self._rewrite_due = False
        # Whether the library may have grown since compaction was last considered (see
        # store/compaction.py); considered again after COMPACT_AFTER_QUIET_S without writes.
        self._compaction_checked = False
        # Set by _next_job when the quiet moment it waited for is compaction's.
        self._compaction_turn = False
        # compact_now's futures, resolved by the loop between two transactions.
        self._compact_requests: list[Future[bool]] = []
        self._thread = threading.Thread(target=self._run, name="memex-store-writer", daemon=True)
        self._thread.start()
        self._opened.result()  # re-raises SchemaTooNewError and friends in the caller

    # ------------------------------------------------------------------ thread

    def _run(self) -> None:
        if self._background:
            lower_current_thread_priority()
        try:
            db = open_cache(self.path)
        except BaseException as exc:
            self._opened.set_exception(exc)
            return
        try:
            with self._transaction(db):
                ingest.rebuild_index_if_stale(db)
        except sqlite3.Error as exc:
            db.close()
            self._opened.set_exception(translate(exc, f"opening {self.path.name}", file=self.path))
            return
        db.execute("PRAGMA wal_autocheckpoint=0")
        checkpointer = _Checkpointer(self.path)
        self._opened.set_result(None)
        try:
            self._loop(db, checkpointer)
        finally:
            checkpointer.close()
            db.close()

    def _loop(self, db: Database, checkpointer: _Checkpointer) -> None:
        last_task = 0.0
        while True:
            try:
                job = self._next_job(db, last_task)
            except queue.Empty:
                if self._compaction_turn:
                    self._compact_if_due(db, interruptible=True)
                else:
                    self._run_task(db, self._idle_step, Future())
                    self._rewrite_if_due(db)
                checkpointer.poke()
                continue
            if job is None:
                self._drain_index(db)
                return
            group, closing = self._waiting_tasks(job)
            self._run_group(db, group)
            if len(self._fresh_rows) >= FLUSH_BATCH_ROWS:
                self._run_task(db, self._index_fresh_rows, Future())
            self._rewrite_if_due(db)
            self._compact_if_requested(db)
            if closing:
                self._drain_index(db)
                return
            checkpointer.poke()
            if checkpointer.restart_wanted:
                checkpointer.restart_wanted = False
                self._checkpoint(db)
            last_task = time.monotonic()

    def _next_job(
        self, db: Database, last_task: float
    ) -> tuple[WriteTask, Future[ChangeSet]] | None:
        """The next queued task (``None``: close); ``queue.Empty`` when it is the turn of
        work done while no write waits (compaction's when it sets ``_compaction_turn``)."""
        self._compaction_turn = False
        try:
            return self._tasks.get_nowait()  # a waiting task goes first, no backlog query
        except queue.Empty:
            if self._fresh_rows:
                raise  # nothing waits: the rows just written are indexed now
        # Index only once no write came for a moment: pages arriving back to back are not
        # held up, and the backlog is worked off in the gaps between them.
        if self._backlog(db):
            wait = INDEX_AFTER_IDLE_S
        elif (
            self._unmerged_rows >= MERGE_AFTER_ROWS
            or self._space_work_due(db)
            or not terms.is_complete(db.conn)
        ):
            wait = MERGE_AFTER_IDLE_S
        elif not self._compaction_checked:
            self._compaction_turn = True
            wait = compaction.COMPACT_AFTER_QUIET_S
        else:
            return self._tasks.get()
        quiet = wait - (time.monotonic() - last_task)
        if quiet <= 0:
            raise queue.Empty
        return self._tasks.get(timeout=quiet)

    def _waiting_tasks(
        self, first: tuple[WriteTask, Future[ChangeSet]]
    ) -> tuple[list[tuple[WriteTask, Future[ChangeSet]]], bool]:
        """``first`` and the tasks queued behind it (up to GROUP_TASKS), not cancelled; and
        whether the close sentinel came after them."""
        jobs = [first]
        closing = False
        while len(jobs) < GROUP_TASKS:
            try:
                job = self._tasks.get_nowait()
            except queue.Empty:
                break
            if job is None:
                closing = True
                break
            jobs.append(job)
        return [job for job in jobs if job[1].set_running_or_notify_cancel()], closing

    def _run_group(self, db: Database, jobs: list[tuple[WriteTask, Future[ChangeSet]]]) -> None:
        """Run tasks in one transaction, resolving their futures after COMMIT.

        A sync queues pages and bookmarks back to back: one commit for several writes fewer
        bytes (the index pages they share go to the WAL once) and waits less. Should any
        task or the commit fail, the transaction is rolled back and every task runs again
        in a transaction of its own, so the error reaches the task it belongs to, the others
        still succeed, and nothing that did not commit is acknowledged.
        """
        if len(jobs) <= 1:
            for task, future in jobs:
                self._run_task(db, task, future)
            return
        outcomes: list[tuple[Future[ChangeSet], ChangeSet]] = []
        try:
            with self._transaction(db):
                for task, future in jobs:
                    outcomes.append((future, task(db)))
        except BaseException:
            for task, future in jobs:
                self._run_task(db, task, future)
            return
        for future, changes in outcomes:
            future.set_result(changes)

    @contextmanager
    def _transaction(self, db: Database) -> Iterator[None]:
        """One write transaction holding the write lock from its start (``BEGIN IMMEDIATE``),
        committed at the end, rolled back on any error.

        A deferred ``BEGIN`` takes the lock at the first write, after the task's reads: when
        another process holds it then, or committed since those reads, SQLite fails at once,
        without the busy timeout (a read cannot become a write over a newer snapshot). That
        is how a ``save`` or a second ``sync`` on the same data folder killed a running sync.
        Taking the lock first makes the wait an ordinary one, see :meth:`_begin`.
        """
        self._begin(db)
        try:
            yield
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise
        try:
            db.conn.execute("COMMIT")
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise

    def _begin(self, db: Database) -> None:
        """Start a write transaction, waiting up to LOCK_PATIENCE_S for the write lock.

        Each attempt waits the connection's busy timeout; the attempts go on while another
        process keeps writing (its own sync, a compaction), and the task fails as locked
        only once the lock was held elsewhere for all that time.
        """
        started = time.monotonic()
        while True:
            try:
                db.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                code = getattr(exc, "sqlite_errorcode", None)
                if not isinstance(code, int) or code & 0xFF not in _BUSY_CODES:
                    raise
                waited = time.monotonic() - started
                if waited + BUSY_TIMEOUT_S > LOCK_PATIENCE_S:
                    raise
                _log.info(
                    "%s is being written by another process: still waiting after %.0f s",
                    self.path.name,
                    waited,
                )

    def _run_task(self, db: Database, task: WriteTask, future: Future[ChangeSet]) -> None:
        try:
            with self._transaction(db):
                changes = task(db)
        except sqlite3.Error as exc:
            failure = translate(exc, f"writing {self.path.name}", file=self.path)
            if isinstance(failure, StoreBugError):
                _log.error("store write failed: %s", exc)
            elif isinstance(failure, DiskFullError):
                self._truncate_wal(db)
            future.set_exception(failure)
        except BaseException as exc:
            future.set_exception(exc)
        else:
            future.set_result(changes)

    @staticmethod
    def _truncate_wal(db: Database) -> None:
        """Copy the WAL into cache.db and cut it to zero bytes: after a write failed for
        want of space (the disposable cache must not keep the space the outbox needs), and
        after a compaction (whose WAL held a copy of the whole file)."""
        try:
            for _attempt in range(TRUNCATE_ATTEMPTS):
                # (busy, frames, copied): busy while the checkpointer thread is mid-pass,
                # which no busy timeout waits for.
                row = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if row is None or int(row[0]) == 0:
                    return
                time.sleep(CHECKPOINT_INTERVAL_S / 5)
            _log.warning("the WAL stayed in use; it is truncated later")
        except sqlite3.Error as exc:
            _log.warning("could not truncate the WAL: %s", exc)

    @staticmethod
    def _checkpoint(db: Database) -> None:
        """Copy the frames the checkpointer has not reached yet (never blocks readers)."""
        try:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:
            _log.warning("WAL checkpoint failed: %s", exc)

    @staticmethod
    def _backlog(db: Database) -> bool:
        return db.execute("SELECT 1 FROM fts_pending LIMIT 1").fetchone() is not None

    def _index_batch(self, db: Database) -> ChangeSet:
        self._unmerged_rows += ingest.index_pending(db, INDEX_BATCH_ROWS, self._memo)
        if not self._backlog(db):
            self._memo.clear()
        return ChangeSet.empty()

    def _index_fresh_rows(self, db: Database) -> ChangeSet:
        """Index the rows the last tasks committed unindexed (should this fail, they stay
        queued in fts_pending for the idle steps)."""
        rows, self._fresh_rows = self._fresh_rows, []
        self._unmerged_rows += ingest.index_rows(db, rows, self._memo)
        if not self._backlog(db):
            self._memo.clear()
        return ChangeSet.empty()

    def _rewrite_if_due(self, db: Database) -> None:
        """Rewrite a cache made before packing once its rows are packed (outside any
        transaction): only a rewrite gives its free pages back, and makes later ones
        incremental."""
        if not self._rewrite_due:
            return
        self._rewrite_due = False
        try:
            compaction.rewrite(db)
        except sqlite3.Error as exc:
            # A full disk, most likely: the free pages are reused by later writes anyway.
            _log.warning("could not rewrite %s to give back its free pages: %s", self.path, exc)

    def _compact_if_due(self, db: Database, *, interruptible: bool) -> bool:
        """Rewrite the file with full pages if the library grew enough since the last time
        and the disk has room (outside any transaction); whether it did. ``interruptible``:
        a task submitted meanwhile stops it, to be tried again at the next quiet moment."""
        self._compaction_checked = True
        try:
            rows = compaction.rows_to_compact(db)
        except sqlite3.Error as exc:
            _log.warning("could not check whether %s wants compacting: %s", self.path, exc)
            return False
        if rows is None:
            return False
        if not compaction.has_room(self.path):
            _log.info("%s is not compacted: the disk has too little room", self.path)
            return False
        if interruptible:
            # SQLite asks every COMPACT_CHECK_STEPS steps whether to stop; a task waiting
            # (or the close) says yes. Unlike an interrupt from the thread that queued the
            # task, this cannot miss a task queued just before the rewrite began.
            db.conn.set_progress_handler(self._tasks_wait, COMPACT_CHECK_STEPS)
        try:
            compaction.rewrite(db)
        except sqlite3.Error as exc:
            interrupted = getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_INTERRUPT
            if interrupted:
                self._compaction_checked = False  # a write came: the next quiet moment
            else:
                _log.warning("could not compact %s: %s", self.path, exc)
            self._truncate_wal(db)
            if not interrupted:
                # Most likely no room for the temporary copy (SQLite's temporary folder can
                # be on another disk): not tried again until the library has grown as much.
                self._note_compacted(db, rows)
            return False
        finally:
            db.conn.set_progress_handler(None, 0)
        self._truncate_wal(db)
        self._note_compacted(db, rows)
        return True

    def _note_compacted(self, db: Database, rows: int) -> None:
        try:
            compaction.note_compacted(db, rows)
        except sqlite3.Error as exc:
            _log.warning("could not note the compaction of %s: %s", self.path, exc)

    def _tasks_wait(self) -> bool:
        """Whether a task (or the close) waits: a compaction's progress handler."""
        return not self._tasks.empty()

    def _compact_if_requested(self, db: Database) -> None:
        """Run the compaction compact_now asked for (not interrupted by writes)."""
        with self._lock:
            requests, self._compact_requests = self._compact_requests, []
        if not requests:
            return
        try:
            done = self._compact_if_due(db, interruptible=False)
        except BaseException as exc:
            for future in requests:
                future.set_exception(exc)
            raise
        for future in requests:
            future.set_result(done)

    def _space_work_due(self, db: Database) -> bool:
        """Whether rows wait to be packed or packing may have left free pages to give back."""
        return self._vacuum_due or packing.packing_due(db)

    def _space_step(self, db: Database) -> bool:
        """Pack a batch of stored JSON, or else give back a step of the pages packing and
        merging freed (and note whether the file wants its one rewrite); whether more is
        left to do."""
        if packing.pack_step(db):
            self._vacuum_due = True
            return True
        self._vacuum_due = packing.give_back_free_pages(db)
        self._rewrite_due = not self._vacuum_due and packing.rewrite_due(db)
        return self._vacuum_due

    def _idle_step(self, db: Database) -> ChangeSet:
        """Work done while no write waits: the rows just written first, then the index
        backlog, then packing stored JSON and giving back the pages it freed, then merging,
        then listing the words of the body index."""
        if self._fresh_rows:
            return self._index_fresh_rows(db)
        if self._backlog(db):
            return self._index_batch(db)
        if self._space_work_due(db):
            self._space_step(db)
            return ChangeSet.empty()
        if ingest.merge_index_step(db, MERGE_STEP_PAGES):
            self._unmerged_rows = 0
            # Merging leaves the pages of the b-trees it merged free.
            self._vacuum_due = True
            # Listed after merging, which would otherwise read every word again.
            terms.list_step(db.conn)
        return ChangeSet.empty()

    def _drain_index(self, db: Database) -> None:
        while self._backlog(db):
            future: Future[ChangeSet] = Future()
            self._run_task(db, self._index_batch, future)
            if future.exception() is not None:
                _log.warning("search indexing stopped: %s", future.exception())
                return

    # ------------------------------------------------------------------ API

    def submit(self, fn: WriteTask) -> Future[ChangeSet]:
        """Run ``fn(db)`` in one transaction on the writer thread."""
        future: Future[ChangeSet] = Future()
        with self._lock:
            if self._closed:
                raise StoreError("the store writer is closed")
            self._tasks.put((fn, future))
        return future

    def ingest_search_page(self, response: SearchRawResponse | SearchRawPage) -> Future[ChangeSet]:
        """Upsert a raw search page: results, extra/referenced entities, nested ones, tags,
        and edges from referencesByResultId, reference_content_ids and memex-reference nodes."""
        tops = [entity_json(entity) for entity in response.results]
        tops += [entity_json(entity) for entity in response.extra_entities]
        referenced = [entity_json(entity) for entity in response.referenced_entities]
        tags = [tag.to_json_dict() for tag in response.referenced_tags]
        references = {
            source: (refs.targets(), list(refs.tag_ids))
            for source, refs in response.references_by_result_id.items()
        }
        page = ingest.prepare_page(
            tops,
            referenced=referenced,
            tags=tags,
            references=references,
            packing=self._packing,
        )
        return self.submit(lambda db: self._ingest(db, page))

    def ingest_entities(self, entities: Sequence[ContentEntityBase]) -> Future[ChangeSet]:
        """Upsert complete entities (a save's answer, a remote search hit, an import)."""
        page = ingest.prepare_page(
            [entity_json(entity) for entity in entities], packing=self._packing
        )
        return self.submit(lambda db: self._ingest(db, page))

    def ingest_json(
        self,
        entities: Sequence[JsonObject],
        *,
        tags: Sequence[JsonObject] = (),
        references: ingest.References | None = None,
    ) -> Future[ChangeSet]:
        """Upsert entities given as decoded JSON (library files, exports), skipping pydantic."""
        page = ingest.prepare_page(
            entities, tags=tags, references=references, packing=self._packing
        )
        return self.submit(lambda db: self._ingest(db, page))

    def _ingest(self, db: Database, page: ingest.PreparedPage) -> ChangeSet:
        written: list[int] = []
        changes = ingest.apply_page(db, page, now_ms=now_ms(), memo=self._memo, written=written)
        # Once enough items came, the rest of a sync is packed as it is written.
        packing.train_if_due(db)
        self._packing = packing.codec_of(db).dictionary()
        if written:
            self._compaction_checked = False
        if len(written) <= INLINE_INDEX_ROWS:
            self._unmerged_rows += ingest.index_rows(db, written, self._memo)
        else:
            # Rows of a task that is rolled back and run again are listed twice: only
            # those still queued are indexed.
            self._fresh_rows += written
        return changes

    def upsert_views(self, views: Iterable[View]) -> Future[ChangeSet]:
        """Store saved views (definition kept as JSON)."""
        data = [view.to_json_dict() for view in views]
        return self.submit(lambda db: ingest.upsert_views(db, data))

    def record_feed_members(
        self, feed_id: str, entity_ids: Sequence[str], *, complete: bool
    ) -> Future[ChangeSet]:
        """Remember the items the server listed for a feed (all of them when ``complete``)."""
        ids = list(entity_ids)
        return self.submit(
            lambda db: ingest.record_feed_members(
                db, feed_id, ids, complete=complete, now_ms=now_ms()
            )
        )

    def upsert_feeds(self, feeds: Iterable[Feed]) -> Future[ChangeSet]:
        """Store feeds."""
        data = [feed.to_json_dict() for feed in feeds]
        return self.submit(lambda db: ingest.upsert_feeds(db, data))

    def mark_deleted_upstream(self, ids: Iterable[str]) -> Future[ChangeSet]:
        """Flag entities gone from the server (kept and listed, never erased)."""
        id_list = list(ids)
        return self.submit(lambda db: ingest.mark_deleted_upstream(db, id_list, now_ms()))

    def set_reading_position(self, entity_id: str, position: int) -> Future[ChangeSet]:
        """Remember the character at the top of the reader for an item."""
        return self.submit(
            lambda db: ingest.set_reading_position(db, entity_id, position, now_ms())
        )

    def set_sync_state(self, key: str, value: str) -> Future[ChangeSet]:
        """Persist a sync bookmark (page offset, newest timestamp, ...)."""
        return self.submit(lambda db: ingest.set_sync_state(db, key, value))

    def flush_index(self) -> Future[ChangeSet]:
        """Index every queued text now, FLUSH_BATCH_ROWS per transaction; resolves when
        search sees everything written so far.

        One transaction for the whole backlog kept every indexed page in the WAL until the
        end: after a million items, gigabytes of it, and nothing searchable before the end.
        """

        def flushed(db: Database) -> bool:
            indexed = ingest.index_pending(db, FLUSH_BATCH_ROWS, self._memo)
            self._unmerged_rows += indexed
            if indexed < FLUSH_BATCH_ROWS and not self._backlog(db):
                self._memo.clear()
                return True
            return False

        return self._until_done(flushed)

    def merge_index(self) -> Future[ChangeSet]:
        """Merge the search indexes fully now (else done in idle time after many rows were
        indexed), a step per transaction; resolves when nothing is left to merge."""

        def merged(db: Database) -> bool:
            if not ingest.merge_index_step(db, MERGE_STEP_PAGES):
                return False
            self._unmerged_rows = 0
            self._vacuum_due = True
            return True

        return self._until_done(merged)

    def list_terms(self) -> Future[ChangeSet]:
        """List the body index's words now (else done in idle time after merging, see
        store/terms.py), a step per transaction; resolves when the list is complete."""
        return self._until_done(lambda db: terms.list_step(db.conn))

    def pack_now(self) -> Future[ChangeSet]:
        """Pack every stored JSON still plain and give back the pages that frees (else done
        in idle time), a step per transaction; resolves when nothing is left to do."""
        return self._until_done(lambda db: not self._space_step(db))

    def compact_now(self) -> Future[bool]:
        """Compact the file now if it is due (else done once writes stop for a while, see
        store/compaction.py), without yielding to writes; resolves to whether it did."""
        future: Future[bool] = Future()
        with self._lock:
            if self._closed:
                raise StoreError("the store writer is closed")
            self._compact_requests.append(future)
            # A task that wakes the loop, which compacts once it has run.
            self._tasks.put((lambda db: ChangeSet.empty(), Future()))
        return future

    def _until_done(self, step_done: Callable[[Database], bool]) -> Future[ChangeSet]:
        """Run ``step_done`` as a task of its own again and again until it says it is done;
        the future resolves then (or with the first error).

        It resolves from one more task queued after the last step: tasks run one after the
        other, so by then the last step's transaction has committed and a reader told the
        work is done sees it. Resolved inside the step itself, it came before that commit.
        """
        future: Future[ChangeSet] = Future()

        def settle(db: Database) -> ChangeSet:
            if not future.done():
                future.set_result(ChangeSet.empty())
            return ChangeSet.empty()

        def step(db: Database) -> ChangeSet:
            # A step may run twice (a group of tasks that failed is run again one by one).
            try:
                done = step_done(db)
            except BaseException as exc:
                if not future.done():
                    future.set_exception(exc)
                raise
            self._queue_follow_up(settle if done else step, future)
            return ChangeSet.empty()

        self.submit(step)
        return future

    def _queue_follow_up(self, task: WriteTask, future: Future[ChangeSet]) -> None:
        """Queue the next task of :meth:`_until_done`, or fail its future if the writer is
        closing (a task queued behind the close would never run)."""
        with self._lock:
            if not self._closed:
                self._tasks.put((task, Future()))
                return
        if not future.done():
            future.set_exception(StoreError("the store writer is closed"))

    def close(self) -> None:
        """Finish queued tasks and the search index backlog, then close the connection."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._tasks.put(None)  # also stops a compaction, the next start's to finish
        self._thread.join()

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Checkpointer:
    """Copies committed WAL frames into cache.db on a thread and connection of its own.

    A PASSIVE checkpoint never blocks the writer or readers; once it has copied every frame,
    the writer's next transaction starts the WAL over from the beginning, so the file stays
    at what a few tenths of a second of writing add (plus what readers still hold). The last
    checkpoint is the writer connection's own, as it closes.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._wake = threading.Event()
        self._stop = threading.Event()
        # Set when the WAL outgrew WAL_RESTART_BYTES; the writer then checkpoints itself.
        self.restart_wanted = False
        self._thread = threading.Thread(
            target=self._run, name="memex-store-checkpoint", daemon=True
        )
        self._thread.start()

    def poke(self) -> None:
        """Note that a transaction committed (cheap: the thread checkpoints at its pace)."""
        self._wake.set()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = connect(self._path)
            conn.execute("PRAGMA wal_autocheckpoint=0")
            page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
            while not self._stop.is_set():
                self._wake.wait()
                self._wake.clear()
                if self._stop.is_set():
                    return
                # (busy, frames in the WAL, frames copied into the database)
                row = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if row is not None and int(row[1]) * page_size > WAL_RESTART_BYTES:
                    self.restart_wanted = True
                self._stop.wait(CHECKPOINT_INTERVAL_S)  # pace: one pass per interval at most
        except sqlite3.Error as exc:
            # The cache stays correct without checkpoints; its WAL only grows until close.
            _log.warning("WAL checkpoints stopped: %s", exc)
        finally:
            if conn is not None:
                conn.close()

    def close(self) -> None:
        """Stop the thread (the writer's connection checkpoints as it closes)."""
        self._stop.set()
        self._wake.set()
        self._thread.join()
