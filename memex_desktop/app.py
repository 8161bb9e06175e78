"""The composition root of the desktop app: QApplication, store, client, sync and the window.

``build_main_window`` wires every collaborator (the same factory the end-to-end tests use),
with settings, credentials, client and sync engine from :mod:`memex_desktop.services`, as the
command line gets them; ``open_window`` adds the first-run choice, ``--demo`` (an in-process
emulator on loopback with the bundled demo library in a temporary data folder) and
``--quit-after-sync``; ``run_gui`` adds the QApplication, the process tuning
(:mod:`memex_desktop.runtime`), the crash handler and a clean shutdown.
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

# First, so that every module imported after Qt costs PySide6's import hook less (see there).
from memex_desktop.ui import pyside_hook  # noqa: F401

# isort: split

from PySide6.QtCore import QObject, QSettings, Qt, QTimer, Slot
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QWidget

from memex_desktop import paths, services, system_libs
from memex_desktop.api.errors import BadApiUrl
from memex_desktop.errors import (
    UPDATING_CACHE,
    ConnectionState,
    UserMessage,
    fresh_cache_offer,
    state_message,
    user_message,
)
from memex_desktop.runtime import (
    favour_the_gui_thread,
    return_freed_memory_periodically,
    settle_garbage_collector,
)
from memex_desktop.secrets import CredentialStore
from memex_desktop.services import Connection
from memex_desktop.settings import Settings
from memex_desktop.store.aside import move_aside
from memex_desktop.store.errors import KnownStoreError
from memex_desktop.ui import theme
from memex_desktop.ui.first_frames import after_first_results, show_first_frame
from memex_desktop.ui.garbage_collector import collect_garbage_on_this_thread
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.single_instance import (
    EntityLink,
    InvalidLink,
    SingleInstance,
    parse_entity_url,
    send_to_running,
    server_name,
)

# The store, the sync, the reader's pictures and the window's panes are imported by the
# functions that build them: a returning start shows the window's frame first, and importing
# them before it kept the frame waiting about 160 ms (see open_window).
if TYPE_CHECKING:
    from memex_desktop.api.client import MemexClient
    from memex_desktop.render.image_cache import ImageSource
    from memex_desktop.store import CacheReader, StoreWriter
    from memex_desktop.sync import OutboxPolicy, SyncReport
    from memex_desktop.ui.dialogs import ErrorDialog
    from memex_desktop.ui.sync_controller import SyncController
    from memex_desktop.ui.tasks import TaskRunner

# The dialogs are imported when one opens: a returning start opens none, and defining their
# Qt classes cost it about 20 ms before its first frame.

log = logging.getLogger(__name__)

ORGANIZATION = "memex-desktop"
APPLICATION = "memex-desktop"


@dataclass
class AppContext:
    """Everything build_main_window created, and how to shut it down in order."""

    runner: TaskRunner
    controller: SyncController
    writer: StoreWriter
    reader: CacheReader
    settings: Settings
    credentials: CredentialStore
    data_dir: Path
    client: MemexClient | None
    provider: Any = None  # the live "Sign in with Memex" TokenProvider, if signed in
    api_url: str = ""  # the API the client talks to
    # The key given for this session (--api-key, the demo's): still used once the settings
    # are saved, before a key in the keyring, until the person gives a key or signs in there.
    api_key: str | None = None
    # Whether the window shows the demo library: its server takes the demo's key only.
    demo: bool = False
    # What the settings file holds where this session uses other settings (the demo syncs
    # every minute); None when it uses the file's.
    saved_settings: Settings | None = None
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    _closed: bool = False
    # Built last: its Settings action is this context's open_settings.
    window: MainWindow = field(init=False)

    @property
    def closed(self) -> bool:
        """Whether shutdown() has run."""
        return self._closed

    def open_settings(self, parent: QWidget) -> None:
        """The window's Settings action: the dialog, applied when saved."""
        show_settings_dialog(self, parent)

    def use_credential_given(self) -> None:
        """The person gave a key or signed in (or out) in Settings: that is used from now
        on, not the --api-key given at start (the demo keeps its own: its server takes no
        other)."""
        if not self.demo:
            self.api_key = None

    def keep_text_size(self, percent: int) -> None:
        """The reader's text size changed (Ctrl+=, Ctrl+-, Ctrl+0): kept in the settings."""
        settings = self.settings.model_copy(update={"reader_text_size_percent": percent})
        try:
            self.save_settings(settings)
        except OSError as exc:
            self.window.messages.warn(user_message(exc).one_line())

    def save_settings(self, settings: Settings) -> None:
        """Write ``settings`` to the settings file and use them from now on.

        A setting this session uses in place of the saved one (the demo's one-minute sync)
        is written as it was saved, unless ``settings`` change it: only what the person
        changes is kept for later starts.

        Raises:
            OSError: the file could not be written (nothing changes then).
        """
        written = settings
        if self.saved_settings is not None:
            saved = self.saved_settings
            kept = {
                name: getattr(saved, name)
                for name in Settings.model_fields
                if getattr(settings, name) == getattr(self.settings, name)
                and getattr(self.settings, name) != getattr(saved, name)
            }
            written = settings.model_copy(update=kept)
        written.save()
        if self.saved_settings is not None:
            self.saved_settings = written
        self.settings = settings

    def shutdown(self) -> None:
        """Stop timers, syncs and workers, drain the writer, close connections (idempotent).

        Every timer of the window (search debounce, toasts, panes) and of the sync controller
        stops first, and the runner refuses new work, so nothing of this window runs later.
        """
        from memex_desktop.ui.readers import close_thread_readers

        if self._closed:
            return
        self._closed = True
        self.controller.shutdown()
        stop_timers(self.window)
        if self.window.isVisible():
            self.window.close()  # saves the layout; no repaint reads the closed cache later
        self.runner.shutdown()
        close_thread_readers()
        self.writer.close()
        self.reader.close()
        if self.controller.services.client is not None:
            self.controller.services.client.close()
        if self.provider is not None:
            self.provider.close()
        for cleanup in reversed(self.cleanups):
            try:
                cleanup()
            except Exception:  # one failing cleanup must not skip the others
                log.exception("cleanup failed")


