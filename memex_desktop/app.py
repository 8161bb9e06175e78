"""The composition root of the desktop app: QApplication, store, client, sync and the window.

``build_main_window`` wires every collaborator (the same factory the end-to-end tests use);
``run_gui`` adds the QApplication, first-run choice, ``--demo`` (an in-process emulator on
loopback with the bundled demo library in a temporary data folder), ``--quit-after-sync``,
the crash handler and a clean shutdown.
"""

from __future__ import annotations

import functools
import logging
import shutil
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, QSettings, QTimer, Slot
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QWidget

from memex_desktop import paths, signin
from memex_desktop.api.client import MemexClient
from memex_desktop.errors import user_message
from memex_desktop.runtime import settle_garbage_collector
from memex_desktop.secrets import CredentialStore
from memex_desktop.settings import Settings, given_credential
from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.sync import SyncReport
from memex_desktop.ui.dialogs import ErrorDialog, FirstRunDialog, SettingsDialog
from memex_desktop.ui.main_window import MainWindow
from memex_desktop.ui.readers import close_thread_readers
from memex_desktop.ui.single_instance import (
    InvalidLink,
    SingleInstance,
    parse_entity_url,
    send_to_running,
    server_name,
)
from memex_desktop.ui.sync_controller import SyncController, SyncServices
from memex_desktop.ui.tasks import TaskRunner

log = logging.getLogger(__name__)

ORGANIZATION = "memex-desktop"
# Workers run Python too; a short switch interval hands the interpreter lock back to the GUI
# thread within a millisecond of it asking (the default 5 ms, paid at every Python slot a
# paint or layout calls, adds up to visible stalls while a sync runs).
GUI_SWITCH_INTERVAL_S = 0.001
APPLICATION = "memex-desktop"


@dataclass
class AppContext:
    """Everything build_main_window created, and how to shut it down in order."""

    window: MainWindow
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
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    _closed: bool = False

    def shutdown(self) -> None:
        """Stop timers, syncs and workers, drain the writer, close connections (idempotent).

        Every timer of the window (search debounce, toasts, panes) and of the sync controller
        stops first, and the runner refuses new work, so nothing of this window runs later.
        """
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


def make_client(api_url: str, auth: signin.ClientAuth, settings: Settings) -> MemexClient | None:
    """An API client with the credentials :func:`signin.resolve_auth` chose, or None when
    there are none (the app then runs local-only)."""
    if not auth.present:
        return None
    return MemexClient(api_url, deadline_s=settings.request_timeout_s, **auth.client_kwargs())


def stored_sign_in(api_url: str) -> Any:
    """The sign-in remembered for ``api_url`` (keyring), or None; never raises."""
    try:
        return signin.token_provider(api_url)
    except Exception:  # a broken keyring or registry means "not signed in", never a crash
        log.exception("reading the stored sign-in failed")
        return None


def build_main_window(
    *,
    data_dir: Path,
    api_url: str | None = None,
    api_key: str | None = None,
    settings: Settings | None = None,
    credentials: CredentialStore | None = None,
    qsettings: QSettings | None = None,
    client: MemexClient | None = None,
    sync_on_start: bool = True,
    runner_threads: int = 4,
) -> AppContext:
    """Create the store, client, runner, sync controller and window (nothing global).

    Args:
        data_dir: folder of cache.db and outbox.db (created when missing).
        api_url: the API to talk to (default: the settings' effective URL).
        api_key: the key for this run (default: the credential store's).
        client: a ready client (tests); overrides api_url/api_key.
        sync_on_start: start a sync as soon as the window exists.
    """
    sys.setswitchinterval(min(sys.getswitchinterval(), GUI_SWITCH_INTERVAL_S))
    settings = settings or Settings()
    credentials = credentials or CredentialStore()
    data_dir.mkdir(parents=True, exist_ok=True)
    cache_path = paths.cache_db_path(data_dir)
    outbox_path = paths.outbox_db_path(data_dir)
    writer = StoreWriter(cache_path, background=True)
    Outbox(outbox_path).close()  # create the file (and recover it) before any worker races
    reader = CacheReader(cache_path)
    provider = None
    if client is None:
        url = settings.effective_api_url(api_url)
        auth = signin.resolve_auth(
            url,
            settings,
            api_key_flag=api_key,
            key_store=credentials,
            stored_sign_in=functools.partial(stored_sign_in, url),
        )
        provider = auth.provider
        client = make_client(url, auth, settings)
    runner = TaskRunner(max_threads=runner_threads)
    services = SyncServices(
        client=client,
        writer=writer,
        cache_path=cache_path,
        outbox_path=outbox_path,
        page_size=settings.page_size,
        reconcile_interval_s=settings.reconcile_interval_hours * 3600.0,
    )
    controller = SyncController(services, runner, interval_minutes=settings.sync_interval_minutes)
    context_holder: dict[str, AppContext] = {}

    def open_settings(window: MainWindow) -> None:
        show_settings_dialog(context_holder["context"], window)

    window = MainWindow(
        reader=reader,
        runner=runner,
        controller=controller,
        cache_path=cache_path,
        outbox_path=outbox_path,
        qsettings=qsettings,
        open_settings=open_settings,
        transcript_language=settings.transcript_language,
        allow_remote_images=settings.allow_remote_images,
    )
    context = AppContext(
        window, runner, controller, writer, reader, settings, credentials, data_dir, client
    )
    context.provider = provider
    context.api_url = settings.effective_api_url(api_url)
    if provider is not None:
        window.status.showMessage("Signed in with Memex", 8000)
    context_holder["context"] = context
    settle_garbage_collector()
    if sync_on_start and client is not None:
        controller.sync_now()
    return context


