"""Dialogs: settings, first run, keyboard shortcuts and the error report."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, get_args

from PySide6.QtCore import QObject, QSize, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from memex_desktop import paths
from memex_desktop.api.errors import BadApiUrl
from memex_desktop.api.urls import normalized_api_url
from memex_desktop.errors import user_message
from memex_desktop.settings import Settings, ThemeSetting, setting_descriptions
from memex_desktop.ui.actions import shortcut_rows
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.tasks import Task, TaskRunner

if TYPE_CHECKING:
    from memex_desktop.api.oauth import TokenProvider

log = logging.getLogger(__name__)


class SignInFunction(Protocol):
    """How the panel signs in: :func:`memex_desktop.signin.sign_in`, or a test's stand-in."""

    def __call__(
        self,
        api_url: str,
        *,
        open_browser: Callable[[str], bool],
        show_url: Callable[[str], None],
        cancel: threading.Event | None,
    ) -> TokenProvider:
        """Sign in at ``api_url`` through the browser (blocking) and return the sign-in."""
        ...


class BrowserBridge(QObject):
    """Lets a sign-in worker open the browser and show the URL through the GUI thread.

    The worker calls :meth:`open` and :meth:`show`; they only emit signals, which Qt queues
    to the slots of this GUI-thread object (QDesktopServices must not run on a worker).

    Signals:
        url_shown(str): the sign-in page's address, for the person to copy.
    """

    open_requested = Signal(str)
    url_shown = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.open_requested.connect(self._on_open_requested)

    def open(self, url: str) -> bool:
        """Worker side: ask the GUI thread to open ``url`` in the system browser."""
        self.open_requested.emit(url)
        self.url_shown.emit(url)  # also shown, in case no browser comes up
        return True

    def show(self, url: str) -> None:
        """Worker side: show ``url`` for copying (no browser could be started)."""
        self.url_shown.emit(url)

    @Slot(str)
    def _on_open_requested(self, url: str) -> None:
        """GUI thread: hand the URL to the desktop's browser."""
        if not QDesktopServices.openUrl(QUrl(url)):
            log.info("no browser could be started for the sign-in page")


def _sign_in_through_the_browser(
    api_url: str,
    *,
    open_browser: Callable[[str], bool],
    show_url: Callable[[str], None],
    cancel: threading.Event | None,
) -> TokenProvider:
    """:func:`memex_desktop.signin.sign_in`, imported when a person signs in: with its HTTP
    stack it would cost every start about 90 ms before the window shows."""
    from memex_desktop import signin

    return signin.sign_in(api_url, open_browser=open_browser, show_url=show_url, cancel=cancel)


def run_sign_in(
    sign_in: SignInFunction,
    api_url: str,
    bridge: BrowserBridge,
    *,
    cancel: threading.Event,
) -> TokenProvider:
    """Worker: sign in at ``api_url`` through the browser; the token provider."""
    return sign_in(api_url, open_browser=bridge.open, show_url=bridge.show, cancel=cancel)


def run_sign_out(provider: TokenProvider) -> None:
    """Worker: forget the tokens (and ask the server to revoke them), then close it."""
    try:
        provider.sign_out()
    finally:
        provider.close()