def stop_timers(root: QObject) -> None:
    """Stop every QTimer owned (directly or not) by ``root``."""
    for timer in root.findChildren(QTimer):
        timer.stop()


def build_main_window(
    *,
    data_dir: Path,
    api_url: str | None = None,
    api_key: str | None = None,
    settings: Settings | None = None,
    credentials: CredentialStore | None = None,
    connection: Connection | None = None,
    qsettings: QSettings | None = None,
    client: MemexClient | None = None,
    outbox_policy: OutboxPolicy | None = None,
    sync_on_start: bool = True,
    runner_threads: int = 4,
    image_origin: str | None = None,
    connect_once_listed: bool = False,
    frame: MainWindow | None = None,
) -> AppContext:
    """Create the store, client, runner, sync controller and window (nothing global).

    Args:
        data_dir: folder of cache.db and outbox.db (created when missing).
        api_url: the API to talk to (default: the environment's, else the settings').
        api_key: the key for this run (default: as :func:`services.connect` finds one).
        connection: the URL and credentials already resolved (overrides api_url/api_key).
        client: a ready client (tests); overrides the connection's.
        outbox_policy: replaces the settings' outbox backoff (tests that must not wait).
        sync_on_start: start a sync as soon as the window exists.
        image_origin: a server whose pictures the reader loads although it is not on the
            public internet (the demo's emulator, which serves the demo library's pictures).
        connect_once_listed: show the cache first; the connection (keyring, remembered
            sign-in, client) is resolved, and the first sync started, once the window has
            painted its first results (see :func:`connect_window`, :func:`after_first_results`).
            Without a connection or client given only.
        frame: the window's frame a start has shown already (its qsettings are the ones
            given to it), in which the library is opened; default: a new window.
    """
    from memex_desktop.store import CacheReader, Outbox, StoreWriter
    from memex_desktop.ui.sync_controller import SyncController
    from memex_desktop.ui.tasks import TaskRunner

    if frame is not None and qsettings is not None:
        raise ValueError("a frame keeps the qsettings it was made with")
    settings = settings or Settings()
    credentials = credentials or CredentialStore()
    data_dir.mkdir(parents=True, exist_ok=True)
    cache_path = paths.cache_db_path(data_dir)
    writer = StoreWriter(cache_path, background=True)
    try:
        # Created (and recovered) before workers race for it.
        opened = Outbox(paths.outbox_db_path(data_dir))
        recovered = opened.recovery
        opened.close()
        reader = CacheReader(cache_path)
    except BaseException:
        writer.close()  # a start that stops here leaves no thread behind
        raise
    if connect_once_listed and (connection is not None or client is not None):
        raise ValueError("a connection or client given is used at once, not after a paint")
    runner = TaskRunner(max_threads=runner_threads)
    sync = services.sync_services(settings, None, writer, data_dir, policy=outbox_policy)
    controller = SyncController(
        sync,
        runner,
        interval_minutes=settings.sync_interval_minutes,
        connecting=connect_once_listed,
    )
    context = AppContext(runner, controller, writer, reader, settings, credentials, data_dir, None)
    context.api_key = api_key
    context.window = frame if frame is not None else MainWindow(qsettings=qsettings)
    try:
        context.window.open_library(
            reader=reader,
            runner=runner,
            controller=controller,
            cache_path=cache_path,
            outbox_path=sync.outbox_path,
            open_settings=context.open_settings,
            transcript_language=settings.transcript_language,
            allow_remote_images=settings.allow_remote_images,
            reader_item_text_mb=settings.reader_item_text_mb,
            reader_text_size_percent=settings.reader_text_size_percent,
            remember_reading_position=writer.set_reading_position,
            reader_images=reader_images(data_dir, settings, image_origin),
        )
    except BaseException:
        # A start that stops here (a cache that cannot be read, say) leaves no thread or
        # connection behind: the next try opens its own.
        context.shutdown()
        raise
    context.window.reader_pane.text_size_changed.connect(context.keep_text_size)
    apply_theme(settings.theme)
    if recovered is not None:
        context.window.messages.warn(recovered.message(), lasting=True)
    if connect_once_listed:

        def connect_later() -> None:
            if not context.closed:
                connect_window(context, api_url=api_url, api_key=api_key, sync=sync_on_start)

        after_first_results(context.window, connect_later)
    else:
        connect_window(
            context,
            connection=connection,
            client=client,
            api_url=api_url,
            api_key=api_key,
            sync=sync_on_start,
        )
    return context


