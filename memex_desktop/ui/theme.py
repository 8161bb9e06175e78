"""The light or dark theme on screen: the application's palette and stylesheet, kept live.

The ``theme`` setting is ``system`` (follow the desktop's colour scheme, light when it says
nothing, as under Xvfb), ``light`` or ``dark``. :func:`install` applies it to the application
and follows ``QStyleHints.colorSchemeChanged``; widgets whose colours are not in the palette or
the stylesheet (the reader's CSS, the graph's outlines) read :func:`current` and listen to
``ThemeController.changed``.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from memex_desktop import paths
from memex_desktop.ui.palette import LIGHT, Palette, fill_colours, theme_for

log = logging.getLogger(__name__)

_current: Palette = LIGHT
_installed: ThemeController | None = None

Role = QPalette.ColorRole
Group = QPalette.ColorGroup


def current() -> Palette:
    """The palette on screen (light until a theme is installed)."""
    return _current


def installed() -> ThemeController | None:
    """The application's theme controller, when :func:`install` made one."""
    return _installed


def app_stylesheet(palette: Palette) -> str:
    """resources/style.qss in the palette's colours (empty when the file is missing)."""
    try:
        template = paths.resource_path("style.qss").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        log.info("style.qss not found (%s); default look", exc)
        return ""
    return fill_colours(template, palette)


def qt_palette(palette: Palette) -> QPalette:
    """The palette as Qt's, so native widgets, dialogs and painted views take its colours."""
    qt = QPalette()
    roles = {
        Role.Window: palette.window,
        Role.WindowText: palette.text,
        Role.Base: palette.base,
        Role.AlternateBase: palette.alternate_base,
        Role.Text: palette.text,
        Role.Button: palette.base,
        Role.ButtonText: palette.text,
        Role.BrightText: palette.heading,
        Role.Highlight: palette.selection,
        Role.HighlightedText: palette.heading,
        Role.ToolTipBase: palette.popup,
        Role.ToolTipText: palette.popup_text,
        Role.PlaceholderText: palette.faint_text,
        Role.Link: palette.link,
        Role.LinkVisited: palette.link,
        Role.Accent: palette.accent,
        Role.Light: palette.base,
        Role.Midlight: palette.surface,
        Role.Mid: palette.field_border,
        Role.Dark: palette.strong_border,
        Role.Shadow: palette.border,
    }
    for role, colour in roles.items():
        qt.setColor(role, QColor(colour))
    for role in (Role.WindowText, Role.Text, Role.ButtonText):
        qt.setColor(Group.Disabled, role, QColor(palette.disabled_text))
    return qt


def system_is_dark(scheme: Qt.ColorScheme | None = None) -> bool:
    """Whether the desktop asks for dark colours (``scheme``, else the one it reports now)."""
    if scheme is None:
        scheme = QGuiApplication.styleHints().colorScheme()
    return scheme == Qt.ColorScheme.Dark


def _ask_platform_for(setting: str) -> None:
    """Tell the platform the scheme the app shows, so title bars and native dialogs match.

    ``system`` leaves the choice to the desktop again; its own scheme then arrives through
    ``colorSchemeChanged`` as usual.
    """
    hints = QGuiApplication.styleHints()
    if setting == "light":
        hints.setColorScheme(Qt.ColorScheme.Light)
    elif setting == "dark":
        hints.setColorScheme(Qt.ColorScheme.Dark)
    else:
        hints.unsetColorScheme()


class ThemeController(QObject):
    """Applies the theme setting to the application and follows the system's colour scheme.

    Signals:
        changed(Palette): another palette is on screen.
    """

    changed = Signal(object)

    def __init__(self, app: QApplication, setting: str = "system") -> None:
        super().__init__(app)
        self._app = app
        self._setting = setting
        self._applied: Palette | None = None
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_color_scheme_changed)
        self.set_setting(setting)

    @property
    def setting(self) -> str:
        """``system``, ``light`` or ``dark``."""
        return self._setting

    @property
    def palette(self) -> Palette:
        """The palette on screen."""
        return self._applied or current()

    def set_setting(self, setting: str) -> None:
        """Use ``setting`` from now on (the window changes at once)."""
        self._setting = setting
        _ask_platform_for(setting)
        self._apply(theme_for(setting, system_is_dark()))

    @Slot(Qt.ColorScheme)
    def _on_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        """The desktop switched between light and dark: "system" follows it."""
        if self._setting == "system":
            self._apply(theme_for("system", system_is_dark(scheme)))

    def _apply(self, palette: Palette) -> None:
        """Put ``palette`` on screen: Qt's palette, the stylesheet, then the listeners."""
        global _current
        if palette == self._applied:
            return
        self._applied = _current = palette
        self._app.setPalette(qt_palette(palette))
        self._app.setStyleSheet(app_stylesheet(palette))
        self.changed.emit(palette)

    def uninstall(self) -> None:
        """Stop following the system and leave the default look (tests restore the app)."""
        global _current, _installed
        QGuiApplication.styleHints().colorSchemeChanged.disconnect(self._on_color_scheme_changed)
        _ask_platform_for("system")
        _current = LIGHT
        if _installed is self:
            _installed = None
        self._app.setStyleSheet("")
        self._app.setPalette(QPalette())
        self.deleteLater()


def install(app: QApplication, setting: str = "system") -> ThemeController:
    """The application's theme controller (made once), applying ``setting``."""
    global _installed
    if _installed is None:
        _installed = ThemeController(app, setting)
    else:
        _installed.set_setting(setting)
    return _installed