class SignInPanel(QWidget):
    """ "Sign in with Memex": start, cancel, the address to copy, the state, sign out.

    Signals:
        signed_in(object): the sign-in finished; the TokenProvider.
        signed_out(): the tokens were forgotten.
        sign_in_failed(str): what went wrong, in words.
    """

    signed_in = Signal(object)
    signed_out = Signal()
    sign_in_failed = Signal(str)

    def __init__(
        self,
        api_url: Callable[[], str],
        runner: TaskRunner,
        provider: TokenProvider | None = None,
        sign_in: SignInFunction | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._api_url = api_url
        self._runner = runner
        self._sign_in = sign_in or _sign_in_through_the_browser
        self.provider = provider
        self._task: Task[TokenProvider] | None = None
        self.bridge = BrowserBridge(self)
        self.bridge.url_shown.connect(self._on_bridge_url_shown)
        self.sign_in_button = QPushButton("Sign in with Memex", self)
        self.sign_in_button.setAccessibleName("Sign in with Memex")
        self.sign_in_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel sign-in", self)
        self.cancel_button.setAccessibleName("Cancel signing in")
        self.cancel_button.clicked.connect(self.cancel)
        self.sign_out_button = QPushButton("Sign out", self)
        self.sign_out_button.setAccessibleName("Sign out of Memex")
        self.sign_out_button.clicked.connect(self.sign_out)
        self.state = QLabel(self)
        self.state.setObjectName("signinstate")
        self.state.setWordWrap(True)
        self.url = QLineEdit(self)
        self.url.setReadOnly(True)
        self.url.setAccessibleName("Sign-in address")
        self.url.setToolTip("Open this address in a browser if none opened by itself")
        self.url.setVisible(False)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.sign_in_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.sign_out_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.state)
        layout.addWidget(self.url)
        self._show_state()

    def is_running(self) -> bool:
        """Whether a sign-in is waiting for the browser."""
        return self._task is not None

    def _show_state(self, text: str | None = None) -> None:
        """Buttons and words for the current state."""
        running = self._task is not None
        signed = self.provider is not None
        self.sign_in_button.setEnabled(not running)
        self.cancel_button.setVisible(running)
        self.sign_out_button.setVisible(signed and not running)
        if text is None:
            text = (
                "Waiting for the browser… finish signing in there."
                if running
                else "Signed in with Memex."
                if signed
                else "Not signed in."
            )
        self.state.setText(text)
        self.state.setAccessibleDescription(text)

    @Slot()
    def start(self) -> None:
        """Start signing in on a worker (the browser opens from the GUI thread)."""
        if self._task is not None:
            return
        self.url.clear()
        self.url.setVisible(False)
        self._task = (
            self._runner.run(run_sign_in, self._sign_in, self._api_url(), self.bridge, cancel=True)
            .on_success(self._on_task_finished)
            .on_failure(self._on_task_failed)
            .on_done(self._on_task_done)
        )
        self._show_state()

    @Slot()
    def cancel(self) -> None:
        """Stop waiting for the browser (the listener closes)."""
        if self._task is not None:
            self._task.cancel()

    @Slot()
    def sign_out(self) -> None:
        """Forget the tokens of the live sign-in (revoking runs on a worker)."""
        provider, self.provider = self.provider, None
        if provider is not None:
            # Forgetting the tokens is a promise ("Signed out."): shutdown waits for it.
            self._runner.run(run_sign_out, provider, durable=True)
        self._show_state("Signed out.")
        self.signed_out.emit()

    @Slot(str)
    def _on_bridge_url_shown(self, url: str) -> None:
        """Show the sign-in address so it can be copied into a browser by hand."""
        if self._task is not None:
            self.url.setText(url)
            self.url.setVisible(True)

    @Slot(object)
    def _on_task_finished(self, provider: TokenProvider) -> None:
        """Signed in: keep the provider and say so."""
        if self.sender() is not self._task:
            return
        self._task = None
        self.provider = provider
        self.url.setVisible(False)
        self._show_state()
        self.signed_in.emit(provider)

    @Slot(object)
    def _on_task_failed(self, exc: Exception) -> None:
        """Timed out, refused, no browser: say why; no listener stays open."""
        if self.sender() is not self._task:
            return
        self._end_sign_in(message_line(user_message(exc)))

    @Slot()
    def _on_task_done(self) -> None:
        """Over without a result or a failure: the person cancelled (the listener is closed)."""
        if self.sender() is self._task:
            self._end_sign_in("Sign-in cancelled.")

    def _end_sign_in(self, text: str) -> None:
        """Back to the idle state after a sign-in that did not work, saying why."""
        self._task = None
        self.url.setVisible(False)
        self._show_state(text)
        self.sign_in_failed.emit(text)


THEME_NAMES: dict[ThemeSetting, str] = {
    "system": "Same as the system",
    "light": "Light",
    "dark": "Dark",
}


# A field that shows a value and cannot change it, drawn as the platform draws read-only
# text: on the window's background, without a frame or a focus border (the app's style sheet
# gives every QLineEdit both). Tab still reaches it, to select and copy the value.
READ_ONLY_FIELD_CSS = """
QLineEdit, QLineEdit:focus {
    background-color: palette(window);
    border: 1px solid transparent;
}
"""