def connect_window(
    context: AppContext,
    *,
    connection: Connection | None = None,
    client: MemexClient | None = None,
    api_url: str | None = None,
    api_key: str | None = None,
    sync: bool = True,
) -> None:
    """Give the window its connection and client; with ``sync``, sync at once if it can.

    The connection is resolved here (``api_url`` and ``api_key`` as :func:`services.connect`
    takes them) unless one is given; the client is made for it unless one is given (tests),
    and then how it signs in is not known here.
    """
    if connection is None:
        try:
            connection = services.connect(
                context.settings, api_url=api_url, api_key=api_key, key_store=context.credentials
            )
        except BadApiUrl as exc:  # the saved setting: the library opens, and Settings fix it
            context.window.messages.show(user_message(exc))
            return
    credential = None
    if client is None:
        client = services.make_client(context.settings, connection)
        credential = connection.credential
    context.client = client
    context.provider = connection.signed_in
    context.api_url = connection.api_url
    context.controller.set_client(client, credential)
    if context.provider is not None:
        context.window.status.showMessage("Signed in with Memex", 8000)
    if sync and client is not None:
        context.controller.sync_now()


def reader_images(data_dir: Path, settings: Settings, trusted: str | None) -> ImageSource:
    """Where the reader keeps the pictures loaded on request (images.db, image_cache_mb)."""
    from memex_desktop.render.image_cache import ImageSource
    from memex_desktop.render.remote_images import DEFAULT_POLICY, origin_of

    policy = DEFAULT_POLICY
    if trusted:
        policy = replace(policy, trusted_origins=frozenset({origin_of(trusted)}))
    return ImageSource.limited(paths.image_cache_path(data_dir), settings.image_cache_mb, policy)


