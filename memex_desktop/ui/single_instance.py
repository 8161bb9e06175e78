"""One window per user and data folder: a second start hands its memex:// link to the first.

The running app listens on a local socket (``QLocalServer``) named after the user and the data
folder. ``memex-desktop memex://entity/ID`` first tries that socket: when an instance answers,
the link is handed over (the running window raises itself and opens the entity) and the new
process ends; otherwise it starts the app and opens the entity itself.

The protocol is one line each way, bounded in size: ``open memex://entity/ID`` or ``show``,
answered by ``ok`` or ``refused: reason``. Only ``memex://entity/<id>`` links are accepted, read
by the reader's own link policy (so ``?t=SECONDS`` and ``#anchor`` open where the reader would).
"""

from __future__ import annotations

import getpass
import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from memex_desktop.ui.links import classify_link

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 4096
CONNECT_TIMEOUT_MS = 1500
REPLY_TIMEOUT_MS = 3000
MAX_LINK_CHARS = 300


class InvalidLink(ValueError):
    """A link given on the command line or over the socket that the app does not open."""


@dataclass(frozen=True)
class EntityLink:
    """What a ``memex://entity/<id>`` link opens: the item, and where in it (or None)."""

    entity_id: str
    anchor: str | None = None


def parse_entity_url(text: str) -> EntityLink:
    """The item (and the place in it) a ``memex://entity/<id>`` link names.

    Raises:
        InvalidLink: for anything else (other schemes or hosts, extra path parts, bad ids).
    """
    candidate = text.strip()
    if len(candidate) > MAX_LINK_CHARS:
        raise InvalidLink("the link is too long")
    target = classify_link(candidate)
    if target.kind == "entity" and target.entity_id is not None:
        return EntityLink(target.entity_id, target.anchor)
    if candidate.lower().startswith(("memex://entity", "memex:entity")):
        raise InvalidLink("the link does not name an item")
    raise InvalidLink("only memex://entity/<id> links can be opened")


def server_name(data_dir: Path) -> str:
    """The socket name of the instance using ``data_dir`` for this user (stable, short)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no user name in the environment or the password database
        user = "user"
    folder = str(data_dir.expanduser().resolve())
    digest = hashlib.sha256(f"{user}\0{folder}".encode()).hexdigest()[:20]
    safe_user = re.sub(r"[^A-Za-z0-9_-]", "_", user)[:32]
    return f"memex-desktop-{safe_user}-{digest}"


def send_to_running(name: str, message: str) -> str | None:
    """Hand ``message`` to the instance listening on ``name``; its answer, or None if none runs.

    Blocking (bounded by timeouts): called at start-up before any window exists, or from a
    thread of its own.
    """
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
        return None
    try:
        socket.write(message.encode("utf-8")[: MAX_LINE_BYTES - 1] + b"\n")
        if not socket.waitForBytesWritten(REPLY_TIMEOUT_MS):
            return None
        answer = b""
        while b"\n" not in answer and len(answer) < MAX_LINE_BYTES:
            # The reply may already be buffered (read while the request was being written).
            if not socket.bytesAvailable() and not socket.waitForReadyRead(REPLY_TIMEOUT_MS):
                break
            answer += bytes(socket.readAll().data())
        return answer.split(b"\n", 1)[0].decode("utf-8", "replace") if answer else None
    finally:
        socket.abort()


def _someone_listens(name: str) -> bool:
    """Whether a live server accepts connections on ``name`` (no reply needed)."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    try:
        return bool(socket.waitForConnected(CONNECT_TIMEOUT_MS))
    finally:
        socket.abort()


class SingleInstance(QObject):
    """The running instance's end of the socket.

    Signals:
        entity_requested(object): another start asked to open this :class:`EntityLink`.
        show_requested(): another start asked to bring the window forward.
    """

    entity_requested = Signal(object)
    show_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        # No socket options: with them Qt binds elsewhere and renames over the name, which
        # would silently take the name from a running instance instead of failing.
        self._server.newConnection.connect(self._on_server_new_connection)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        """Start listening; a socket left over by a crashed instance is replaced."""
        if self._server.listen(self.name):
            return True
        if not _someone_listens(self.name):
            QLocalServer.removeServer(self.name)
            return bool(self._server.listen(self.name))
        log.info("another instance already listens on %s", self.name)
        return False

    def close(self) -> None:
        """Stop listening (the socket file is removed)."""
        self._server.close()
        for socket in list(self._buffers):
            socket.abort()
        self._buffers.clear()

    @Slot()
    def _on_server_new_connection(self) -> None:
        """Read each new peer's line as it arrives."""
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            self._buffers[socket] = b""
            socket.readyRead.connect(self._on_socket_ready_read)
            socket.disconnected.connect(self._on_socket_disconnected)
            if socket.bytesAvailable():  # sent before readyRead was connected
                self._read(socket)

    @Slot()
    def _on_socket_ready_read(self) -> None:
        """A peer sent bytes."""
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        """Collect a peer's bytes; answer once a full line (or too much) arrived."""
        if socket not in self._buffers:
            return
        data = self._buffers[socket] + bytes(socket.readAll().data())
        if len(data) > MAX_LINE_BYTES:
            self._answer(socket, "refused: message too long")
            return
        self._buffers[socket] = data
        if b"\n" in data:
            line = data.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
            self._answer(socket, self._handle(line))

    def _handle(self, line: str) -> str:
        """Act on one request line; the answer to send back."""
        if line == "ping":
            return "ok"
        if line == "show":
            self.show_requested.emit()
            return "ok"
        command, _, argument = line.partition(" ")
        if command != "open":
            return "refused: unknown request"
        try:
            link = parse_entity_url(argument)
        except InvalidLink as exc:
            return f"refused: {exc}"
        self.entity_requested.emit(link)
        return "ok"

    def _answer(self, socket: QLocalSocket, text: str) -> None:
        """Reply and let the peer go."""
        self._buffers.pop(socket, None)
        socket.write(text.encode("utf-8") + b"\n")
        socket.flush()
        socket.disconnectFromServer()

    @Slot()
    def _on_socket_disconnected(self) -> None:
        """Forget a peer that went away."""
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._buffers.pop(socket, None)
            socket.deleteLater()
