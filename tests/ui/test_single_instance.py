"""Single instance: a memex://entity/ID link handed to the running window, nothing else."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtNetwork import QLocalSocket
from support.window import WindowFactory, seeded_cache

from memex_desktop import app
from memex_desktop.app import AppContext, OpenedWindow, attach_single_instance, open_window
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.settings import CONNECTION_ENV_VARS
from memex_desktop.ui.dialogs import FirstRunDialog
from memex_desktop.ui.single_instance import (
    MAX_LINE_BYTES,
    EntityLink,
    InvalidLink,
    SingleInstance,
    parse_entity_url,
    send_to_running,
    server_name,
)

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints", "support raise")]


class Peer(QObject):
    """A second start of the app, event-driven so it shares the GUI thread with the server.

    (``send_to_running`` blocks; it runs before any window exists, in its own process: see
    ``test_a_new_process_hands_its_link_over``.)
    """

    def __init__(self, name: str, message: str) -> None:
        super().__init__()
        self.answer: str | None = None
        self.done = False
        self._message = message.encode("utf-8") + b"\n"
        self._received = b""
        self.socket = QLocalSocket(self)
        self.socket.connected.connect(self._on_socket_connected)
        self.socket.readyRead.connect(self._on_socket_ready_read)
        self.socket.disconnected.connect(self._on_socket_disconnected)
        self.socket.errorOccurred.connect(self._on_socket_error)
        self.socket.connectToServer(name)

    @Slot()
    def _on_socket_connected(self) -> None:
        self.socket.write(self._message)

    @Slot()
    def _on_socket_ready_read(self) -> None:
        self._received += bytes(self.socket.readAll().data())
        if b"\n" in self._received:
            self.answer = self._received.split(b"\n", 1)[0].decode()
            self.done = True

    @Slot()
    def _on_socket_disconnected(self) -> None:
        self._on_socket_ready_read()
        self.done = True

    @Slot(QLocalSocket.LocalSocketError)
    def _on_socket_error(self, _error: object) -> None:
        self.done = True

    def wait(self, qtbot: Any) -> str | None:
        qtbot.waitUntil(lambda: self.done, timeout=10_000)
        return self.answer


@pytest.mark.parametrize(
    ("link", "entity_id"),
    [
        ("memex://entity/abc-123", "abc-123"),
        ("MEMEX://ENTITY/web-local-first", "web-local-first"),
        (
            "memex://entity/9de9cfaa-4ba0-46a2-a000-000000000000",
            "9de9cfaa-4ba0-46a2-a000-000000000000",
        ),
    ],
)
def test_entity_links_are_accepted(link: str, entity_id: str) -> None:
    assert parse_entity_url(link) == EntityLink(entity_id)


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("memex://entity/video-1?t=42", EntityLink("video-1", "t-42")),
        ("memex://entity/video-1?t=90.5s", EntityLink("video-1", "t-90")),
        ("memex://entity/page-1#section-2", EntityLink("page-1", "section-2")),
        ("memex:entity/page-1", EntityLink("page-1")),
        ("memex://entity/page-1?utm=x", EntityLink("page-1")),
    ],
)
def test_links_the_app_writes_open_where_the_reader_would(link: str, expected: EntityLink) -> None:
    assert parse_entity_url(link) == expected


@pytest.mark.parametrize(
    "link",
    [
        "",
        "abc-123",
        "https://memex.garden/entity/abc",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "memex://view/abc",
        "memex://entity/",
        "memex://entity/a/b",
        "memex://entity/%2e%2e%2fetc",
        "memex://entity/" + "a" * 400,
        "memex://entity/a b",
    ],
)
def test_anything_else_is_refused(link: str) -> None:
    with pytest.raises(InvalidLink):
        parse_entity_url(link)


def test_server_name_is_per_data_folder_and_stable(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert server_name(one) == server_name(one)
    assert server_name(one) != server_name(two)
    assert server_name(one).startswith("memex-desktop-")
    assert len(server_name(one)) < 80


def test_nobody_listening_means_no_hand_off(tmp_path: Path, qapp: Any) -> None:
    assert send_to_running(server_name(tmp_path / "nobody"), "show") is None


@pytest.fixture
def guard(qapp: Any, tmp_path: Path) -> Iterator[SingleInstance]:
    instance = SingleInstance(server_name(tmp_path / "data"))
    assert instance.listen()
    yield instance
    instance.close()


def test_hand_off_of_an_entity_link(qtbot: Any, guard: SingleInstance) -> None:
    requested: list[EntityLink] = []
    guard.entity_requested.connect(requested.append)
    peer = Peer(guard.name, "open memex://entity/note-42?t=12")
    assert peer.wait(qtbot) == "ok"
    assert requested == [EntityLink("note-42", "t-12")]


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("open https://example.org/", "only memex://entity/<id>"),
        ("open memex://entity/../../x", "does not name an item"),
        ("delete everything", "unknown request"),
        ("open memex://entity/" + "x" * (MAX_LINE_BYTES + 10), "too long"),
    ],
)
def test_invalid_requests_are_refused(
    qtbot: Any, guard: SingleInstance, message: str, reason: str
) -> None:
    requested: list[EntityLink] = []
    guard.entity_requested.connect(requested.append)
    answer = Peer(guard.name, message).wait(qtbot)
    assert answer is not None
    assert answer.startswith("refused")
    assert reason in answer
    assert requested == []


def test_a_second_instance_does_not_take_over(qtbot: Any, guard: SingleInstance) -> None:
    second = SingleInstance(guard.name)
    try:
        assert not second.listen()
    finally:
        second.close()
    shown: list[bool] = []
    guard.show_requested.connect(lambda: shown.append(True))
    assert Peer(guard.name, "show").wait(qtbot) == "ok"
    assert shown == [True]


@pytest.fixture
def context(window_factory: WindowFactory) -> tuple[AppContext, dict[str, Any]]:
    """A window on a small cache, listening for later starts."""
    library = generate_library(30, seed=8, words_per_entity=30)
    return window_factory(library=library), library


def test_running_window_opens_the_handed_over_entity(qtbot: Any, context: Any) -> None:
    app_context, library = context
    guard = attach_single_instance(app_context, server_name(app_context.data_dir))
    assert guard is not None
    target = next(e["id"] for e in library["results"] if e["type"] == "web")
    opened: list[str] = []
    app_context.window.entity_opened.connect(opened.append)
    assert Peer(guard.name, f"open memex://entity/{target}").wait(qtbot) == "ok"
    qtbot.waitUntil(lambda: opened == [target], timeout=10_000)
    assert app_context.window.reader_pane.current_entity_id == target
    app_context.shutdown()
    assert send_to_running(guard.name, "show") is None


def test_a_new_process_hands_its_link_over(qtbot: Any, guard: SingleInstance) -> None:
    requested: list[EntityLink] = []
    guard.entity_requested.connect(requested.append)
    script = (
        "import sys\n"
        "from PySide6.QtCore import QCoreApplication\n"
        "from memex_desktop.ui.single_instance import send_to_running\n"
        "app = QCoreApplication([])\n"
        "print(send_to_running(sys.argv[1], 'open memex://entity/handed-over'))\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, guard.name], stdout=subprocess.PIPE, text=True
    )
    qtbot.waitUntil(lambda: process.poll() is not None, timeout=30_000)
    output, _ = process.communicate()
    assert output.strip() == "ok"
    assert requested == [EntityLink("handed-over")]


@pytest.mark.parametrize("link", ["https://example.org/", "memex://view/abc", "file:///etc/passwd"])
def test_start_with_anything_but_an_entity_link_is_refused(
    qapp: Any, link: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from types import SimpleNamespace

    from memex_desktop.app import run_gui

    assert run_gui(SimpleNamespace(url=link)) == 2
    assert "memex://entity/<id>" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "url", "quit_after_sync"),
    [
        (["memex://entity/abc"], "memex://entity/abc", False),
        (["--data-dir", "/tmp/x", "memex://entity/abc"], "memex://entity/abc", False),
        (["--demo", "--quit-after-sync"], None, True),
        ([], None, False),
    ],
)
def test_command_line_passes_the_link_and_quit_after_sync(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], url: str | None, quit_after_sync: bool
) -> None:
    import memex_desktop.app
    from memex_desktop import cli

    seen: list[Any] = []
    monkeypatch.setattr(memex_desktop.app, "run_gui", lambda args: seen.append(args) or 0)
    assert cli.main(argv) == 0
    assert seen[0].url == url
    assert seen[0].quit_after_sync is quit_after_sync
    assert seen[0].command is None


def test_a_link_opened_during_the_first_run_dialog_reaches_the_first_window(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first start asks how to begin (no key anywhere); a link clicked meanwhile starts a
    # second process, which must hand its link over instead of opening a second window.
    for name in CONNECTION_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    library = generate_library(20, seed=3, words_per_entity=20)
    target = next(e["id"] for e in library["results"] if e["type"] == "web")
    data_dir = tmp_path / "data"
    seeded_cache(data_dir, library)
    second_start: list[subprocess.CompletedProcess[str]] = []

    def first_run_dialog(dialog: FirstRunDialog) -> int:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memex_desktop",
                f"memex://entity/{target}",
                "--data-dir",
                str(data_dir),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            # The dialog's own event loop is what answers the second start.
            qtbot.waitUntil(lambda: process.poll() is not None, timeout=60_000)
        finally:
            if process.poll() is None:
                process.kill()
        out, err = process.communicate()
        second_start.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
        return FirstRunDialog.CONNECT

    monkeypatch.setattr(FirstRunDialog, "exec", first_run_dialog)
    monkeypatch.setattr(app, "show_settings_dialog", lambda *_args, **_kwargs: False)
    args = SimpleNamespace(
        api_url=None, api_key=None, data_dir=data_dir, demo=False, quit_after_sync=False
    )
    opened = open_window(args)
    assert isinstance(opened, OpenedWindow)
    try:
        qtbot.addWidget(opened.context.window)
        assert [done.returncode for done in second_start] == [0], second_start
        qtbot.waitUntil(
            lambda: opened.context.window.reader_pane.current_entity_id == target, timeout=10_000
        )
        # The first window keeps answering later starts.
        assert Peer(server_name(data_dir), "show").wait(qtbot) == "ok"
    finally:
        opened.context.shutdown()


def _start_args(data_dir: Path) -> SimpleNamespace:
    """What the command line hands a plain start of the window on ``data_dir``."""
    return SimpleNamespace(data_dir=data_dir, url=None, demo=False, quit_after_sync=False)


def test_a_start_handed_over_says_so(
    qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(app, "hand_off", lambda data_dir, url: True)
    assert open_window(_start_args(tmp_path / "data")) == 0
    err = capsys.readouterr().err
    assert "Memex is already open on" in err
    assert str(tmp_path / "data") in err


def test_a_start_beside_a_window_that_does_not_answer_says_why_it_ends(
    guard: SingleInstance,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The guard shares this thread, so it cannot answer: a window busy or hung.
    warned: list[str] = []
    monkeypatch.setattr(app.QMessageBox, "warning", lambda _p, _t, text: warned.append(text))
    assert open_window(_start_args(tmp_path / "data")) == 1
    assert "already open on" in capsys.readouterr().err
    assert len(warned) == 1
    assert "does not answer" in warned[0]


def test_a_later_start_brings_a_minimized_maximized_window_back_maximized(
    qtbot: Any, context: Any
) -> None:
    app_context, _library = context
    window = app_context.window
    guard = attach_single_instance(app_context, server_name(app_context.data_dir))
    assert guard is not None
    window.showMaximized()
    window.setWindowState(window.windowState() | Qt.WindowState.WindowMinimized)
    assert Peer(guard.name, "show").wait(qtbot) == "ok"
    qtbot.waitUntil(lambda: not window.isMinimized(), timeout=10_000)
    assert window.isMaximized()
    app_context.shutdown()