def show_settings_dialog(
    context: AppContext, parent: QWidget, *, start_sign_in: bool = False
) -> bool:
    """Open the settings dialog and apply what was saved (key to the keyring, client rebuilt).

    A sign-in or sign-out done in the dialog applies even when the dialog is then cancelled.
    """
    from memex_desktop.ui.dialogs import SettingsDialog

    dialog = SettingsDialog(
        context.settings,
        has_key=context.credentials.get_api_key() is not None,
        key_in_memory_only=context.credentials.backend_is_memory,
        runner=context.runner,
        provider=context.provider,
        api_url_in_use=context.api_url,
        data_dir_in_use=context.data_dir,
        parent=parent,
    )
    # The demo (or --api-url) chose the server for this session: saving keeps it.
    session_url = context.api_url if dialog.api_url_fixed else None
    if start_sign_in and dialog.sign_in is not None and context.provider is None:
        dialog.sign_in.start()  # first run, "Sign in with Memex": the browser opens at once
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    signed_changed = dialog.provider is not context.provider
    if not accepted:
        if signed_changed:
            context.use_credential_given()
            apply_sign_in(context, dialog.provider)
        return False
    choice = dialog.choice()
    settings = context.settings.model_copy(
        update={
            "api_url": choice.api_url,
            "sync_interval_minutes": choice.sync_interval_minutes,
            "data_dir": choice.data_dir,
            "theme": choice.theme,
        }
    )
    try:
        context.save_settings(settings)
    except OSError as exc:
        QMessageBox.warning(parent, "Settings not saved", user_message(exc).one_line())
        return False
    context.api_url = session_url or settings.effective_api_url()
    if choice.api_key:
        context.credentials.set_api_key(choice.api_key)
    if choice.api_key or signed_changed:
        context.use_credential_given()
    context.provider = dialog.provider
    rebuild_client(context)
    context.controller.set_interval(settings.sync_interval_minutes)
    apply_theme(settings.theme)
    return True


def apply_theme(setting: str) -> None:
    """Show ``setting``'s theme at once, where the application installed one."""
    controller = theme.installed()
    if controller is not None:
        controller.set_setting(setting)


def apply_sign_in(context: AppContext, provider: Any) -> None:
    """Use a new sign-in (or, with None, none): rebuild the client and say so."""
    context.provider = provider
    rebuild_client(context)
    context.window.status.showMessage(
        "Signed in with Memex" if provider is not None else "Signed out of Memex", 8000
    )


def rebuild_client(context: AppContext) -> None:
    """A client for the current settings, sign-in and key (a credential in the environment
    still wins); sync with it at once."""
    old = context.controller.services.client
    try:
        connection = services.connect(
            context.settings,
            api_url=context.api_url or None,
            api_key=context.api_key,
            key_store=context.credentials,
            stored_sign_in=lambda: context.provider,
        )
    except BadApiUrl as exc:
        context.window.messages.show(user_message(exc))
        return
    client = services.make_client(context.settings, connection)
    context.controller.services.settings = context.settings
    context.controller.set_client(client, connection.credential)
    context.client = client
    if old is not None and old is not client:
        old.close()
    if client is not None:
        context.controller.sync_now(resume_paused=True)


# --------------------------------------------------------------------------- running


def _install_excepthook(app: QApplication) -> None:
    """Uncaught exceptions (also in slots and threads) are logged and shown, never silent."""
    # With no window active the dialog has no parent to keep it: without this reference it
    # would be deleted as soon as the hook returns, before anyone saw it.
    latest_dialog: list[ErrorDialog] = []

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        log.critical("unexpected error", exc_info=(kind, exc, tb))
        detail = "".join(traceback.format_exception(kind, exc, tb))
        parent = app.activeWindow()
        from memex_desktop.ui.dialogs import ErrorDialog

        dialog = ErrorDialog(message_line(user_message(exc)), detail, parent)
        latest_dialog[:] = [dialog]
        dialog.open()

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        log.critical(
            "unexpected error in thread %s",
            args.thread.name if args.thread else "?",
            exc_info=(args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback),
        )

    sys.excepthook = hook
    threading.excepthook = thread_hook