def look_read_only(field: QLineEdit) -> None:
    """Make ``field`` read-only and look it: no frame, no field background."""
    field.setReadOnly(True)
    field.setFrame(False)
    field.setStyleSheet(READ_ONLY_FIELD_CSS)


def focus_after(widget: QWidget) -> None:
    """Give the focus to the first widget after ``widget`` that Tab would reach."""
    following: QWidget | None = widget.nextInFocusChain()
    while following is not None and following is not widget:
        if (
            following.focusPolicy().value & Qt.FocusPolicy.TabFocus.value
            and following.isEnabled()
            and not following.isHidden()
        ):
            following.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        following = following.nextInFocusChain()


@dataclass(frozen=True)
class SettingsChoice:
    """What the person entered in the settings dialog (api_key None = unchanged)."""

    api_url: str
    api_key: str | None
    sync_interval_minutes: int
    data_dir: Path | None
    theme: ThemeSetting = "system"


class SettingsDialog(QDialog):
    """API URL, API key (keyring or memory), sync interval, data folder and theme."""

    def __init__(
        self,
        settings: Settings,
        *,
        has_key: bool,
        key_in_memory_only: bool,
        runner: TaskRunner | None = None,
        provider: TokenProvider | None = None,
        sign_in: SignInFunction | None = None,
        api_url_in_use: str | None = None,
        data_dir_in_use: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``api_url_in_use``: the API this window talks to; when it is not the setting's (the
        demo's emulator, ``--api-url``, MEMEX_API_URL) the field shows it and cannot change it.
        ``data_dir_in_use``: the data folder this window reads; when it is not the setting's
        (``--data-dir``, MEMEX_DATA_DIR, the demo's) the dialog says so."""
        super().__init__(parent)
        self.setObjectName("settingsdialog")
        self.setWindowTitle("Settings")
        descriptions = setting_descriptions()
        form = QFormLayout()
        self._saved_api_url = settings.api_url
        in_use = (api_url_in_use or "").rstrip("/")
        self.api_url_fixed = bool(in_use) and in_use != _comparable_url(settings.api_url)
        self.api_url = QLineEdit(in_use if self.api_url_fixed else settings.api_url, self)
        self.api_url.setAccessibleName("API URL")
        self.api_url.setToolTip(descriptions.get("api_url", ""))
        if self.api_url_fixed:
            look_read_only(self.api_url)
            self.api_url.setToolTip(
                "This window talks to this server for this session (the demo library, "
                "--api-url or MEMEX_API_URL); the saved setting stays "
                f"{settings.api_url}"
            )
        self.api_key = QLineEdit(self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setAccessibleName("API key")
        self.api_key.setPlaceholderText(
            "stored; type to replace" if has_key else "your Memex API key"
        )
        where = (
            "No system keyring: the key is kept in memory for this session only."
            if key_in_memory_only
            else "The key is kept in the system keyring, never in a file."
        )
        self.key_note = QLabel(where, self)
        self.key_note.setObjectName("keystoragenote")
        self.key_note.setWordWrap(True)
        self.interval = QSpinBox(self)
        self.interval.setRange(0, 24 * 60)
        self.interval.setSuffix(" min")
        self.interval.setSpecialValueText("never (manual only)")
        self.interval.setValue(settings.sync_interval_minutes)
        self.interval.setAccessibleName("Sync interval in minutes")
        self.interval.setToolTip(descriptions.get("sync_interval_minutes", ""))
        self.data_dir = QLineEdit(str(settings.data_dir or ""), self)
        self.data_dir.setPlaceholderText(str(paths.default_data_dir()))
        self.data_dir.setAccessibleName("Data folder")
        self.data_dir.setToolTip(descriptions.get("data_dir", ""))
        self.theme = QComboBox(self)
        self.theme.setAccessibleName("Theme")
        self.theme.setToolTip(descriptions.get("theme", ""))
        for value in get_args(ThemeSetting):
            self.theme.addItem(THEME_NAMES[value], value)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        browse = QPushButton("Browse…", self)
        browse.setAccessibleName("Choose the data folder")
        browse.clicked.connect(self._on_browse_clicked)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.data_dir, 1)
        folder_row.addWidget(browse)
        self.sign_in: SignInPanel | None = None
        form.addRow("API URL", self.api_url)
        # Why the entered API URL cannot be saved (shown on Save, hidden once it is edited).
        self.api_url_problem = QLabel(self)
        self.api_url_problem.setObjectName("apiurlproblem")
        self.api_url_problem.setWordWrap(True)
        self.api_url_problem.hide()
        self.api_url.textEdited.connect(self.api_url_problem.hide)
        # Under the field: why it cannot be saved, when it cannot; why it cannot be edited,
        # when the session chose the server (a read-only field looks like any other).
        under_url = QVBoxLayout()
        under_url.setContentsMargins(0, 0, 0, 0)
        under_url.addWidget(self.api_url_problem)
        if self.api_url_fixed:
            fixed_note = QLabel(
                "This window talks to this server for this session (the demo, --api-url or "
                f"MEMEX_API_URL). The saved setting stays {settings.api_url}.",
                self,
            )
            fixed_note.setObjectName("apiurlnote")
            fixed_note.setTextFormat(Qt.TextFormat.PlainText)  # a saved URL is no markup
            fixed_note.setWordWrap(True)
            under_url.addWidget(fixed_note)
        form.addRow("", under_url)
        if runner is not None:
            self.sign_in = SignInPanel(self._entered_url, runner, provider, sign_in, self)
            form.addRow("Account", self.sign_in)
            form.addRow("", QLabel("Or use an API key:", self))
        form.addRow("API key", self.api_key)
        form.addRow("", self.key_note)
        form.addRow("Sync every", self.interval)
        form.addRow("Data folder", folder_row)
        form.addRow("Theme", self.theme)
        saved_folder = settings.effective_data_dir()
        session_folder = (
            data_dir_in_use
            if data_dir_in_use is not None and data_dir_in_use != saved_folder
            else None
        )
        note = QLabel(
            "A new data folder takes effect at the next start."
            if session_folder is None
            else f"This window reads {session_folder} (--data-dir, MEMEX_DATA_DIR or the demo); "
            "the data folder set here is for starts without one.",
            self,
        )
        note.setObjectName("datafoldernote")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)
        self.resize(520, self.sizeHint().height())
        if not has_key and provider is None and not self.api_url_fixed:
            # Nothing to sign in with yet: the key is what there is to type ("Use an API key").
            self.api_key.setFocus(Qt.FocusReason.OtherFocusReason)
        elif self.api_url_fixed:
            # The first field cannot be changed: the focus starts on what can.
            focus_after(self.api_url)

    def _entered_url(self) -> str:
        """The API URL as entered (the sign-in goes to that server)."""
        return self.api_url.text().strip() or Settings().api_url

    @property
    def provider(self) -> TokenProvider | None:
        """The sign-in after the dialog (None: signed out or never signed in)."""
        return self.sign_in.provider if self.sign_in is not None else None

    def accept(self) -> None:
        """Save, unless the API URL entered cannot be used: then say why beneath it."""
        if not self.api_url_fixed:
            try:
                normalized_api_url(self._entered_url())
            except BadApiUrl as exc:
                self.api_url_problem.setText(user_message(exc).one_line())
                self.api_url_problem.show()
                self.api_url.setFocus(Qt.FocusReason.OtherFocusReason)
                self.api_url.selectAll()
                return
        super().accept()

    def done(self, result: int) -> None:
        """Closing the dialog stops a sign-in still waiting for the browser."""
        if self.sign_in is not None:
            self.sign_in.cancel()
        super().done(result)

    def choice(self) -> SettingsChoice:
        """The values entered."""
        key = self.api_key.text().strip()
        folder = self.data_dir.text().strip()
        return SettingsChoice(
            api_url=(
                self._saved_api_url
                if self.api_url_fixed
                else self.api_url.text().strip() or Settings().api_url
            ),
            api_key=key or None,
            sync_interval_minutes=self.interval.value(),
            data_dir=Path(folder).expanduser() if folder else None,
            theme=self.theme.currentData(),
        )

    @Slot()
    def _on_browse_clicked(self) -> None:
        """Pick the data folder."""
        folder = QFileDialog.getExistingDirectory(self, "Data folder", self.data_dir.text())
        if folder:
            self.data_dir.setText(folder)


def _comparable_url(url: str) -> str:
    """An API URL as a connection names it (the window's is normalized), or as written when
    it cannot be used."""
    try:
        return normalized_api_url(url)
    except BadApiUrl:
        return url.rstrip("/")


class FirstRunDialog(QDialog):
    """Welcome: connect an account, open the demo library, or not now (Escape too)."""

    LATER = QDialog.DialogCode.Rejected.value
    CONNECT = 1
    DEMO = 2
    SIGN_IN = 3

    def __init__(self, parent: QWidget | None = None, *, cached_items: int = 0) -> None:
        """``cached_items``: how many items the data folder holds already (it is read now)."""
        super().__init__(parent)
        self.setObjectName("firstrundialog")
        title = "Welcome to memex-desktop"
        self.setWindowTitle(title)
        # Wide enough for its title in the window's frame, beside the frame's buttons.
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance(title) + 240)
        held = (
            f"<p>This data folder already holds {cached_items:,} saved "
            f"item{'' if cached_items == 1 else 's'}: you can read them now and connect "
            "later.</p>"
            if cached_items
            else ""
        )
        text = QLabel(
            "<h3>Your Memex library, on this computer</h3>"
            "<p>memex-desktop keeps a copy of your saves so you can search and read them "
            f"offline, and saves links you drop on the window.</p>{held}",
            self,
        )
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        sign_in = QPushButton("Sign in with Memex", self)
        sign_in.setDefault(True)
        sign_in.setAccessibleName("Sign in with Memex")
        connect = QPushButton("Use an API key", self)
        connect.setAccessibleName("Use an API key")
        demo = QPushButton("Open the demo library", self)
        demo.setAccessibleName("Open the demo library")
        later = QPushButton("Not now", self)
        later.setAccessibleName("Not now")
        later.setToolTip("Open the window without an account (File, Settings connects one)")
        sign_in.clicked.connect(self._on_sign_in_clicked)
        connect.clicked.connect(self._on_connect_clicked)
        demo.clicked.connect(self._on_demo_clicked)
        later.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(sign_in)
        layout.addWidget(connect)
        layout.addWidget(demo)
        layout.addWidget(later)

    @Slot()
    def _on_sign_in_clicked(self) -> None:
        """The person wants to sign in through the browser (the settings dialog does it)."""
        self.done(self.SIGN_IN)

    @Slot()
    def _on_connect_clicked(self) -> None:
        """The person wants to connect an account with an API key."""
        self.done(self.CONNECT)

    @Slot()
    def _on_demo_clicked(self) -> None:
        """The person wants the demo."""
        self.done(self.DEMO)