def show_settings_dialog(
    context: AppContext, parent: QWidget, *, start_sign_in: bool = False
) -> bool:
    """Open the settings dialog and apply what was saved (key to the keyring, client rebuilt).

    A sign-in or sign-out done in the dialog applies even when the dialog is then cancelled.
    """
    dialog = SettingsDialog(
        context.settings,
        has_key=context.credentials.get_api_key() is not None,
        key_in_memory_only=context.credentials.backend_is_memory,
        runner=context.runner,
        provider=context.provider,
        parent=parent,
    )
    if start_sign_in and dialog.sign_in is not None and context.provider is None:
        dialog.sign_in.start()  # first run, "Sign in with Memex": the browser opens at once
    accepted = dialog.exec() == QDialog.DialogCode.Accepted
    signed_changed = dialog.provider is not context.provider
    if not accepted:
        if signed_changed:
            apply_sign_in(context, dialog.provider)
        return False
    choice = dialog.choice()
    settings = context.settings.model_copy(
        update={
            "api_url": choice.api_url,
            "sync_interval_minutes": choice.sync_interval_minutes,
            "data_dir": choice.data_dir,
        }
    )
    try:
        settings.save()
    except OSError as exc:
        QMessageBox.warning(parent, "Settings not saved", user_message(exc).one_line())
        return False
    context.settings = settings
    context.api_url = settings.effective_api_url()
    if choice.api_key:
        context.credentials.set_api_key(choice.api_key)
    context.provider = dialog.provider
    rebuild_client(context)
    context.controller.set_interval(settings.sync_interval_minutes)
    return True


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
    api_url = context.api_url or context.settings.effective_api_url()
    auth = signin.resolve_auth(
        api_url,
        context.settings,
        key_store=context.credentials,
        stored_sign_in=lambda: context.provider,
    )
    client = make_client(api_url, auth, context.settings)
    context.controller.set_client(client)
    context.client = client
    if old is not None and old is not client:
        old.close()
    if client is not None:
        context.controller.sync_now(resume_paused=True)


# --------------------------------------------------------------------------- running


def _install_excepthook(app: QApplication) -> None:
    """Uncaught exceptions (also in slots and threads) are logged and shown, never silent."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        log.critical("unexpected error", exc_info=(kind, exc, tb))
        message = user_message(exc)
        detail = "".join(traceback.format_exception(kind, exc, tb))
        parent = app.activeWindow()
        dialog = ErrorDialog(f"{message.text} {message.action or ''}".strip(), detail, parent)
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
        style = paths.resource_path("style.qss")
        if style.is_file():
            app.setStyleSheet(style.read_text(encoding="utf-8"))
    except (FileNotFoundError, OSError) as exc:
        log.info("resources not found (%s); default look", exc)
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
    config = EmulatorConfig(library_path=library if library.is_file() else None)
    emulator = run_emulator_in_thread(config, host="127.0.0.1", port=0)
    data_dir = Path(tempfile.mkdtemp(prefix="memex-demo-"))
    return DemoSession(emulator, data_dir)


class _Handoff(QObject):
    """Opens what another start of the app handed over, and brings the window forward."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    @Slot(str)
    def on_entity_requested(self, entity_id: str) -> None:
        """``memex-desktop memex://entity/ID`` was run while this window was open."""
        self.window.open_entity(entity_id)
        self.on_show_requested()

    @Slot()
    def on_show_requested(self) -> None:
        """Raise the window (restored if minimised)."""
        if self.window.isMinimized():
            self.window.showNormal()
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()