def create_application() -> QApplication:
    """The QApplication (created once)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    app = QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("Memex")
    app.setDesktopFileName("memex-desktop")
    try:
        icon = paths.resource_path("icons", "memex-desktop.svg")
        if icon.is_file():
            app.setWindowIcon(QIcon(str(icon)))
    except (FileNotFoundError, OSError) as exc:
        log.info("resources not found (%s); default look", exc)
    # The saved theme from the first frame on (a window built later applies its own settings).
    theme.install(app, Settings.load().theme)
    return app


@dataclass
class DemoSession:
    """An emulator serving the demo library, and the temporary data folder."""

    emulator: Any
    data_dir: Path

    def close(self) -> None:
        """Stop the emulator and delete the temporary folder."""
        self.emulator.stop()
        shutil.rmtree(self.data_dir, ignore_errors=True)


def start_demo() -> DemoSession:
    """Start the emulator on loopback with resources/demo/library.json."""
    from memex_desktop.emulator import EmulatorConfig, run_emulator_in_thread

    library = paths.resource_path("demo", "library.json")
    media = paths.resource_path("demo", "media")
    config = EmulatorConfig(
        library_path=library if library.is_file() else None,
        media_dir=media if media.is_dir() else None,
    )
    emulator = run_emulator_in_thread(config, host="127.0.0.1", port=0)
    data_dir = Path(tempfile.mkdtemp(prefix="memex-demo-"))
    return DemoSession(emulator, data_dir)


class _Handoff(QObject):
    """Opens what another start of the app handed over, and brings the window forward.

    Until the window's library is built (the first-run dialog is still asking, or the
    window is a frame) links are kept and the dialog or the frame is raised instead; the
    window opens them once it is built.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window: MainWindow | None = None
        # What is on screen meanwhile: the first-run dialog, then the window's frame.
        self.waiting_dialog: QWidget | None = None
        self.pending: list[EntityLink] = []

    def attach(self, window: MainWindow) -> None:
        """From now on ``window`` answers later starts; it opens the links kept so far."""
        self.window = window
        self.waiting_dialog = None
        pending, self.pending = self.pending, []
        for link in pending:
            window.open_entity(link.entity_id, link.anchor)

    @Slot(object)
    def on_entity_requested(self, link: EntityLink) -> None:
        """``memex-desktop memex://entity/ID`` was run while this app was open."""
        if self.window is None:
            self.pending.append(link)
        else:
            self.window.open_entity(link.entity_id, link.anchor)
        self.on_show_requested()

    @Slot()
    def on_show_requested(self) -> None:
        """Raise the window (restored if minimised), or the dialog asked before it."""
        shown: QWidget | None = self.window if self.window is not None else self.waiting_dialog
        if shown is None:
            return
        if shown.isMinimized():
            # Back as it was before it was minimized: showNormal() would also unmaximize it.
            shown.setWindowState(shown.windowState() & ~Qt.WindowState.WindowMinimized)
        shown.show()
        shown.raise_()
        shown.activateWindow()
        # Window systems may refuse to raise a window at another program's request (Wayland
        # always does): the taskbar entry asks for attention instead.
        QApplication.alert(shown)


def listen_for_later_starts(
    name: str, parent: QObject | None = None
) -> tuple[SingleInstance, _Handoff] | None:
    """Listen on ``name`` for later starts (before any window: they may come while the
    first-run dialog asks); None when another instance holds it already."""
    guard = SingleInstance(name, parent if parent is not None else QApplication.instance())
    if not guard.listen():
        guard.deleteLater()
        return None
    handoff = _Handoff(guard)
    guard.entity_requested.connect(handoff.on_entity_requested)
    guard.show_requested.connect(handoff.on_show_requested)
    return guard, handoff


def attach_single_instance(context: AppContext, name: str) -> SingleInstance | None:
    """Listen for later starts on ``name`` for this window; None when another instance holds
    it already."""
    listening = listen_for_later_starts(name, context.window)
    if listening is None:
        return None
    guard, handoff = listening
    handoff.attach(context.window)
    context.cleanups.append(guard.close)
    return guard


def hand_off(data_dir: Path, entity_url: str | None) -> bool:
    """Give the link (or a request to show the window) to a running instance; True if taken."""
    message = f"open {entity_url}" if entity_url else "show"
    answer = send_to_running(server_name(data_dir), message)
    if answer is not None and answer != "ok":
        log.warning("the running instance refused the request: %s", answer)
    return answer == "ok"


def handed_over_words(data_dir: Path) -> UserMessage:
    """What a start that handed over to the window already open on ``data_dir`` says."""
    return UserMessage(
        "info",
        f"Memex is already open on {data_dir}: its window was asked to come forward.",
        None,
        "Look for it on the taskbar if it did not.",
    )


def not_answering_words(data_dir: Path) -> UserMessage:
    """Why a start ends when a window open on ``data_dir`` does not answer it."""
    return UserMessage(
        "warning",
        f"Memex is already open on {data_dir}, but it does not answer.",
        "One window at a time opens a data folder.",
        "Wait until that window responds and switch to it, or close it and start again.",
    )