class ShortcutsDialog(QDialog):
    """Every keyboard shortcut, from the one action table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsdialog")
        self.setWindowTitle("Keyboard shortcuts")
        rows = shortcut_rows()
        table = QTableWidget(len(rows), 3, self)
        table.setObjectName("shortcutstable")
        table.setAccessibleName("Keyboard shortcuts")
        table.setHorizontalHeaderLabels(["Keys", "Action", "What it does"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                table.setItem(row, column, QTableWidgetItem(value))
        # Keys and names show whole; the descriptions take the rest and wrap onto more lines
        # rather than run past the edge.
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.setWordWrap(True)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table = table
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        layout.addWidget(buttons)
        self.resize(self._fitting_size(table))

    def _fitting_size(self, table: QTableWidget) -> QSize:
        """Wide enough for every description on one line, within the screen's free area."""
        header = table.horizontalHeader()
        columns = sum(max(table.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in range(3))
        scrollbar = table.verticalScrollBar().sizeHint().width()
        wanted = columns + scrollbar + 2 * table.frameWidth() + 2 * 12  # the dialog's margins
        width, height = max(wanted, 520), 560
        screen = self.screen()
        if screen is not None:
            free = screen.availableGeometry()
            width, height = min(width, free.width() - 40), min(height, free.height() - 40)
        return QSize(width, height)


class ErrorDialog(QDialog):
    """An unexpected error: what happened in words, details to copy into a report."""

    def __init__(self, text: str, detail: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errordialog")
        self.setWindowTitle("Something went wrong")
        label = QLabel(text, self)
        label.setWordWrap(True)
        details = QPlainTextEdit(detail, self)
        details.setReadOnly(True)
        details.setAccessibleName("Error details")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(details, 1)
        layout.addWidget(buttons)
        self.resize(640, 420)
