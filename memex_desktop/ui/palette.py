"""The colours of the app, light and dark: one named table each, and nothing else knows a hex.

The window's stylesheet (resources/style.qss) and the reader's (resources/reader.css) name
these colours as ``$name``; :func:`fill_colours` puts the palette's values in. The content-type
and edge colours of the results list and the graph are mid-tones that read on both
backgrounds, so they are one table for both themes. This module needs no Qt: the contrast of
every text/background pair is checked without a window.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from string import Template
from typing import Literal

ThemeName = Literal["light", "dark"]
# The least contrast of body text on its background (WCAG 2.1 AA for normal text).
BODY_TEXT_CONTRAST = 4.5


@dataclass(frozen=True)
class Palette:
    """Every colour the window and the reader use, by what it is for (``#rrggbb``)."""

    name: ThemeName
    # Surfaces, from the window's own to the small ones that lift off it.
    window: str
    base: str
    alternate_base: str
    surface: str
    hover: str
    button_hover: str
    tool_hover: str
    row_hover: str
    border: str
    strong_border: str
    field_border: str
    selection: str
    reader_selection: str
    # Text, from the strongest to the faintest that still has to be read.
    heading: str
    text: str
    secondary_text: str
    muted_text: str
    faint_text: str
    disabled_text: str
    link: str
    # The one accent: focus rings, progress, the default button.
    accent: str
    accent_text: str
    on_accent: str
    # Dark pop-ups over the window: tooltips and the toast.
    popup: str
    popup_text: str
    popup_action: str
    scroll_handle: str
    scroll_handle_hover: str
    # The reader's content.
    rule: str
    code_background: str
    code_text: str
    pre_background: str
    table_head: str
    table_head_border: str
    table_border: str
    # A warm notice that explains or asks (in the reader and above the panes), and problems.
    notice_background: str
    notice_border: str
    notice_text: str
    problem_text: str
    # Find in the item: every match, and the current one (also the selection while the find
    # bar is open), which must stand out from the others by brightness, not hue alone.
    find_match: str
    find_current: str
    find_current_text: str
    # The marker of a note still being sent or processed.
    pending_badge: str
    pending_badge_text: str
    placeholder_background: str
    card_background: str
    missing_text: str
    moment_text: str
    # The graph: the ring around a node (it must stand off the canvas).
    node_outline: str

    def colours(self) -> dict[str, str]:
        """Every colour by its name (what a ``$name`` in a stylesheet stands for)."""
        named = asdict(self)
        del named["name"]
        return named

    @property
    def is_dark(self) -> bool:
        """Whether text is light on dark."""
        return self.name == "dark"


LIGHT = Palette(
    name="light",
    window="#fafaf8",
    base="#ffffff",
    alternate_base="#f8f8f5",
    surface="#f1f0ec",
    hover="#e6e5df",
    button_hover="#f3f2ee",
    tool_hover="#ecebe6",
    row_hover="#f1f5f6",
    border="#e4e2dc",
    strong_border="#dedcd5",
    field_border="#d6d4cd",
    selection="#d5e8ec",
    reader_selection="#f6e2b3",
    heading="#1b2b34",
    text="#23292f",
    secondary_text="#2c3a43",
    muted_text="#4a5560",
    faint_text="#626b73",
    disabled_text="#a4aaaf",
    link="#1f6f82",
    accent="#2a7a8c",
    accent_text="#1b4f63",
    on_accent="#ffffff",
    popup="#23292f",
    popup_text="#fafaf8",
    popup_action="#f2a541",
    scroll_handle="#cfcdc5",
    scroll_handle_hover="#b4b2aa",
    rule="#dedbd2",
    code_background="#f1efe8",
    code_text="#6a3b1d",
    pre_background="#f4f2ec",
    table_head="#eef3f4",
    table_head_border="#d5dcde",
    table_border="#dfe3e4",
    notice_background="#fdf6e3",
    notice_border="#f2c27a",
    notice_text="#6b5316",
    problem_text="#8c1d13",
    find_match="#fff191",
    find_current="#ff9632",
    find_current_text="#23292f",
    pending_badge="#f4b400",
    pending_badge_text="#202020",
    placeholder_background="#f1f1ee",
    card_background="#f3f7f8",
    missing_text="#9a4a36",
    moment_text="#c4302b",
    node_outline="#202020",
)

DARK = Palette(
    name="dark",
    window="#1b1e21",
    base="#202428",
    alternate_base="#24282c",
    surface="#262a2f",
    hover="#343a40",
    button_hover="#2e3338",
    tool_hover="#31363c",
    row_hover="#2a3136",
    border="#353a40",
    strong_border="#41474e",
    field_border="#4a5158",
    selection="#1f4e59",
    reader_selection="#5c4a1f",
    heading="#f1f3f4",
    text="#e2e5e8",
    secondary_text="#ccd3d8",
    muted_text="#aab3ba",
    faint_text="#939ca3",
    disabled_text="#636a70",
    link="#6cc3d5",
    accent="#2a7a8c",
    accent_text="#8fd3e2",
    on_accent="#ffffff",
    popup="#3a4047",
    popup_text="#f1f3f4",
    popup_action="#f2a541",
    scroll_handle="#4a5057",
    scroll_handle_hover="#5f666d",
    rule="#3a3f44",
    code_background="#2d3136",
    code_text="#eab98f",
    pre_background="#272b30",
    table_head="#263237",
    table_head_border="#3e484d",
    table_border="#363e43",
    notice_background="#3a321c",
    notice_border="#7a6230",
    notice_text="#f0d58a",
    problem_text="#f28b7d",
    find_match="#665c12",
    find_current="#f2a541",
    find_current_text="#1b1e21",
    pending_badge="#e0a800",
    pending_badge_text="#1b1e21",
    placeholder_background="#2b2e32",
    card_background="#232d31",
    missing_text="#e8927a",
    moment_text="#ff8a7e",
    node_outline="#e6e8ea",
)

THEMES: dict[ThemeName, Palette] = {"light": LIGHT, "dark": DARK}

# Content types, for the graph's dots and the results list's letter badges.
TYPE_COLOURS: dict[str, str] = {
    "web": "#3b7dd8",
    "twitter": "#1d9bf0",
    "youtube": "#d93025",
    "reddit": "#ff5700",
    "image": "#8e44ad",
    "annotation": "#f4b400",
    "pdf": "#795548",
    "chatThread": "#009688",
    "selector": "#e84393",
    "book": "#6ab04c",
    "audioRecording": "#5c6bc0",
    "tag": "#7f8c8d",
}
OTHER_TYPE_COLOUR = "#95a5a6"
# The graph's edge kinds (with a dash and a width each, in graph_legend).
EDGE_COLOURS: dict[str, str] = {
    "annotates": "#f4b400",
    "references": "#3b7dd8",
    "reply": "#2e9e4f",
    "tag": "#7f8c8d",
}
OTHER_EDGE_COLOUR = "#b0b0b0"
# Provenance badges in the results list: from the server, or from the cache.
REMOTE_BADGE = "#2f80ed"
CACHED_BADGE = "#8a94a6"

# Each text colour and the backgrounds it is read on, as the stylesheets pair them.
TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    ("text", "window"),
    ("text", "base"),
    ("text", "alternate_base"),
    ("text", "row_hover"),
    ("text", "button_hover"),
    ("text", "pre_background"),
    ("text", "card_background"),
    ("text", "reader_selection"),
    ("heading", "base"),
    ("heading", "selection"),
    ("secondary_text", "surface"),
    ("secondary_text", "base"),
    ("muted_text", "base"),
    ("muted_text", "surface"),
    ("muted_text", "window"),
    ("faint_text", "base"),
    ("faint_text", "placeholder_background"),
    ("link", "base"),
    ("link", "card_background"),
    ("accent_text", "selection"),
    ("on_accent", "accent"),
    ("popup_text", "popup"),
    ("popup_action", "popup"),
    ("code_text", "code_background"),
    ("notice_text", "notice_background"),
    ("missing_text", "base"),
    ("problem_text", "base"),
    ("pending_badge_text", "pending_badge"),
    ("moment_text", "base"),
    ("text", "find_match"),
    ("find_current_text", "find_current"),
)


def theme_for(setting: str, system_is_dark: bool) -> Palette:
    """The palette a theme setting means: ``light``, ``dark``, or the system's for ``system``."""
    if setting == "light":
        return LIGHT
    if setting == "dark":
        return DARK
    return DARK if system_is_dark else LIGHT


def fill_colours(template: str, palette: Palette) -> str:
    """A stylesheet with every ``$name`` replaced by the palette's colour of that name.

    An unknown name raises ``KeyError``: a stylesheet never ships a colour no palette has.
    """
    return Template(template).substitute(palette.colours())


def relative_luminance(colour: str) -> float:
    """The WCAG relative luminance of a ``#rrggbb`` colour (0 black, 1 white)."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(foreground: str, background: str) -> float:
    """The WCAG contrast ratio of two colours, from 1 (same) to 21 (black on white)."""
    lighter, darker = sorted(
        (relative_luminance(foreground), relative_luminance(background)), reverse=True
    )
    return (lighter + 0.05) / (darker + 0.05)