class _QuitAfterSync(QObject):
    """Quits the app after the first sync, with status 0 on success (packaging smoke test)."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.app = app
        self.status = 1

    @Slot(object)
    def on_sync_finished(self, report: SyncReport) -> None:
        """The first sync ended: remember how, and quit once the event loop is back."""
        self.status = 0 if report.ok else 2
        QTimer.singleShot(0, self.app.quit)


@dataclass
class OpenedWindow:
    """A window open and shown, and what is left to do once the event loop runs."""

    context: AppContext
    # --quit-after-sync: the object holding the exit status.
    quitter: _QuitAfterSync | None = None
    # First run without the demo: open the settings (signing in at once when chosen).
    connect_now: bool = False
    start_sign_in: bool = False


def first_frame(*, demo: bool = False) -> MainWindow:
    """The window's frame (no panes yet), shown and painted (see :func:`show_first_frame`)."""
    frame = MainWindow(qsettings=QSettings(ORGANIZATION, APPLICATION))
    if demo:
        frame.set_library_label("Demo library")
    show_first_frame(frame)
    return frame


def open_window(args: Any, entity: EntityLink | None = None) -> OpenedWindow | int:
    """Everything a start does before the event loop: settings, credentials, the first-run
    choice, the demo, the window (opened on ``entity``); an exit status when no window
    opens (another instance took the request, or --quit-after-sync has nothing to sync)."""
    app = create_application()
    settings = Settings.load()
    credentials = CredentialStore()
    demo: DemoSession | None = None
    api_url: str | None = getattr(args, "api_url", None)
    api_key: str | None = getattr(args, "api_key", None)
    data_dir_arg = getattr(args, "data_dir", None)
    want_demo = bool(getattr(args, "demo", False))
    quit_after_sync = bool(getattr(args, "quit_after_sync", False))
    if (bad_url := services.given_api_url_problem(settings, api_url)) is not None:
        print(f"memex-desktop: {user_message(bad_url).one_line()}", file=sys.stderr)
        return 2
    single = not want_demo and not quit_after_sync
    listening: tuple[SingleInstance, _Handoff] | None = None
    if single:
        own_folder = settings.effective_data_dir(data_dir_arg)
        if hand_off(own_folder, getattr(args, "url", None)):
            print(f"memex-desktop: {handed_over_words(own_folder).one_line()}", file=sys.stderr)
            return 0
        listening = listen_for_later_starts(server_name(own_folder))
        if listening is None:
            # A window is open on the folder but did not take the request: a second window
            # would write the same cache alongside it, so this start ends, saying why.
            words = not_answering_words(own_folder)
            print(f"memex-desktop: {words.one_line()}", file=sys.stderr)
            QMessageBox.warning(None, "Memex", message_line(words))
            return 1
    connection: Connection | None = None
    first_choice: int | None = None  # what the first-run dialog answered, if it was shown
    start_sign_in = False
    # A start with a settings file is no first run, and its connection waits for the first
    # paint: the person sees their library without waiting for the keyring (see
    # build_main_window). --quit-after-sync needs it at once, to know whether it can sync.
    if not want_demo and (quit_after_sync or not Settings.path().exists()):
        try:
            connection = services.connect(
                settings, api_url=api_url, api_key=api_key, key_store=credentials
            )
        except BadApiUrl:
            connection = None  # the window opens on the library and says why (connect_window)
        if connection is not None and not quit_after_sync and services.first_run(connection):
            from memex_desktop.store.schema import cached_item_count
            from memex_desktop.ui.dialogs import FirstRunDialog

            dialog = FirstRunDialog(
                cached_items=cached_item_count(
                    paths.cache_db_path(settings.effective_data_dir(data_dir_arg))
                )
            )
            if listening is not None:
                listening[1].waiting_dialog = dialog
            first_choice = dialog.exec()
            want_demo = first_choice == FirstRunDialog.DEMO
            start_sign_in = first_choice == FirstRunDialog.SIGN_IN
            if first_choice == FirstRunDialog.LATER:
                # Chosen once: later starts open the library without asking again.
                first_choice = None
                settings.save()
    # The window's frame, painted before the library's modules are imported and its cache is
    # opened: the window is on screen 0.24 s after the start instead of 0.40 (bench_ui's
    # cold_start_ms at 10,000 items), and the library fills it.
    frame = first_frame(demo=want_demo)
    if listening is not None:
        listening[1].waiting_dialog = frame
    saved_settings: Settings | None = None
    if want_demo:
        demo = start_demo()
        data_dir = demo.data_dir
        # The demo syncs every minute, so that what is saved in it shows soon; saving the
        # settings in the demo keeps the person's own interval (AppContext.save_settings).
        saved_settings = settings
        settings = settings.model_copy(update={"sync_interval_minutes": 1})
        api_key = demo.emulator.api_key
        connection = services.connect(settings, api_url=demo.emulator.base_url, api_key=api_key)
    else:
        data_dir = settings.effective_data_dir(data_dir_arg)
    cache_path = paths.cache_db_path(data_dir)
    started_afresh: str | None = None
    context: AppContext | None = None
    failed: BaseException | None = None  # why the cache could not be opened, the person told
    # The frame answers the window system while a start asks or waits (the busy dialog of an
    # update, a question about the cache): the person may close it, which ends the start.
    while not frame.closed_before_library:
        try:
            # Said first, naming the folder and why (a read-only mount, no permission),
            # rather than as the first file that could not be opened in it.
            from memex_desktop.store.read_only import unwritable_folder

            stores = (cache_path, paths.outbox_db_path(data_dir))
            if (unwritable := unwritable_folder(data_dir, stores)) is not None:
                raise unwritable
            bring_cache_up_to_date(cache_path)
            if frame.closed_before_library:
                break
            context = build_main_window(
                data_dir=data_dir,
                api_url=api_url,
                api_key=api_key,
                settings=settings,
                credentials=credentials,
                connection=connection,
                image_origin=demo.emulator.base_url if demo is not None else None,
                connect_once_listed=connection is None,
                frame=frame,
            )
            break
        except (KnownStoreError, OSError) as exc:  # the data folder cannot be made, say
            from memex_desktop.ui.cache_start import CacheChoice, ask_about_cache

            if frame.library_started:  # half built: the next try starts from a new frame
                frame.close()
                frame.deleteLater()
                frame = first_frame(demo=want_demo)
                if listening is not None:
                    listening[1].waiting_dialog = frame

            offer = fresh_cache_offer(exc, cache_path)
            choice = CacheChoice.QUIT if quit_after_sync else ask_about_cache(exc, offer)
            problem: BaseException = exc
            if offer is not None and choice is CacheChoice.FRESH:
                try:
                    started_afresh = offer.done(move_aside(cache_path, offer.why))
                    continue
                except OSError as failure:  # the folder is read-only, say
                    QMessageBox.critical(None, "Memex", message_line(user_message(failure)))
                    problem = failure
            elif choice is CacheChoice.RETRY:
                continue
            print(f"memex-desktop: {user_message(problem).one_line()}", file=sys.stderr)
            failed = problem
            break
    if context is None:  # no library to show: the cache could not be opened, or was closed
        frame.close()
        frame.deleteLater()
        if listening is not None:
            listening[0].close()
        if demo is not None:
            demo.close()
        return 0 if failed is None else 1
    context.saved_settings = saved_settings
    context.demo = demo is not None
    if started_afresh is not None:
        context.window.messages.warn(started_afresh, lasting=True)
    if demo is not None:
        context.cleanups.append(demo.close)
        context.window.set_library_label("Demo library")
    if listening is not None:
        guard, handoff = listening
        # The demo chosen at first run is a library of its own: later starts no longer come
        # to it (links they hand over meanwhile still open here, in the window chosen).
        if demo is None:
            context.cleanups.append(guard.close)
        else:
            guard.close()
        handoff.attach(context.window)
    if entity is not None:
        context.window.open_entity(entity.entity_id, entity.anchor)
    opened = OpenedWindow(context)
    if quit_after_sync:
        if context.client is None:
            message = state_message(ConnectionState.NOT_CONFIGURED)
            print(f"memex-desktop: {message.one_line()}", file=sys.stderr)
            context.shutdown()
            return 2
        opened.quitter = _QuitAfterSync(app)
        context.controller.sync_finished.connect(opened.quitter.on_sync_finished)
    context.window.show()
    opened.connect_now = first_choice is not None and demo is None
    opened.start_sign_in = start_sign_in
    return opened


