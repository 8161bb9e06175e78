"""Saving links: drops, the clipboard, undo, and the outbox pane's retry and drop.

Every link is queued in the outbox on a worker, committed before the toast says so, and sent by
the next sync: saving works offline and is never lost. A link that is not queued is named in
the toast with the reason. Undo removes saves not sent yet; the outbox answers which it could
remove, and the toast says exactly that: a save already sent stays in the library, and the
toast offers to open it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QMimeData, QObject, Signal, Slot
from PySide6.QtGui import QGuiApplication

from memex_desktop.errors import ConnectionState, queued_links_words, user_message
from memex_desktop.store import EnqueueResult, Outbox, OutboxOp, StoreError
from memex_desktop.store.save_description import (
    SavedItem,
    queued_items,
    saved_items,
    target_ids,
)
from memex_desktop.ui.drops import (
    MOZ_URL,
    PLAIN_TEXT,
    URI_LIST,
    DropVerdict,
    judge_drop,
    judge_url,
    read_shortcut_bounded,
)
from memex_desktop.ui.outbox_pane import OutboxPane
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.sync_controller import (
    OutboxCounts,
    SyncController,
    outbox_action,
    outbox_counts,
)
from memex_desktop.ui.tasks import Task, TaskRunner
from memex_desktop.ui.toast import Toast

log = logging.getLogger(__name__)

DROP_FORMATS = (URI_LIST, MOZ_URL, PLAIN_TEXT)
NOTHING_DROPPED = "Nothing to save in what was dropped."
NOTHING_ON_CLIPBOARD = "Nothing to save: the clipboard holds no link."


def mime_payloads(mime: QMimeData) -> dict[str, bytes]:
    """The link-carrying formats of a drag, as bytes."""
    return {fmt: bytes(mime.data(fmt).data()) for fmt in DROP_FORMATS if mime.hasFormat(fmt)}


def carries_links(mime: QMimeData) -> bool:
    """Whether a drag may carry links worth saving (its formats, not yet its content)."""
    return any(mime.hasFormat(fmt) for fmt in DROP_FORMATS)


@dataclass(frozen=True)
class QueuedLinks:
    """What queueing a drop did: one EnqueueResult per accepted link, and the refused ones.

    ``nothing_found`` is what to say when the drop or paste held no link at all.
    """

    results: list[EnqueueResult]
    refused: list[DropVerdict]
    nothing_found: str = NOTHING_DROPPED


@dataclass(frozen=True)
class StayingSave:
    """A save undo came too late for: sent (in the library) or on its way, with its item."""

    op_id: int
    url: str | None
    sent: bool
    entity_id: str | None


@dataclass(frozen=True)
class UndoResult:
    """The outbox's answer to an undo: saves removed, saves that stay, saves not there."""

    undone: list[int]
    staying: list[StayingSave]
    counts: OutboxCounts
    gone: list[int] = field(default_factory=list)

    @property
    def sent(self) -> list[StayingSave]:
        """The saves that stay because Memex has them."""
        return [save for save in self.staying if save.sent]

    @property
    def on_their_way(self) -> list[StayingSave]:
        """The saves that stay because they are being sent (or a try may have reached Memex)."""
        return [save for save in self.staying if not save.sent]


def enqueue_links(
    cache_path: Path, outbox_path: Path, urls: list[str]
) -> tuple[list[EnqueueResult], list[DropVerdict]]:
    """Worker: queue URL saves (each committed before the next), noting those already saved.

    When the outbox fails midway (a full disk), the links it did not take come back as not
    saved, with the words for why, so none is lost without being named; when it takes none,
    the failure is raised and told as such.
    """
    results: list[EnqueueResult] = []
    outbox = Outbox(outbox_path, cache_path=cache_path)
    try:
        for index, url in enumerate(urls):
            try:
                results.append(outbox.enqueue_url(url))
            except (StoreError, OSError) as exc:
                if not results:
                    raise
                log.warning("%d links not saved", len(urls) - index, exc_info=exc)
                words = user_message(exc)
                reason = " ".join(part for part in (words.text, words.action) if part)
                return results, [DropVerdict(left, False, reason) for left in urls[index:]]
        return results, []
    finally:
        outbox.close()


