"""Dialogs: settings, first run, keyboard shortcuts and the error report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
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

from memex_desktop.settings import Settings, setting_descriptions
from memex_desktop.ui.actions import shortcut_rows


@dataclass(frozen=True)
class SettingsChoice:
    """What the person entered in the settings dialog (api_key None = unchanged)."""

    api_url: str
    api_key: str | None
    sync_interval_minutes: int
    data_dir: Path | None


class SettingsDialog(QDialog):
    """API URL, API key (keyring or memory), sync interval and data folder."""

    def __init__(
        self,
        settings: Settings,
        *,
        has_key: bool,
        key_in_memory_only: bool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settingsdialog")
        self.setWindowTitle("Settings")
        descriptions = setting_descriptions()
        form = QFormLayout()
        self.api_url = QLineEdit(settings.api_url, self)
        self.api_url.setAccessibleName("API URL")
        self.api_url.setToolTip(descriptions.get("api_url", ""))
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
        self.data_dir.setPlaceholderText("default user data folder")
        self.data_dir.setAccessibleName("Data folder")
        self.data_dir.setToolTip(descriptions.get("data_dir", ""))
        browse = QPushButton("Browse…", self)
        browse.setAccessibleName("Choose the data folder")
        browse.clicked.connect(self._on_browse_clicked)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.data_dir, 1)
        folder_row.addWidget(browse)
        form.addRow("API URL", self.api_url)
        form.addRow("API key", self.api_key)
        form.addRow("", self.key_note)
        form.addRow("Sync every", self.interval)
        form.addRow("Data folder", folder_row)
        note = QLabel("A new data folder takes effect at the next start.", self)
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

    def choice(self) -> SettingsChoice:
        """The values entered."""
        key = self.api_key.text().strip()
        folder = self.data_dir.text().strip()
        return SettingsChoice(
            api_url=self.api_url.text().strip() or Settings().api_url,
            api_key=key or None,
            sync_interval_minutes=self.interval.value(),
            data_dir=Path(folder).expanduser() if folder else None,
        )

    @Slot()
    def _on_browse_clicked(self) -> None:
        """Pick the data folder."""
        folder = QFileDialog.getExistingDirectory(self, "Data folder", self.data_dir.text())
        if folder:
            self.data_dir.setText(folder)


class FirstRunDialog(QDialog):
    """Welcome: connect an account or open the demo library."""

    CONNECT = 1
    DEMO = 2

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstrundialog")
        self.setWindowTitle("Welcome to memex-desktop")
        text = QLabel(
            "<h3>Your Memex library, on this computer</h3>"
            "<p>memex-desktop keeps a copy of your saves so you can search and read them "
            "offline, and saves links you drop on the window.</p>",
            self,
        )
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        connect = QPushButton("Connect your Memex account", self)
        connect.setDefault(True)
        connect.setAccessibleName("Connect your Memex account")
        demo = QPushButton("Open the demo library", self)
        demo.setAccessibleName("Open the demo library")
        connect.clicked.connect(self._on_connect_clicked)
        demo.clicked.connect(self._on_demo_clicked)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(connect)
        layout.addWidget(demo)

    @Slot()
    def _on_connect_clicked(self) -> None:
        """The person wants to connect an account."""
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
        table.resizeColumnsToContents()
        table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        layout.addWidget(buttons)
        self.resize(680, 560)


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