class FreshCacheStarts(QObject):
    """Builds the window again on a fresh cache when the person asks for one from a window
    whose cache turned out damaged (or newer) after it opened: the window's store is shut
    down, the cache kept aside, and the window opened again as the start opened it."""

    def __init__(self, app: QApplication, args: Any, opened: OpenedWindow) -> None:
        super().__init__(app)
        self._app = app
        self._args = args
        self.current = opened
        # The exit status when a fresh start could not open a window; None while one is open.
        self.status: int | None = None
        self._watch(opened.context)

    def _watch(self, context: AppContext) -> None:
        context.window.fresh_cache_requested.connect(self.on_fresh_cache_requested)
        self._app.aboutToQuit.connect(context.shutdown)

    @Slot(object)
    def on_fresh_cache_requested(self, problem: BaseException) -> None:
        """Ask, then start again on a fresh cache (the old one kept aside, as at start)."""
        from memex_desktop.ui.cache_start import CacheChoice, ask_about_cache

        context = self.current.context
        cache_path = paths.cache_db_path(context.data_dir)
        offer = fresh_cache_offer(problem, cache_path)
        if offer is None:
            return
        if ask_about_cache(problem, offer, context.window) is not CacheChoice.FRESH:
            return
        # The old window closes before the new one shows: that is no quit.
        self._app.setQuitOnLastWindowClosed(False)
        try:
            context.shutdown()
            kept = move_aside(cache_path, offer.why)
            opened = open_window(self._args)
        except Exception as exc:  # with the old window gone, any failure must end the app
            log.error("starting with a fresh cache failed", exc_info=exc)
            QMessageBox.critical(None, "Memex", message_line(user_message(exc)))
            self._stop(1)
            return
        finally:
            self._app.setQuitOnLastWindowClosed(True)
        if isinstance(opened, int):
            self._stop(opened)
            return
        self.current = opened
        self._watch(opened.context)
        opened.context.window.messages.warn(offer.done(kept), lasting=True)

    def _stop(self, status: int) -> None:
        """No window could open: the application ends with ``status``."""
        self.status = status
        self._app.exit(status)


