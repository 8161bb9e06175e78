"""Every keyboard action of the main window, declared once (README and the help list read it).

Each action has a stable key (the QAction's objectName), a label, one or more shortcuts in
QKeySequence portable text, an accessible description and a scope: ``window`` shortcuts work
anywhere in the window, ``results`` shortcuts only while the results list has focus (so typing
"j" in the search field types a "j").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["window", "results"]


@dataclass(frozen=True)
class ActionSpec:
    """One action: key, label, shortcuts, accessible description, scope and menu."""

    key: str
    text: str
    shortcuts: tuple[str, ...]
    description: str
    scope: Scope = "window"
    menu: str = "View"


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("focus_search", "&Search", ("Ctrl+K",), "Move to the search field", menu="Go"),
    ActionSpec(
        "find_in_item",
        "&Find in item",
        ("Ctrl+F",),
        "Find text in the item being read (the library search when the reader is not in use)",
        menu="Edit",
    ),
    ActionSpec(
        "search_remote",
        "Search the &cloud too",
        ("Ctrl+Shift+K",),
        "Add results from the Memex server to the local ones (Enter in the search field)",
        menu="Go",
    ),
    ActionSpec("sync_now", "S&ync now", ("Ctrl+R",), "Sync with the Memex server now", menu="File"),
    ActionSpec(
        "sync_full",
        "Full sync and check for deletions",
        ("Ctrl+Shift+R",),
        "Fetch everything again and find items deleted on the server",
        menu="File",
    ),
    ActionSpec(
        "cancel_sync", "Cancel sync", ("Ctrl+.",), "Stop the sync that is running", menu="File"
    ),
    ActionSpec(
        "save_clipboard",
        "Save link from clipboard",
        # Ctrl+V too, where it would paste nothing: a text field (the search field, the note
        # editor) takes it first and pastes, as everywhere.
        ("Ctrl+Shift+V", "Ctrl+V"),
        "Save the web links on the clipboard to the library (Ctrl+V too, except in a text "
        "field, where it pastes)",
        menu="File",
    ),
    ActionSpec(
        "undo_save",
        "Undo last save",
        ("Ctrl+Z",),
        "Take back the last queued save before it is sent",
        menu="Edit",
    ),
    ActionSpec(
        "add_note",
        "Add &note",
        ("Ctrl+Shift+N",),
        "Write a note on the item being read; with a passage selected in it, the note is on "
        "that passage (highlighted and quoted)",
        menu="Edit",
    ),
    ActionSpec(
        "highlight",
        "&Highlight selection",
        ("Ctrl+Shift+H",),
        "Highlight the passage selected in the reader (kept on this computer until it is sent)",
        menu="Edit",
    ),
    ActionSpec(
        "reply_note",
        "&Reply to note",
        ("Ctrl+Shift+A",),
        "Answer the note in focus in the notes pane (else the newest note on the item)",
        menu="Edit",
    ),
    ActionSpec("go_back", "&Back", ("Alt+Left",), "Show the previous item read", menu="Go"),
    ActionSpec("go_forward", "&Forward", ("Alt+Right",), "Show the next item read", menu="Go"),
    ActionSpec(
        "next_result",
        "Next result",
        ("Down", "J"),
        "Select the next result",
        scope="results",
        menu="Go",
    ),
    ActionSpec(
        "previous_result",
        "Previous result",
        ("Up", "K"),
        "Select the previous result",
        scope="results",
        menu="Go",
    ),
    ActionSpec(
        "open_result",
        "Open result",
        ("Return", "Enter"),
        "Open the selected result in the reader",
        scope="results",
        menu="Go",
    ),
    ActionSpec(
        "open_in_browser",
        "Open original in &browser",
        ("Ctrl+O",),
        "Open the web address of the item being read, after showing it",
        menu="Go",
    ),
    ActionSpec(
        "copy_link",
        "Copy Memex link",
        ("Ctrl+Shift+C",),
        "Copy the memex:// link of the item being read",
        menu="Edit",
    ),
    ActionSpec(
        "load_remote_images",
        "Load remote &images",
        ("Ctrl+Shift+I",),
        "Load the pictures of the item being read from the web (this item only)",
    ),
    ActionSpec(
        "bigger_text", "&Bigger text", ("Ctrl+=", "Ctrl++"), "Make the reader's text bigger"
    ),
    ActionSpec("smaller_text", "&Smaller text", ("Ctrl+-",), "Make the reader's text smaller"),
    ActionSpec(
        "default_text_size", "&Actual text size", ("Ctrl+0",), "Show the reader's text at 100 %"
    ),
    ActionSpec("focus_sidebar", "Go to sidebar", ("Ctrl+1",), "Move to the sidebar"),
    ActionSpec("focus_results", "Go to results", ("Ctrl+2",), "Move to the results list"),
    ActionSpec("focus_reader", "Go to reader", ("Ctrl+3",), "Move to the reader"),
    ActionSpec(
        "toggle_threads", "Notes and replies pane", ("Ctrl+Shift+T",), "Show or hide the notes"
    ),
    ActionSpec("toggle_graph", "Reference graph pane", ("Ctrl+Shift+G",), "Show or hide the graph"),
    ActionSpec("toggle_outbox", "Outbox pane", ("Ctrl+Shift+O",), "Show or hide the queued saves"),
    ActionSpec("settings", "S&ettings…", ("Ctrl+,",), "Open the settings", menu="File"),
    ActionSpec("shortcuts", "&Keyboard shortcuts", ("F1", "?"), "List every shortcut", menu="Help"),
    ActionSpec("quit", "&Quit", ("Ctrl+Q",), "Close memex-desktop", menu="File"),
)

ACTIONS_BY_KEY: dict[str, ActionSpec] = {spec.key: spec for spec in ACTIONS}


def shortcut_rows() -> list[tuple[str, str, str]]:
    """(shortcuts, label, description) rows for the help list, in declaration order."""
    return [
        (", ".join(spec.shortcuts), spec.text.replace("&", ""), spec.description)
        for spec in ACTIONS
    ]