def queue_links(
    cache_path: Path, outbox_path: Path, accepted: list[str], refused: list[DropVerdict]
) -> QueuedLinks:
    """Worker: queue the accepted links (committed before returning)."""
    results, not_kept = enqueue_links(cache_path, outbox_path, accepted)
    return QueuedLinks(results, [*refused, *not_kept])


def queue_drop(
    cache_path: Path,
    outbox_path: Path,
    payloads: dict[str, bytes],
    read_file: Callable[[Path], bytes] | None,
    nothing_found: str,
) -> QueuedLinks:
    """Worker: find and judge every link of a drop or paste (shortcut files are read here, off
    the GUI thread, as is a long text), then queue the accepted ones."""
    verdicts = judge_drop(payloads, read_file=read_file)
    accepted = [v.url for v in verdicts if v.accepted]
    refused = [v for v in verdicts if not v.accepted]
    results, not_kept = enqueue_links(cache_path, outbox_path, accepted) if accepted else ([], [])
    return QueuedLinks(results, [*refused, *not_kept], nothing_found)


def undo_saves(cache_path: Path, outbox_path: Path, op_ids: list[int]) -> UndoResult:
    """Worker: remove queued saves that were never sent; say what became of the others."""
    outbox = Outbox(outbox_path, cache_path=cache_path)
    try:
        undone: list[int] = []
        staying: list[StayingSave] = []
        gone: list[int] = []
        for op_id in op_ids:
            answer = outbox.undo(op_id)
            if answer.undone:
                undone.append(op_id)
            elif answer.op is None:
                gone.append(op_id)
            else:
                staying.append(_staying_save(outbox, answer.op))
        return UndoResult(undone, staying, outbox_counts(outbox), gone)
    finally:
        outbox.close()


def _staying_save(outbox: Outbox, op: OutboxOp) -> StayingSave:
    """A save that stays, with its item: as the server named it, or as the cache has it."""
    sent = op.state in ("accepted", "confirmed")
    entity_id = op.entity_id
    if sent and entity_id is None and op.normalized_url:
        entity_id = outbox.known_in_cache(op.normalized_url)
    return StayingSave(op.id, op.url, sent, entity_id)


def list_outbox(outbox_path: Path) -> tuple[list[OutboxOp], OutboxCounts]:
    """Worker: every outbox operation and the counts."""
    outbox = Outbox(outbox_path)
    try:
        return outbox.list(), outbox_counts(outbox)
    finally:
        outbox.close()


@dataclass(frozen=True)
class OutboxListing:
    """One reading of the outbox for its pane: the saves, the counts, the items the notes and
    highlights are on (to say what each save is), and the number of the request it answers."""

    number: int
    ops: list[OutboxOp]
    counts: OutboxCounts
    items: dict[str, SavedItem]


def items_of_saves(cache_path: Path, ops: list[OutboxOp]) -> dict[str, SavedItem]:
    """Worker: the items the saves are on, read from the cache when it can be read; the saves
    are listed all the same when it cannot (each is then told by its own words)."""
    if not target_ids(ops) or not cache_path.is_file():
        return queued_items(ops)
    try:
        return saved_items(thread_reader(cache_path), ops)
    except StoreError as exc:
        log.warning("the outbox is listed without the items' titles", exc_info=exc)
        return queued_items(ops)


def numbered_listing(number: int, outbox_path: Path, cache_path: Path) -> OutboxListing:
    """Worker: :func:`list_outbox` and the items of its saves, with the number of the request
    it answers."""
    ops, counts = list_outbox(outbox_path)
    return OutboxListing(number, ops, counts, items_of_saves(cache_path, ops))


def _saves(count: int) -> str:
    """ "1 save", "2 saves"."""
    return f"{count} save{'s' if count != 1 else ''}"