def bring_cache_up_to_date(cache_path: Path) -> None:
    """Apply the migrations an older cache needs before anything opens it, on a thread of
    its own, the window system answered meanwhile (a busy dialog says why the start takes
    longer); nothing to do for a current or a new cache.

    Raises:
        KnownStoreError: the cache cannot be opened (damaged, newer, locked, disk full).
    """
    from memex_desktop.store.schema import migrations_pending, open_cache

    if migrations_pending(cache_path):
        from memex_desktop.ui.cache_start import Advance, run_with_progress

        words = UPDATING_CACHE
        advance = Advance()
        run_with_progress(
            lambda: open_cache(cache_path, progress=advance.report).close(),
            f"{words.text} {words.detail}",
            advance=advance,
        )


def run_gui(args: Any) -> int:
    """Open the window (``--demo``: on the bundled demo library); returns the exit status.

    With a ``memex://entity/ID`` link (``args.url``) a window already open on the same data
    folder opens it and this start ends; otherwise the new window opens it.
    """
    entity_url: str | None = getattr(args, "url", None)
    entity: EntityLink | None = None
    if entity_url is not None:
        try:
            entity = parse_entity_url(entity_url)
        except InvalidLink as exc:
            print(f"memex-desktop: {exc}", file=sys.stderr)
            return 2
    # Said before Qt aborts with its own words, which name a library whatever is missing.
    if (problem := system_libs.start_up_problem()) is not None:
        print(problem, file=sys.stderr)
        return 1
    favour_the_gui_thread()
    app = create_application()
    # Before any worker starts: a collection a worker starts can deadlock with the GUI thread.
    collect_garbage_on_this_thread(app)
    _install_excepthook(app)
    opened = open_window(args, entity)
    if isinstance(opened, int):
        return opened
    context = opened.context
    starts = FreshCacheStarts(app, args, opened)
    # What start-up allocated lives as long as the window: frozen out of every collection
    # (about 1.35 times the sync rate, see runtime.settle_garbage_collector), once the window
    # shows the library: the full collection before it takes about 25 ms.
    after_first_results(context.window, settle_garbage_collector)
    return_freed_memory_periodically()
    if opened.connect_now and context.client is None:
        show_settings_dialog(context, context.window, start_sign_in=opened.start_sign_in)
    status = app.exec()
    starts.current.context.shutdown()
    if starts.status is not None:
        return starts.status
    return opened.quitter.status if opened.quitter is not None else int(status)


def main() -> int:
    """``python -m memex_desktop.app``: the window with default options."""
    from memex_desktop.cli import main as cli_main

    return cli_main()
