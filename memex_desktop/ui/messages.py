"""The one voice of the window: a bridge that carries every message meant for the person.

Code anywhere in the GUI hands a :class:`~memex_desktop.errors.UserMessage` to
:meth:`MessageBridge.show`, or an exception to :meth:`MessageBridge.show_failure`, which asks
``errors.user_message`` for the words. The window shows what the bridge carries, each message
rendered one way by :func:`message_line`: what happened, then what to do about it. Tests
listen to ``shown`` instead of reading widgets.

A failure a fresh cache gets past (the window's cache found damaged) takes one path too,
whoever meets it: :meth:`MessageBridge.show_failure`, or :meth:`MessageBridge.note_failure`
for a pane that says it in its own place, word it as the window offers it and announce it
(``fresh_cache_met``) for the window to ask about.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from memex_desktop.errors import Level, UserMessage, cache_problem_message, fresh_cache_offer

log = logging.getLogger(__name__)

# How long the status bar keeps a message: the worse the news, the longer.
SHOWN_FOR_MS: dict[Level, int] = {"info": 5_000, "warning": 8_000, "error": 10_000}


def message_line(message: UserMessage) -> str:
    """A message as the window shows it: the text, then the action that fixes it."""
    parts = (message.text, message.action or "")
    return " ".join(part.strip() for part in parts if part.strip())


class MessageBridge(QObject):
    """Where messages for the person go; the window renders them (status bar, toast).

    Signals:
        shown(object): a UserMessage to show now.
        fresh_cache_met(object): a failure met (shown, or said by a pane) that starting with
            a fresh cache gets past: the window's cache is damaged (the store error).
    """

    shown = Signal(object)
    fresh_cache_met = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # The cache the window shows (None: no window yet), whose damage a fresh one gets past.
        self._cache_path: Path | None = None

    def watch_cache(self, cache_path: Path) -> None:
        """Word the failures of the cache at ``cache_path`` as the window offers a fresh one,
        and announce them (``fresh_cache_met``)."""
        self._cache_path = cache_path

    @Slot(object)
    def show(self, message: UserMessage) -> None:
        """Show a message to the person."""
        self.shown.emit(message)

    @Slot(str)
    def inform(self, text: str) -> None:
        """A passing notice (the status bar only)."""
        self.show(UserMessage("info", text))

    @Slot(str)
    def warn(self, text: str, action: str | None = None, *, lasting: bool = False) -> None:
        """Something the person should notice, and what to do about it; ``lasting``: shown
        until the person closes it (what became of their data, a file named)."""
        self.show(UserMessage("warning", text, None, action, lasting=lasting))

    def show_failure(self, exc: BaseException, context: str | None = None) -> UserMessage:
        """Say what went wrong, in the words of ``user_message``; ``context``: what failed.

        The exception and its traceback go to the log: the words are for the person, the log
        is for the report a bug needs.
        """
        message = self.note_failure(exc)
        if context:
            message = replace(message, text=f"{context}: {message.text}")
        log.warning("shown to the person: %s", message.text, exc_info=exc)
        self.show(message)
        return message

    def note_failure(self, exc: BaseException) -> UserMessage:
        """The words for ``exc``, for a pane that says them in its own place; where a fresh
        cache gets past it, those of the offer ("Start with a fresh cache: …", not "Delete
        cache.db…"), and it is announced: the window asks the person, once."""
        if self._cache_path is not None and fresh_cache_offer(exc, self._cache_path) is not None:
            self.fresh_cache_met.emit(exc)
        return cache_problem_message(exc, self._cache_path)