def attach_single_instance(context: AppContext, name: str) -> SingleInstance | None:
    """Listen for later starts on ``name``; None when another instance holds it already."""
    guard = SingleInstance(name, context.window)
    if not guard.listen():
        return None
    handoff = _Handoff(context.window)
    guard.entity_requested.connect(handoff.on_entity_requested)
    guard.show_requested.connect(handoff.on_show_requested)
    context.cleanups.append(guard.close)
    return guard


def hand_off(data_dir: Path, entity_url: str | None) -> bool:
    """Give the link (or a request to show the window) to a running instance; True if taken."""
    message = f"open {entity_url}" if entity_url else "show"
    answer = send_to_running(server_name(data_dir), message)
    if answer is not None and answer != "ok":
        log.warning("the running instance refused the request: %s", answer)
    return answer == "ok"


class _QuitAfterSync:
    """Quits the app after the first sync, with status 0 on success (packaging smoke test)."""

    def __init__(self, app: QApplication) -> None:
        self.app = app
        self.status = 1

    @Slot(object)
    def on_sync_finished(self, report: SyncReport) -> None:
        self.status = 0 if report.ok else 2
        QTimer.singleShot(0, self.app.quit)


def run_gui(args: Any) -> int:
    """Open the window (``--demo``: on the bundled demo library); returns the exit status.

    With a ``memex://entity/ID`` link (``args.url``) a window already open on the same data
    folder opens it and this start ends; otherwise the new window opens it.
    """
    entity_url: str | None = getattr(args, "url", None)
    entity_id: str | None = None
    if entity_url is not None:
        try:
            entity_id = parse_entity_url(entity_url)
        except InvalidLink as exc:
            print(f"memex-desktop: {exc}", file=sys.stderr)
            return 2
    app = create_application()
    _install_excepthook(app)
    settings = Settings.load()
    credentials = CredentialStore()
    demo: DemoSession | None = None
    api_url: str | None = getattr(args, "api_url", None)
    api_key: str | None = getattr(args, "api_key", None)
    data_dir_arg = getattr(args, "data_dir", None)
    want_demo = bool(getattr(args, "demo", False))
    quit_after_sync = bool(getattr(args, "quit_after_sync", False))
    single = not want_demo and not quit_after_sync
    if single and hand_off(settings.effective_data_dir(data_dir_arg), entity_url):
        return 0
    first_choice = 0
    if not want_demo and not quit_after_sync and _first_run(settings, credentials, api_key):
        first_choice = FirstRunDialog().exec()
        want_demo = first_choice == FirstRunDialog.DEMO
    if want_demo:
        demo = start_demo()
        api_url, api_key, data_dir = demo.emulator.base_url, demo.emulator.api_key, demo.data_dir
        settings = settings.model_copy(update={"sync_interval_minutes": 1})
    else:
        data_dir = settings.effective_data_dir(data_dir_arg)
    qsettings = QSettings(ORGANIZATION, APPLICATION)
    context = build_main_window(
        data_dir=data_dir,
        api_url=api_url,
        api_key=api_key,
        settings=settings,
        credentials=credentials,
        qsettings=qsettings,
    )
    if demo is not None:
        context.cleanups.append(demo.close)
        context.window.setWindowTitle("Memex (demo library)")
    elif single:
        attach_single_instance(context, server_name(data_dir))
    if entity_id is not None:
        context.window.open_entity(entity_id)
    app.aboutToQuit.connect(context.shutdown)
    quitter = _QuitAfterSync(app)
    if quit_after_sync:
        if context.client is None:
            print("memex-desktop: no API key; nothing to sync", file=sys.stderr)
            context.shutdown()
            return 2
        context.controller.sync_finished.connect(quitter.on_sync_finished)
    context.window.show()
    if (
        not want_demo
        and context.client is None
        and not quit_after_sync
        and _first_run(settings, credentials, api_key)
    ):
        show_settings_dialog(
            context, context.window, start_sign_in=first_choice == FirstRunDialog.SIGN_IN
        )
    status = app.exec()
    context.shutdown()
    return quitter.status if quit_after_sync else int(status)


def _first_run(settings: Settings, credentials: CredentialStore, api_key: str | None) -> bool:
    """No credential anywhere (--api-key, the environment, the keyring) and no settings file
    yet: offer to connect or open the demo."""
    return (
        given_credential(api_key) is None
        and credentials.get_api_key() is None
        and not Settings.path().exists()
    )


def main() -> int:
    """``python -m memex_desktop.app``: the window with default options."""
    from memex_desktop.cli import main as cli_main

    return cli_main()
