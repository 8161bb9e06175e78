"""The menu bar and the window's keyboard actions, built from their declarations.

Each action declared in :mod:`memex_desktop.ui.actions` becomes one QAction with its shortcuts,
tooltip and accessible description, in its menu. The Help menu adds two entries that are no
keyboard actions (no part of the shortcut table): the connection check and About.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QWidget

from memex_desktop.ui.actions import ACTIONS, ActionSpec

MENUS = ("File", "Edit", "Go", "View", "Help")
HELP_ENTRIES = (
    ActionSpec(
        "check_connection",
        "Check the &connection to Memex…",
        (),
        "See what the Memex server does with the requests a sync depends on",
        menu="Help",
    ),
    ActionSpec(
        "open_demo",
        "Open the &demo library",
        (),
        "Open a second window on a demo library, served by the built-in Memex emulator",
        menu="Help",
    ),
    ActionSpec(
        "about",
        "&About memex-desktop",
        (),
        "The version, the data folder and the size of the local library",
        menu="Help",
    ),
)


def make_action(spec: ActionSpec, parent: QObject, handler: Callable[[], object]) -> QAction:
    """A QAction for a declaration, running ``handler`` when triggered."""
    action = QAction(spec.text, parent)
    action.setObjectName(spec.key)
    action.setShortcuts([QKeySequence(s) for s in spec.shortcuts])
    keys = f" ({', '.join(spec.shortcuts)})" if spec.shortcuts else ""
    action.setToolTip(spec.description + keys)
    action.setStatusTip(spec.description)
    action.setWhatsThis(spec.description)
    action.triggered.connect(handler)
    return action


def build_menus(
    window: QMainWindow, results_view: QWidget, handlers: Mapping[str, Callable[[], object]]
) -> dict[str, QAction]:
    """Fill the window's menu bar; returns every QAction by its key.

    ``results``-scoped shortcuts work only while the results list has focus (so typing "j" in
    the search field types a "j"); the others anywhere in the window.
    """
    menus = {name: window.menuBar().addMenu(f"&{name}") for name in MENUS}
    actions: dict[str, QAction] = {}
    for spec in ACTIONS:
        action = make_action(spec, window, handlers[spec.key])
        if spec.scope == "results":
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            results_view.addAction(action)
        else:
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            window.addAction(action)
        menus[spec.menu].addAction(action)
        actions[spec.key] = action
    menus["Help"].addSeparator()
    for spec in HELP_ENTRIES:
        actions[spec.key] = make_action(spec, window, handlers[spec.key])
        menus["Help"].addAction(actions[spec.key])
    actions["about"].setMenuRole(QAction.MenuRole.AboutRole)
    return actions
