"""About memex-desktop: the version, where the data lives, and how big the local library is."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from memex_desktop import __version__
from memex_desktop.errors import user_message
from memex_desktop.store import CacheStats
from memex_desktop.ui.messages import message_line
from memex_desktop.ui.readers import thread_reader
from memex_desktop.ui.tasks import Task, TaskRunner

PENDING = "…"
# What a title bar holds besides the title: the window's icon, its buttons (close, maximise,
# minimise: about 30 px each on common desktops) and the space around them, with room to spare.
TITLE_BAR_ROOM_PX = 180
# How a window manager joins a window's title and the application's name (as Qt asks it to).
TITLE_SEPARATOR = " — "


def read_stats(cache_path: Path) -> CacheStats:
    """Worker: the cache statistics (a count over every entity: not on the GUI thread)."""
    return thread_reader(cache_path).stats()


def shown_title(widget: QWidget) -> str:
    """The title a window manager shows for ``widget``'s window: its title, then the app's
    name ("About memex-desktop — Memex")."""
    title = widget.windowTitle()
    name = QGuiApplication.applicationDisplayName()
    return f"{title}{TITLE_SEPARATOR}{name}" if name and name not in title else title


def title_width(widget: QWidget) -> int:
    """How wide ``widget``'s window must be for its title bar to show its title whole (title
    bars set it in a bold font, often larger: measured so)."""
    font = QFont(widget.font())
    font.setBold(True)
    return QFontMetrics(font).horizontalAdvance(shown_title(widget)) + TITLE_BAR_ROOM_PX


def format_size(size_bytes: int) -> str:
    """Bytes as a short human size (KB, MB, GB with one decimal)."""
    size = float(size_bytes)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} GB"


def format_last_sync(epoch_ms: int | None) -> str:
    """When the last sync ended, in local time, or "never"."""
    if epoch_ms is None:
        return "never"
    moment = dt.datetime.fromtimestamp(epoch_ms / 1000, tz=dt.UTC).astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")


class AboutDialog(QDialog):
    """Version, data folder and cache statistics (read on a worker, filled in when ready)."""

    def __init__(self, runner: TaskRunner, cache_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutdialog")
        self.setWindowTitle("About memex-desktop")
        heading = QLabel(f"<h2>memex-desktop {__version__}</h2>", self)
        heading.setTextFormat(Qt.TextFormat.RichText)
        blurb = QLabel("Your Memex library on this computer: search, read and save offline.", self)
        blurb.setWordWrap(True)
        self.version_label = self._value(__version__, "Version")
        self.folder_label = self._value(str(cache_path.parent), "Data folder")
        self.entities_label = self._value(PENDING, "Items in the local library")
        self.size_label = self._value(PENDING, "Size on disk")
        self.last_sync_label = self._value(PENDING, "Last sync")
        form = QFormLayout()
        form.addRow("Version", self.version_label)
        form.addRow("Data folder", self.folder_label)
        form.addRow("Items", self.entities_label)
        form.addRow("Size on disk", self.size_label)
        form.addRow("Last sync", self.last_sync_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(blurb)
        layout.addLayout(form)
        layout.addWidget(buttons)
        # Its contents alone would make it narrower than its title ("About mem…op — Memex").
        width = max(self.sizeHint().width(), title_width(self))
        fitting = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else -1
        self.resize(width, fitting if fitting > 0 else self.sizeHint().height())
        self._stats_task: Task[CacheStats] = (
            runner.run(read_stats, cache_path)
            .on_success(self._on_stats_read)
            .on_failure(self._on_stats_failed)
        )

    def _value(self, text: str, name: str) -> QLabel:
        """A selectable plain-text value with an accessible name."""
        label = QLabel(text, self)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setAccessibleName(name)
        return label

    @Slot(object)
    def _on_stats_read(self, stats: CacheStats) -> None:
        """Show the statistics."""
        self.entities_label.setText(f"{stats.entities:,}")
        self.size_label.setText(format_size(stats.size_bytes))
        self.last_sync_label.setText(format_last_sync(stats.last_sync_at))

    @Slot(object)
    def _on_stats_failed(self, exc: Exception) -> None:
        """The cache could not be read: say so instead of leaving the dots, and why."""
        text = message_line(user_message(exc))
        for label in (self.entities_label, self.size_label, self.last_sync_label):
            label.setText("unavailable")
            label.setToolTip(text)