def undo_text(result: UndoResult) -> str:
    """What the toast says after an undo: only what the outbox answered."""
    undone, gone = len(result.undone), len(result.gone)
    sent, on_way = len(result.sent), len(result.on_their_way)
    if sent and not (undone or on_way or gone):
        stays = "it stays" if sent == 1 else "they stay"
        return f"Already sent to Memex; {stays} in your library."
    if on_way and not (undone or sent or gone):
        return f"Too late to undo: {'it is' if on_way == 1 else 'they are'} on the way to Memex."
    if gone and not (undone or sent or on_way):
        which = "that save is" if gone == 1 else "those saves are"
        return f"Nothing to undo: {which} no longer in the outbox."
    if undone == 1 and not (sent or on_way or gone):
        return "Save undone."
    parts = [f"{_saves(undone)} undone"] if undone else []
    if sent:
        was, stays = ("was", "stays") if sent == 1 else ("were", "stay")
        parts.append(f"{sent} {was} already sent to Memex and {stays} in your library")
    if on_way:
        parts.append(f"{on_way} {'is' if on_way == 1 else 'are'} on the way to Memex")
    if gone:
        parts.append(f"{gone} no longer in the outbox")
    return "; ".join(parts) + "."


OPEN = "Open"
SHOW_IN_OUTBOX = "Show in outbox"


def undo_offer(result: UndoResult) -> tuple[str | int, str] | None:
    """What the notice after an undo offers for the saves that stay, as ``(token, label)``:
    the item of the one save that stays, when Memex named it (Open); the saves in the outbox
    otherwise (Show in outbox): the pane lists each with where it stands, and opens each
    one's item. None when no save stays.

    Several saves are never offered as one of them: Open would open only the first, and the
    notice speaks of them all."""
    if not result.staying:
        return None
    only = result.staying[0]
    if len(result.staying) == 1 and only.sent and only.entity_id:
        return only.entity_id, OPEN
    return only.op_id, SHOW_IN_OUTBOX


def queued_text(
    results: list[EnqueueResult],
    refused: list[DropVerdict],
    state: ConnectionState = ConnectionState.ONLINE,
) -> str:
    """What the toast says after a drop: saving (or, in a connection ``state`` that keeps
    saves waiting, queued and when they are saved), already waiting, already saved, not saved
    (listed below it)."""
    queued = sum(r.status == "queued" for r in results)
    waiting = sum(r.status == "already_queued" for r in results)
    saved = sum(r.status == "already_saved" for r in results)
    parts = []
    if queued:
        parts.append(queued_links_words(queued, state))
    if waiting:
        parts.append(f"{waiting} already waiting to be saved")
    if saved:
        parts.append(f"{saved} already in your library")
    if refused:
        parts.append(f"{len(refused)} not saved")
    return " · ".join(parts) + "." if parts else NOTHING_DROPPED


def refused_lines(refused: list[DropVerdict]) -> list[str]:
    """Every link that was not saved, listed under the reason it was refused for."""
    by_reason: dict[str, list[str]] = {}
    for verdict in refused:
        by_reason.setdefault(verdict.reason, []).append(verdict.url)
    lines: list[str] = []
    for reason, urls in by_reason.items():
        lines.append(reason)
        lines.extend(f"    {url}" for url in urls)
    return lines


