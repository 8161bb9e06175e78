"""One process at a time syncs a data folder and sends its outbox.

Two processes pulling into one cache resume each other's pass from its bookmarks, and a drain
that starts while another process is sending a save takes that save, still ``sending``, for
one a crash left behind and sends it again. So a sync (the command's or the window's) and a
save's sending hold an exclusive lock on ``sync.lock`` in the data folder; saves queued
meanwhile are sent by the holder before it lets go (:func:`release_and_hand_over`). The
operating system drops the lock when its process ends, however it ends: a killed sync never
leaves the folder locked.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from memex_desktop.store.errors import SaveBeingSent
from memex_desktop.sync.types import SyncReport

if TYPE_CHECKING:
    from memex_desktop.store import Outbox

_log = logging.getLogger(__name__)

# How often a wait for the lock looks again (a lock file has no wake-up of its own).
POLL_S = 0.1
# Windows locks byte ranges, and a locked byte cannot be read by others: the lock is taken
# on a byte far past the holder's process id, which stays readable.
_WINDOWS_LOCK_OFFSET = 1 << 20


class DueSaves(Protocol):
    """What :func:`release_and_hand_over` asks the outbox."""

    def due_count(self, now: float | None = None) -> int:
        """Queued saves a drain would send now."""
        ...


class FolderLock:
    """The exclusive lock on a data folder's ``sync.lock``; not reentrant, one per holder."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def acquire(self, *, wait_s: float = 0.0, cancel: threading.Event | None = None) -> bool:
        """Take the lock, waiting up to ``wait_s`` (or until ``cancel`` is set) while another
        holder has it; whether it was taken."""
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + wait_s
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            if _try_lock(fd):
                self._fd = fd
                self._write_holder(fd)
                return True
            os.close(fd)
            left = deadline - time.monotonic()
            if left <= 0 or (cancel is not None and cancel.is_set()):
                return False
            if cancel is not None:
                cancel.wait(min(POLL_S, left))
            else:
                time.sleep(min(POLL_S, left))

    def release(self) -> None:
        """Let go of the lock (nothing when it is not held)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    def holder(self) -> int | None:
        """The process id the holder wrote into the file (None when unknown)."""
        try:
            text = self.path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    @staticmethod
    def _write_holder(fd: int) -> None:
        """Write this process's id, for the words of those who find the folder locked."""
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except OSError as exc:  # the lock holds anyway; only the words lose the id
            _log.info("could not write the holder of %s: %s", fd, exc)

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        """Take the lock without waiting; whether it was taken."""
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        """Take the lock without waiting; whether it was taken (``flock`` belongs to the
        open file, so even two opens in one process exclude each other)."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def release_and_hand_over(
    lock: FolderLock, outbox: DueSaves, drain: Callable[[], SyncReport]
) -> list[SyncReport]:
    """Let go of ``lock``, first sending what was queued while it was held; the reports of
    the drains this took.

    A save queued while another process holds the lock is not sent by the process that
    queued it: that one says the holder sends it. So the holder looks again after letting
    go: a save queued before that look is sent by it (taking the lock again, unless the
    process that queued the save took it first and sends it itself); one queued after it
    found the lock free. A drain that does not end well (offline, refused) leaves what is
    queued for the next sync instead of trying again and again.
    """
    reports: list[SyncReport] = []
    while True:
        if lock.held and outbox.due_count():
            report = drain()
            reports.append(report)
            if not report.ok:
                lock.release()
                return reports
        lock.release()
        if not outbox.due_count() or not lock.acquire():
            return reports


def drop_save(outbox: Outbox, op_id: int, lock_path: Path) -> bool:
    """Forget a save the person gave up on; False when there is none.

    A save on its way cannot be called back: dropping it then would say it was given up
    while the server still receives it. Every send holds the folder's lock, so a save found
    ``sending`` while the lock can be taken was left so by a process that ended mid-send,
    and is dropped as the person asked.

    Raises:
        SaveBeingSent: a sync (of this process or another) is sending it now.
    """
    if outbox.drop(op_id, unless_sending=True):
        return True
    if outbox.get(op_id) is None:
        return False
    with FolderLock(lock_path) as lock:
        if not lock.acquire():
            raise SaveBeingSent(op_id)
        return outbox.drop(op_id)
