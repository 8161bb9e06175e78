"""Compose a note or a reply: plain text, ``[[`` to reference a cached item, drop a URL to cite it.

The note is saved through the outbox as an ``annotation`` (so it works offline and survives a
crash); the payload is built by :func:`annotation_payload`, which is pure and tested alone.
Ctrl+Enter saves; Escape (or Cancel, or closing the editor) asks before it throws away words
the person typed. Until the note is saved its words are kept as a draft (``drafts.json``, a
moment after each change and when the window closes): an editor opened later on the same item
or note starts from them, with the same client id, so the note is never sent twice.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from PySide6.QtCore import QMimeData, QStringListModel, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.api.content import type_label
from memex_desktop.drafts import Draft, DraftPassage, DraftReference, DraftStore, draft_key
from memex_desktop.errors import user_message
from memex_desktop.store import EnqueueResult, NoteQueue, StoreError, TitleSearch
from memex_desktop.store.errors import SearchLanguageError
from memex_desktop.sync.notes import (
    CLOSE,
    TRIGGER,
    PickedReference,
    annotation_payload,
)
from memex_desktop.ui.drops import judge_drop
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.tasks import Task, TaskRunner

log = logging.getLogger(__name__)

COMPLETIONS = 20
SAVE_KEYS = ("Ctrl+Return", "Ctrl+Enter")
# Typing pauses this long before the draft is written: a crash costs at most these words.
DRAFT_KEPT_AFTER_MS = 1000
RESTORED = "Your unsaved note is back, as you left it."


def quoted_passage(passage: str) -> str:
    """A passage as the markdown quote a new note starts with ("" for no passage)."""
    lines = passage.replace("\u2029", "\n").replace("\u2028", "\n").strip().splitlines()
    if not lines:
        return ""
    return "\n".join(f"> {line}".rstrip() for line in lines) + "\n\n"


def discard_question(parent: QWidget) -> QMessageBox:
    """ "Discard this note?" with Discard and Keep editing (the default, and Escape's answer)."""
    box = QMessageBox(parent)
    box.setObjectName("discardQuestion")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Discard this note?")
    box.setText("Discard this note?")
    box.setInformativeText("What you wrote has not been saved.")
    box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton("Keep editing", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    return box


def close_over_unkept_notes(parent: QWidget, count: int) -> bool:
    """Ask whether to close the window although ``count`` notes could not be kept as drafts:
    Keep writing (the default, and Escape's answer) or Close and discard."""
    box = QMessageBox(parent)
    box.setObjectName("unkeptNotesQuestion")
    box.setIcon(QMessageBox.Icon.Warning)
    notes = "a note" if count == 1 else f"{count} notes"
    box.setWindowTitle("Close without your notes?")
    box.setText(f"You are writing {notes} that could not be kept as a draft on this computer.")
    box.setInformativeText("Save them before you quit, or close and lose what you wrote.")
    discard = box.addButton("Close and discard", QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton("Keep writing", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.exec()
    return box.clickedButton() is discard


class NoteTextEdit(QPlainTextEdit):
    """Plain-text note editing with a ``[[`` completer over cached titles and URL drops."""

    reference_picked = Signal(str)
    url_dropped = Signal(str)
    save_requested = Signal()

    def __init__(self, reader: TitleSearch, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._reader = reader
        self.references: list[PickedReference] = []
        self._start: int | None = None
        self._ids: list[str] = []
        self._labels: list[str] = []
        self.completions = QStringListModel(self)
        self.completer = QCompleter(self.completions, self)
        self.completer.setWidget(self)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.activated[str].connect(self._on_completer_activated)  # type: ignore[index]
        self.setAcceptDrops(True)
        self.setAccessibleName("Note text")
        self.setAccessibleDescription("Type [[ to reference a saved item; drop a link to cite it")
        self.textChanged.connect(self._on_text_changed)

    # ------------------------------------------------------------------ [[ completion

    def _popup(self) -> QAbstractItemView:
        """The completer's list (Qt creates it on first use)."""
        popup = self.completer.popup()
        assert popup is not None
        return popup

    def pending_query(self) -> str | None:
        """What was typed after an open ``[[`` at the cursor, or None outside one."""
        if self._start is None:
            return None
        cursor = self.textCursor().position()
        text = self.toPlainText()
        if cursor < self._start or text[self._start - len(TRIGGER) : self._start] != TRIGGER:
            return None
        typed = text[self._start : cursor]
        return None if ("\n" in typed or CLOSE in typed) else typed

    @Slot()
    def _on_text_changed(self) -> None:
        """Open the completer after ``[[`` and refine it while typing."""
        text = self.toPlainText()
        position = self.textCursor().position()
        if self._start is None and text[max(0, position - 2) : position] == TRIGGER:
            self._start = position
        query = self.pending_query()
        if query is None:
            self._start = None
            self._popup().hide()
            return
        self._fill_completions(query)

    def _fill_completions(self, query: str) -> None:
        """Titles of cached items matching what was typed (newest first when nothing yet)."""
        try:  # what follows [[ is a title being typed; "type:x" in it is no error to show
            hits = self._reader.search(query, limit=COMPLETIONS) if query.strip() else []
        except SearchLanguageError:
            hits = []
        if not query.strip():
            hits = self._reader.search("", limit=COMPLETIONS)
        self._ids = [hit.id for hit in hits]
        self._labels = [f"{hit.title or hit.id} ({type_label(hit.type)})" for hit in hits]
        self.completions.setStringList(self._labels)
        if not self._labels:
            self._popup().hide()
            return
        rect = self.cursorRect()
        rect.setWidth(max(240, self._popup().sizeHintForColumn(0) + 24))
        self.completer.complete(rect)
        self._popup().setCurrentIndex(self.completions.index(0, 0))

    def pick(self, row: int) -> None:
        """Insert the completion at ``row`` as a reference, replacing the typed query."""
        if self._start is None or not 0 <= row < len(self._ids):
            return
        entity_id = self._ids[row]
        title = self._labels[row].rsplit(" (", 1)[0]
        self._insert_reference(PickedReference(entity_id, title), self._start - len(TRIGGER))
        self.reference_picked.emit(entity_id)

    def _insert_reference(self, ref: PickedReference, start: int) -> None:
        """Replace text from ``start`` to the cursor by the reference's marker."""
        self._start = None
        self._popup().hide()
        cursor = self.textCursor()
        end = cursor.position()
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(ref.marker + " ")
        self.setTextCursor(cursor)
        if ref not in self.references:
            self.references.append(ref)

    @Slot(str)
    def _on_completer_activated(self, label: str) -> None:
        """A completion was chosen with Enter or a click."""
        if label in self._labels:
            self.pick(self._labels.index(label))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Ctrl+Enter saves; the completer popup has Enter, Escape and arrows while open."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.save_requested.emit()
            event.accept()
            return
        popup = self._popup()
        if popup.isVisible() and event.key() in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
            Qt.Key.Key_Tab,
        ):
            index = popup.currentIndex()
            self.pick(index.row() if index.isValid() else 0)
            event.accept()
            return
        if popup.isVisible() and event.key() == Qt.Key.Key_Escape:
            self._start = None
            popup.hide()
            event.accept()
            return
        super().keyPressEvent(event)

    # ------------------------------------------------------------------ URL drops

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        """Links are accepted as drops (they become references), as well as text."""
        return bool(source.hasUrls()) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """A dropped web link is saved and cited; anything else is inserted as text."""
        payloads = {fmt: bytes(source.data(fmt).data()) for fmt in source.formats()}
        verdicts = [v for v in judge_drop(payloads) if v.accepted]
        if not verdicts:
            super().insertFromMimeData(source)
            return
        for verdict in verdicts:
            self.url_dropped.emit(verdict.url)

    def cite_url(self, url: str, entity_id: str | None) -> None:
        """Insert a reference to a saved (or still queued) URL at the cursor."""
        ref = PickedReference(entity_id, url, url)
        self._insert_reference(ref, self.textCursor().position())


@dataclass(frozen=True)
class QueuedUrl:
    """The outcome of queueing a dropped URL: the URL, the enqueue result or why it failed."""

    url: str
    result: EnqueueResult | None
    problem: str | None = None


def queue_note(
    outbox: NoteQueue,
    data: dict[str, Any],
    external_id: str,
    forget_draft: Callable[[], None] | None = None,
) -> EnqueueResult:
    """Worker: commit a note to the outbox (durable before this returns), then forget its draft.

    A draft that cannot be forgotten is only logged: the note is safe, and the draft carries
    its client id, so saving it again queues nothing new.
    """
    result = outbox.enqueue_entity(data, external_id=external_id)
    if forget_draft is not None:
        try:
            forget_draft()
        except OSError as exc:
            log.error("the note is queued but its draft could not be forgotten", exc_info=exc)
    return result


def queue_url(outbox: NoteQueue, url: str) -> QueuedUrl:
    """Worker: queue the save of a dropped URL; a store problem is reported, not raised."""
    try:
        return QueuedUrl(url, outbox.enqueue_url(url))
    except (StoreError, OSError) as exc:  # keep the note usable; the link is still cited
        log.error("could not queue a dropped link", exc_info=exc)
        problem = "The link is cited but could not be queued for saving. "
        return QueuedUrl(url, None, problem + message_line(user_message(exc)))


class NoteEditor(QDialog):
    """A small window to write a note on an item, or a reply to a note.

    With a ``runner`` the outbox writes (synchronous=FULL commits) run on a worker and the
    dialog closes when the note is durable; without one they run in the calling thread. With
    ``drafts`` the text is kept there until the note is queued or discarded, and a draft kept
    for the same target (and ``passage``) is where the editor starts; ``item_id`` is the item
    whose notes were shown, which a draft remembers to be reopened on.

    Signals:
        note_queued(str): the note was committed to the outbox (the op id as text).
        url_queued(str): a dropped URL was queued for saving (its op id, or "" when known).
    """

    note_queued = Signal(str)
    url_queued = Signal(str)

    def __init__(
        self,
        reader: TitleSearch,
        outbox: NoteQueue,
        *,
        target_id: str,
        target_label: str,
        is_reply: bool,
        runner: TaskRunner | None = None,
        draft: str = "",
        drafts: DraftStore | None = None,
        item_id: str = "",
        passage: DraftPassage | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("noteEditor")
        self._outbox = outbox
        self._runner = runner
        self._save_task: Task[EnqueueResult] | None = None
        self.target_id = target_id
        self.external_id = str(uuid.uuid4())
        self._drafts = drafts
        self._item_id = item_id
        self._passage = passage
        self._is_reply = is_reply
        self._label = target_label
        self.draft_key = draft_key(target_id, passage.quote if passage else "")
        self.setWindowTitle("Reply" if is_reply else "Add note")
        self.setAccessibleName(self.windowTitle())
        heading = QLabel(("Reply to: " if is_reply else "Note on: ") + target_label)
        heading.setWordWrap(True)
        self.editor = NoteTextEdit(reader, self)
        heading.setBuddy(self.editor)
        self.error = QLabel()
        self.error.setVisible(False)
        self.notice = QLabel(RESTORED)
        self.notice.setObjectName("draftRestored")
        self.notice.setVisible(False)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setAccessibleName("Save note")
        self.save_button.setToolTip("Save the note (Ctrl+Enter)")
        for keys in SAVE_KEYS:
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(self.save)
        self._draft = draft
        self.question: QMessageBox | None = None
        self.restored = self._restore_draft()
        text = self.restored.text if self.restored is not None else draft
        if text:
            self.editor.setPlainText(text)
            self.editor.moveCursor(QTextCursor.MoveOperation.End)
        self.notice.setVisible(self.restored is not None)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.notice)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self._keep_timer = QTimer(self)
        self._keep_timer.setSingleShot(True)
        self._keep_timer.setInterval(DRAFT_KEPT_AFTER_MS)
        self._keep_timer.timeout.connect(self.keep_draft)
        self.editor.textChanged.connect(self._on_editor_text_changed)
        self.editor.url_dropped.connect(self._on_editor_url_dropped)
        self.editor.save_requested.connect(self.save)
        self.resize(460, 260)

    # ------------------------------------------------------------------ drafts

    def _restore_draft(self) -> Draft | None:
        """The draft kept for this editor's target, its id and references taken over."""
        if self._drafts is None:
            return None
        kept = self._drafts.get(self.draft_key)
        if kept is None:
            return None
        self.external_id = kept.external_id
        self.editor.references = [
            PickedReference(ref.entity_id, ref.label, ref.url) for ref in kept.references
        ]
        return kept

    def as_draft(self) -> Draft:
        """What the editor holds now, as the draft kept for it."""
        return Draft(
            target_id=self.target_id,
            text=self.editor.toPlainText(),
            external_id=self.external_id,
            item_id=self._item_id,
            is_reply=self._is_reply,
            label=self._label,
            passage=self._passage,
            references=tuple(
                DraftReference(ref.entity_id, ref.label, ref.url) for ref in self.editor.references
            ),
        )

    @Slot()
    def keep_draft(self) -> bool:
        """Write the draft now (forget it when the editor holds nothing the person wrote).

        False when the person's words could not be written: the editor says why.
        """
        self._keep_timer.stop()
        if self._drafts is None:
            return True
        if not self.typed():
            self.forget_draft()
            return True
        try:
            self._drafts.keep(self.as_draft())
        except OSError as exc:
            log.error("could not keep the note's draft", exc_info=exc)
            self._say(
                "Your draft could not be kept on this computer; save the note before you quit. "
                + message_line(user_message(exc))
            )
            return False
        return True

    def forget_draft(self) -> None:
        """The person threw the note away (or erased it): its draft goes too."""
        self._keep_timer.stop()
        if self._drafts is None:
            return
        try:
            self._drafts.forget(self.draft_key)
        except OSError as exc:
            log.error("could not forget the discarded note's draft", exc_info=exc)

    def close_keeping_draft(self) -> bool:
        """The window is closing: keep the words as a draft and close without asking.

        An editor committing its note stays: the commit finishes (it is durable work) and
        forgets the draft written when Save was pressed. One whose words could not be kept
        stays open, saying why, and False is returned: the window asks before it closes.
        """
        if self._save_task is not None:
            return True
        if not self.keep_draft():
            self.raise_()
            return False
        if self.question is not None:
            self.question.hide()
        super().reject()
        return True

    @Slot()
    def _on_editor_text_changed(self) -> None:
        """Keep the draft once typing pauses (not while the note is being committed)."""
        if self._drafts is not None and self._save_task is None:
            self._keep_timer.start()

    def payload(self) -> dict[str, Any]:
        """The annotation data this editor would save now."""
        return annotation_payload(
            self.editor.toPlainText(),
            target_id=self.target_id,
            references=self.editor.references,
            external_id=self.external_id,
        )

    def typed(self) -> bool:
        """Whether the editor holds words the person wrote (more than the draft it began with)."""
        text = self.editor.toPlainText()
        return bool(text.strip()) and text.strip() != self._draft.strip()

    @Slot()
    def reject(self) -> None:
        """Escape, Cancel or closing: close, after asking when typed words would be lost.

        The question does not block (it is window-modal): the editor closes on Discard. While
        the note is being committed the editor stays: it closes once the note is safe.
        """
        if self._save_task is not None:
            return
        if self.typed():
            self.ask_discard()
            return
        self.forget_draft()  # nothing of the person's is left: a draft kept before goes
        super().reject()

    def discard_unkept(self) -> None:
        """The window closes over words that could not be kept: the person chose to lose
        them (see :func:`close_over_unkept_notes`)."""
        if self.question is not None:
            self.question.hide()
        super().reject()

    def ask_discard(self) -> QMessageBox:
        """Ask whether the typed note may be thrown away; the answer arrives as a click."""
        if self.question is None:
            self.question = discard_question(self)
            self.question.buttonClicked.connect(self._on_question_button_clicked)
        self.question.open()
        return self.question

    @Slot(QAbstractButton)
    def _on_question_button_clicked(self, button: QAbstractButton) -> None:
        """Discard closes the editor; Keep editing goes back to the text."""
        assert self.question is not None
        if self.question.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole:
            self.forget_draft()
            super().reject()
        else:
            self.editor.setFocus()

    @Slot()
    def save(self) -> None:
        """Queue the note in the outbox; the dialog closes once it is committed."""
        if self._save_task is not None:
            return
        if not self.editor.toPlainText().strip():
            self._say("Write something first.")
            return
        # Until the outbox has the note, the words being committed are the draft on disk.
        self.keep_draft()
        forget = partial(self._drafts.forget, self.draft_key) if self._drafts else None
        if self._runner is None:
            try:
                result = queue_note(self._outbox, self.payload(), self.external_id, forget)
            except (StoreError, OSError) as exc:
                self._on_note_failed(exc)
                return
            self._on_note_committed(result)
            return
        self.save_button.setEnabled(False)
        self._save_task = (
            self._runner.run(
                queue_note, self._outbox, self.payload(), self.external_id, forget, durable=True
            )
            .on_success(self._on_note_committed)
            .on_failure(self._on_note_failed)
        )

    @Slot(object)
    def _on_note_committed(self, result: EnqueueResult) -> None:
        """The note is durable in the outbox: announce it and close."""
        self._save_task = None
        op = result.op
        self.note_queued.emit(str(op.id) if op is not None else "")
        self.accept()

    @Slot(object)
    def _on_note_failed(self, exc: Exception) -> None:
        """Keep the text and say why (the same external_id makes a second try safe)."""
        self._save_task = None
        self.save_button.setEnabled(True)
        log.error("could not queue the note", exc_info=exc)
        self._say(
            "The note could not be stored on this computer; your text is still here. "
            + message_line(user_message(exc))
        )

    def _say(self, text: str) -> None:
        """Show a short problem message under the text."""
        self.error.setText(text)
        self.error.setAccessibleDescription(text)
        self.error.setVisible(True)

    @Slot(str)
    def _on_editor_url_dropped(self, url: str) -> None:
        """Queue the save of a dropped URL (on a worker when possible) and cite it."""
        if self._runner is None:
            self._on_url_queued(queue_url(self._outbox, url))
            return
        # A failure the worker does not report itself reaches the person through the bridge.
        self._runner.run(queue_url, self._outbox, url, durable=True).on_success(self._on_url_queued)

    @Slot(object)
    def _on_url_queued(self, queued: QueuedUrl) -> None:
        """Cite the dropped URL, by id when it is already in the library."""
        if queued.problem:
            self._say(queued.problem)
        result = queued.result
        self.editor.cite_url(queued.url, result.entity_id if result is not None else None)
        if result is not None:
            self.url_queued.emit(str(result.op.id) if result.op is not None else "")