class SaveController(QObject):
    """Queues links the person hands to the window and runs the outbox pane's actions.

    Signals:
        saves_queued(object, object): a drop or paste was handled (the EnqueueResults of the
            links queued or already saved, and the refused DropVerdicts).
        entity_found(str): a link handed over is already in the library (this entity), or the
            person asked to open the item of a save that undo came too late for.
        outbox_requested(): the person asked to see a save in the outbox pane.
    """

    saves_queued = Signal(object, object)
    entity_found = Signal(str)
    outbox_requested = Signal()

    def __init__(
        self,
        *,
        runner: TaskRunner,
        sync: SyncController,
        cache_path: Path,
        outbox_path: Path,
        toast: Toast,
        outbox_pane: OutboxPane,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._runner = runner
        self._messages = runner.messages
        self._sync = sync
        self._cache_path = cache_path
        self._outbox_path = outbox_path
        self._toast = toast
        self._outbox_pane = outbox_pane
        self._last_queued: list[int] = []  # what Ctrl+Z undoes
        # Listings run on workers and may finish out of order: only the newest is shown.
        self._listings_asked = 0
        self._listing_shown = 0
        toast.undo_requested.connect(self._on_toast_undo_requested)
        toast.open_requested.connect(self._on_toast_open_requested)
        outbox_pane.retry_requested.connect(self.retry)
        outbox_pane.drop_requested.connect(self.drop)
        sync.outbox_progressed.connect(self.refresh_outbox)

    # -- queueing ------------------------------------------------------------------------------

    def save_links(self, verdicts: list[DropVerdict]) -> Task[QueuedLinks] | None:
        """Queue the accepted links (on a worker); None when nothing could be saved."""
        accepted = [v.url for v in verdicts if v.accepted]
        refused = [v for v in verdicts if not v.accepted]
        if not accepted:
            self._on_links_queued(QueuedLinks([], refused))
            return None
        return (
            self._runner.run(
                queue_links, self._cache_path, self._outbox_path, accepted, refused, durable=True
            )
            .on_success(self._on_links_queued)
            .on_failure(self._on_links_queue_failed)
        )

    def save_urls(self, urls: list[str]) -> Task[QueuedLinks] | None:
        """Queue these URLs for saving (what a drop does)."""
        return self.save_links([judge_url(url) for url in urls])

    def save_dropped(
        self,
        mime: QMimeData,
        read_file: Callable[[Path], bytes] | None = read_shortcut_bounded,
    ) -> Task[QueuedLinks]:
        """Queue every web link of a drop (internet shortcut files are read, bounded)."""
        return self._save_payloads(
            mime_payloads(mime), read_file, QueuedLinks([], []).nothing_found
        )

    @Slot()
    def save_clipboard(self) -> Task[QueuedLinks] | None:
        """Queue the links on the clipboard (a copied link, or text that holds links)."""
        mime = QGuiApplication.clipboard().mimeData()
        if mime is None:
            return None
        payloads = mime_payloads(mime)
        if mime.hasText():
            payloads.setdefault(PLAIN_TEXT, mime.text().encode())
        return self._save_payloads(payloads, None, "Nothing to save: the clipboard holds no link.")

    def _save_payloads(
        self,
        payloads: dict[str, bytes],
        read_file: Callable[[Path], bytes] | None,
        nothing_found: str,
    ) -> Task[QueuedLinks]:
        """Find, judge and queue the links of a drop or paste on a worker."""
        return (
            self._runner.run(
                queue_drop,
                self._cache_path,
                self._outbox_path,
                payloads,
                read_file,
                nothing_found,
                durable=True,
            )
            .on_success(self._on_links_queued)
            .on_failure(self._on_links_queue_failed)
        )

    @Slot(object)
    def _on_links_queued(self, queued: QueuedLinks) -> None:
        """Say what happened to each link; point at one that was already saved."""
        results, refused = queued.results, queued.refused
        if refused:
            log.info("not saved: %s", "; ".join(f"{v.url} ({v.reason})" for v in refused))
        if not results:
            self._tell_nothing_queued(queued)
            return
        fresh = [r for r in results if r.status == "queued"]
        self._last_queued = [r.op.id for r in fresh if r.op is not None]
        self._toast.show_message(
            queued_text(results, refused, self._sync.state),
            self._last_queued or None,
            details=refused_lines(refused),
        )
        for result in results:
            if result.status == "queued":
                continue
            if result.entity_id:
                self.entity_found.emit(result.entity_id)
                break
            if result.op is not None:
                self._outbox_pane.select_op(result.op.id)
        self.saves_queued.emit(results, refused)
        self.refresh_outbox()
        if fresh:
            self._sync.sync_now()

    def _tell_nothing_queued(self, queued: QueuedLinks) -> None:
        """Nothing was queued: say there was no link, or name the refused one(s) and why (a
        notice that names a link not saved stays until it is closed)."""
        refused = queued.refused
        if not refused:
            self._toast.show_message(queued.nothing_found)
        elif len(refused) == 1:
            self._toast.show_message(
                f"Not saved: {refused[0].url} — {refused[0].reason}", stays=True
            )
        else:
            self._toast.show_message(queued_text([], refused), details=refused_lines(refused))
        self.saves_queued.emit([], refused)

    @Slot(object)
    def _on_links_queue_failed(self, exc: Exception) -> None:
        """The outbox could not take the saves: nothing was queued, and the person is told."""
        self._messages.show_failure(exc, "The links could not be queued")

    @Slot(str)
    def on_queued_elsewhere(self, _op_id: str) -> None:
        """A note, reply or cited link was queued by a pane: show it and try to send it."""
        self.refresh_outbox()
        self._sync.sync_now()

    # -- undo ----------------------------------------------------------------------------------

    @Slot()
    def undo_last(self) -> Task[UndoResult] | None:
        """Undo the saves queued last (Ctrl+Z); None when there is nothing to undo."""
        if not self._last_queued:
            return None
        return self.undo(self._last_queued)

    def undo(self, op_ids: list[int]) -> Task[UndoResult]:
        """Remove these saves unless they were sent already; the toast says which."""
        self._last_queued = [op_id for op_id in self._last_queued if op_id not in op_ids]
        return (
            self._runner.run(
                undo_saves, self._cache_path, self._outbox_path, list(op_ids), durable=True
            )
            .on_success(self._on_undo_finished)
            .on_failure(self._on_outbox_action_failed)
        )

    @Slot(object)
    def _on_toast_undo_requested(self, op_ids: object) -> None:
        """The toast's Undo button: the saves it announced."""
        if isinstance(op_ids, list) and op_ids:
            self.undo(op_ids)

    @Slot(object)
    def _on_toast_open_requested(self, token: object) -> None:
        """The toast's open button: a save's item in the reader, or the save in the outbox."""
        if isinstance(token, str):
            self.entity_found.emit(token)
        elif isinstance(token, int):
            self.outbox_requested.emit()
            self._outbox_pane.select_op(token)

    @Slot(object)
    def _on_undo_finished(self, result: UndoResult) -> None:
        """Say what the outbox could undo, offer to show what stays (undo_offer), show the
        outbox as it is."""
        text = undo_text(result)
        offer = undo_offer(result)
        if offer is None:
            self._toast.show_message(text)
        else:
            token, label = offer
            self._toast.show_message(text, open_token=token, open_label=label)
        self._on_outbox_action_finished(result.counts)

    # -- the outbox pane -----------------------------------------------------------------------

    @Slot(object)
    def retry(self, op_id: int) -> Task[OutboxCounts]:
        """Queue a save that needs attention again, then try to send it."""
        return self._outbox_action("retry", op_id)

    @Slot(object)
    def drop(self, op_id: int) -> Task[OutboxCounts]:
        """Give up on one save."""
        return self._outbox_action("drop", op_id)

    def _outbox_action(self, action: str, op_id: int) -> Task[OutboxCounts]:
        """Run one outbox action on a worker."""
        return (
            self._runner.run(outbox_action, self._outbox_path, action, op_id, durable=True)
            .on_success(self._on_outbox_action_finished)
            .on_failure(self._on_outbox_action_failed)
        )

    @Slot(object)
    def _on_outbox_action_finished(self, counts: OutboxCounts) -> None:
        """An outbox action went through: refresh and send what is queued."""
        self._sync.refresh_counts(counts)
        self.refresh_outbox()
        if counts.pending:
            self._sync.sync_now(resume_paused=True)

    @Slot(object)
    def _on_outbox_action_failed(self, exc: Exception) -> None:
        """An outbox action failed: say why and show the outbox as it is."""
        self._messages.show_failure(exc)
        self.refresh_outbox()

    def refresh_outbox(self) -> Task[OutboxListing]:
        """Reload the outbox pane and the counts (off the GUI thread)."""
        self._listings_asked += 1
        return self._runner.run(
            numbered_listing, self._listings_asked, self._outbox_path, self._cache_path
        ).on_success(self._on_outbox_listed)

    @Slot(object)
    def _on_outbox_listed(self, listed: OutboxListing) -> None:
        """Show the outbox operations and counts, unless a newer listing was shown already."""
        if listed.number < self._listing_shown:
            return
        self._listing_shown = listed.number
        self._outbox_pane.model.set_ops(listed.ops, listed.items)
        self._sync.refresh_counts(listed.counts)
