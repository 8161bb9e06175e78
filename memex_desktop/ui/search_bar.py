"""The search bar: query field (debounced), cloud toggle, type / tag / date filters, chips.

The field and the cloud toggle share the first row, the filters the second, so the bar fits
a narrow results column. Filters show their whole choice when there is room and end it with
"…" when there is not, and the field's hint shortens to what fits: nothing is cut off.
Under them, every active filter (the query, the sidebar entry, each filter menu) is a chip
that removes it, with "Clear all" for every one at once. Tab reaches the chips where they are
on screen, after the filter menus; Delete, Backspace, Enter or Space removes the chip in focus.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field, replace

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QFontMetricsF, QKeyEvent, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QSizePolicy,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionFrame,
    QStyleOptionToolButton,
    QStylePainter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memex_desktop.api.content import type_label
from memex_desktop.api.plain_text import shortened
from memex_desktop.ui.flow_layout import FlowLayout
from memex_desktop.ui.results_model import SearchFilters

DEBOUNCE_MS = 150
# The longest query the field takes (Qt's own limit is 32,767): room for a pasted web address
# of up to 2,048 characters (the sitemap protocol's limit, which most sites keep within) to
# find its item by exact address, while a pasted page is cut rather than searched: past 64
# terms the search language reads nothing more anyway.
MAX_QUERY_CHARS = 2048
DAY_MS = 24 * 3600 * 1000
DATE_CHOICES: tuple[tuple[str, int | None], ...] = (
    ("Any time", None),
    ("Past week", 7),
    ("Past month", 31),
    ("Past year", 365),
)
# The field's hints, longest first: it shows the longest that fits its width.
PLACEHOLDERS = (
    "Search your library  (Ctrl+K; Enter adds cloud results)",
    "Search your library  (Ctrl+K)",
    "Search your library",
    "Search",
)
# A filter may narrow to this many characters (its choice then ends with "…").
FILTER_MIN_CHARS = 2
# A filter never asks for more than this width, however long a tag name is.
FILTER_MAX_HINT = 220
# A chip may narrow to this many characters (its words then end with "…").
CHIP_MIN_CHARS = 4
CHIP_REMOVE = "✕"  # the chip's "remove" cross
# The keys that remove the chip in focus: a keyboard has no cross to click.
CHIP_REMOVE_KEYS = (
    Qt.Key.Key_Delete,
    Qt.Key.Key_Backspace,
    Qt.Key.Key_Return,
    Qt.Key.Key_Enter,
    Qt.Key.Key_Space,
    Qt.Key.Key_Select,
)


@dataclass(frozen=True)
class SearchRequest:
    """What the person asked for: the query text, filters, and whether to ask the server too."""

    query: str = ""
    filters: SearchFilters = field(default_factory=SearchFilters)
    remote: bool = False


class FilterCombo(QComboBox):
    """A filter menu that asks for the width of its longest choice and may shrink below it.

    When narrower than its choice it draws the choice elided ("…") instead of cut off.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(FILTER_MIN_CHARS)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.currentIndexChanged.connect(self._on_current_index_changed)
        # A new choice may be the longest: the layout asks again.
        self.model().rowsInserted.connect(self.updateGeometry)
        self.model().rowsRemoved.connect(self.updateGeometry)

    @Slot(int)
    def _on_current_index_changed(self, _index: int) -> None:
        """A new choice: the tooltip names it."""
        self.name_choice_in_tooltip()

    def name_choice_in_tooltip(self) -> None:
        """The tooltip names the whole choice (the menu may show it elided)."""
        self.setToolTip(f"{self.accessibleName()}: {self.currentText()}")

    def sizeHint(self) -> QSize:
        """Wide enough for the longest choice (up to FILTER_MAX_HINT).

        Qt's hint holds FILTER_MIN_CHARS average characters and the style's frame and
        arrow; the longest choice replaces those characters.
        """
        base = super().sizeHint()
        metrics = self.fontMetrics()
        widest = max(
            (metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0
        )
        counted = FILTER_MIN_CHARS * metrics.horizontalAdvance("X")
        width = base.width() + max(0, widest - counted)
        return QSize(min(width, max(FILTER_MAX_HINT, base.width())), base.height())

    def minimumSizeHint(self) -> QSize:
        """Wide enough for the first choice, the one that filters nothing ("All types"):
        a narrowed window takes its room from the reader before a menu hides what it is.
        A longer choice made may still end with "…"."""
        base = super().minimumSizeHint()
        if self.count() == 0:
            return base
        # The frame and arrow around the text, as the style draws them at any width.
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.rect = QRect(0, 0, FILTER_MAX_HINT, base.height())
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        around = FILTER_MAX_HINT - field.width() + 2  # as text_room: 1 px inside each edge
        # Whole pixels rounded down could leave the text a fraction short: elided after all.
        first = math.ceil(QFontMetricsF(self.font()).horizontalAdvance(self.itemText(0)))
        return QSize(max(base.width(), first + around + 1), base.height())

    def text_room(self) -> int:
        """The width the current choice's text may take (the style's edit field)."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        return field.width() - 2  # the style draws the label 1 px inside each edge

    def shown_text(self) -> str:
        """The current choice as drawn: whole, or elided to the room."""
        elide = Qt.TextElideMode.ElideRight
        return self.fontMetrics().elidedText(self.currentText(), elide, self.text_room())

    def paintEvent(self, _event: QPaintEvent) -> None:
        """The frame and arrow as the style draws them; the choice elided to the room."""
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.currentText = self.shown_text()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)


def chip_spoken_name(label: str, *, query: bool = False) -> str:
    """What a chip is called for a screen reader: what removing it takes away ("Remove
    filter tag: zul"; the query's chip removes the search words)."""
    if query:
        return f"Remove search {label.partition(': ')[2]}"
    prefix, colon, rest = label.partition(": ")
    return f"Remove filter {prefix.lower()}: {rest}" if colon else f"Remove filter {label}"


class FilterChip(QToolButton):
    """One active filter; clicking it (or Delete, Backspace, Enter or Space while it has the
    keyboard) removes the filter. Narrow, its words end with "…".

    Signals:
        removal_requested(): the person asked to remove this chip's filter.
    """

    removal_requested = Signal()

    def __init__(self, text: str, parent: QWidget | None = None, *, query: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("filterchip")
        # Tab reaches it (a click does not take the keyboard from the search field).
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.label = ""
        self.query = False
        self.set_label(text, query=query)
        self.setAutoRaise(False)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.setAccessibleDescription("Delete, Backspace, Enter or Space removes this filter")
        self.clicked.connect(self.removal_requested)

    def set_label(self, text: str, *, query: bool = False) -> None:
        """Stand for another filter (the query chip as the person types)."""
        self.label = text
        self.query = query
        self.setText(f"{text}  {CHIP_REMOVE}")
        self.setToolTip(f"{text}: click (or press Delete) to remove this filter")
        self.setAccessibleName(chip_spoken_name(text, query=query))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """The removing keys remove the filter at once; a key held down removes one chip,
        not every chip that comes into focus after it."""
        plain = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if event.key() in CHIP_REMOVE_KEYS and plain == Qt.KeyboardModifier.NoModifier:
            event.accept()
            if not event.isAutoRepeat():
                self.removal_requested.emit()
            return
        super().keyPressEvent(event)

    def minimumSizeHint(self) -> QSize:
        """A few characters and the cross: many chips never widen the window."""
        hint = super().minimumSizeHint()
        room = self.fontMetrics().horizontalAdvance("X" * CHIP_MIN_CHARS + f"…  {CHIP_REMOVE}")
        return QSize(min(hint.width(), room + 12), hint.height())

    def paintEvent(self, _event: QPaintEvent) -> None:
        """The button as the style draws it; the words elided to the width, the cross kept."""
        painter = QStylePainter(self)
        option = QStyleOptionToolButton()
        self.initStyleOption(option)
        cross = f"  {CHIP_REMOVE}"
        room = self.width() - 12 - self.fontMetrics().horizontalAdvance(cross)
        words = self.fontMetrics().elidedText(self.label, Qt.TextElideMode.ElideRight, room)
        option.text = words + cross
        painter.drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option)


class SearchField(QLineEdit):
    """The query field: its hint is the longest of PLACEHOLDERS that fits its width."""

    def text_room(self) -> int:
        """The width text may take: the style's contents less margins and the clear button."""
        option = QStyleOptionFrame()
        self.initStyleOption(option)
        contents = self.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, self)
        margins = self.textMargins()
        right = contents.right() - margins.right()
        for button in self.findChildren(QToolButton):  # the clear button sits at the right end
            right = min(right, button.geometry().left() - 1)
        return right - (contents.left() + margins.left()) - 4  # Qt keeps 2 px at each side

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Choose the hint for the new width."""
        super().resizeEvent(event)
        self._fit_placeholder()

    def _fit_placeholder(self) -> None:
        """Show the longest hint that fits (the shortest when none does)."""
        room = self.text_room()
        metrics = self.fontMetrics()
        fitting = [text for text in PLACEHOLDERS if metrics.horizontalAdvance(text) <= room]
        hint = fitting[0] if fitting else PLACEHOLDERS[-1]
        if self.placeholderText() != hint:
            self.setPlaceholderText(hint)


class SearchBar(QWidget):
    """Query field and filters.

    Signals:
        search_changed(object): the SearchRequest after typing settled or a filter changed.
        remote_requested(object): Enter was pressed (or the cloud toggle turned on).
        move_to_results(): Down was pressed in the field.
        scope_removed(): the sidebar entry's chip was removed (or Clear all clicked).
        query_cut(int): what was pasted or typed went past MAX_QUERY_CHARS; the field kept
            this many characters.
    """

    search_changed = Signal(object)
    remote_requested = Signal(object)
    move_to_results = Signal()
    scope_removed = Signal()
    query_cut = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchbar")
        self.field = SearchField(self)
        self.field.setObjectName("searchfield")
        self.field.setPlaceholderText(PLACEHOLDERS[0])
        self.field.setToolTip("Ctrl+K; results update as you type, Enter adds cloud results")
        self.field.setClearButtonEnabled(True)
        self.field.setMaxLength(MAX_QUERY_CHARS)
        self.field.setAccessibleName("Search")
        self.field.setAccessibleDescription("Results update as you type; Enter asks the server too")
        self.field.installEventFilter(self)
        self.cloud = QToolButton(self)
        self.cloud.setObjectName("cloudtoggle")
        self.cloud.setText("Cloud")
        self.cloud.setCheckable(True)
        self.cloud.setToolTip("Also search the Memex server as you type (Enter does it once)")
        self.cloud.setAccessibleName("Include results from the Memex server")
        self.types = FilterCombo(self)
        self.types.setObjectName("typefilter")
        self.types.setAccessibleName("Filter by type")
        self.types.addItem("All types", None)
        self.tags = FilterCombo(self)
        self.tags.setObjectName("tagfilter")
        self.tags.setAccessibleName("Filter by tag")
        self.tags.addItem("Any tag", None)
        self.dates = FilterCombo(self)
        self.dates.setObjectName("datefilter")
        self.dates.setAccessibleName("Filter by date saved")
        for label, days in DATE_CHOICES:
            self.dates.addItem(label, days)
        for combo in (self.types, self.tags, self.dates):
            combo.name_choice_in_tooltip()
        query_row = QHBoxLayout()
        query_row.setSpacing(6)
        query_row.addWidget(self.field, 1)
        query_row.addWidget(self.cloud)
        filter_row = QHBoxLayout()
        filter_row.setSpacing(6)
        for combo in (self.types, self.tags, self.dates):
            filter_row.addWidget(combo, 1)
        self.chips = QWidget(self)
        self.chips.setObjectName("filterchips")
        self.chips.setAccessibleName("Active filters")
        # The chips wrap onto more rows rather than cut their words at a laptop's width.
        self._chip_row = FlowLayout(self.chips, spacing=4)
        self._chip_row.setContentsMargins(0, 0, 0, 0)
        self.clear_all_button = QToolButton(self.chips)
        self.clear_all_button.setObjectName("clearfilters")
        self.clear_all_button.setText("Clear all")
        self.clear_all_button.setAutoRaise(True)
        self.clear_all_button.setAccessibleName("Clear every filter and the search")
        self.clear_all_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.clear_all_button.clicked.connect(self._on_clear_all_button_clicked)
        self._chip_row.addWidget(self.clear_all_button)
        # Many chips never widen the results column: they take more rows (and a chip wider
        # than the column ends its words with "…").
        chips_policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        chips_policy.setHeightForWidth(True)
        self.chips.setSizePolicy(chips_policy)
        self.chips.hide()
        self._scope_chip: str | None = None
        self._shown_query = ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addLayout(query_row)
        layout.addLayout(filter_row)
        layout.addWidget(self.chips)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.field.textChanged.connect(self._on_field_text_changed)
        self.field.returnPressed.connect(self._on_field_return_pressed)
        self.field.inputRejected.connect(self._on_field_input_rejected)
        self.cloud.toggled.connect(self._on_cloud_toggled)
        for combo in (self.types, self.tags, self.dates):
            combo.currentIndexChanged.connect(self._on_filter_changed)

    def request(self) -> SearchRequest:
        """The current query and filters."""
        days = self.dates.currentData()
        date_from = int(time.time() * 1000) - int(days) * DAY_MS if days else None
        entity_type = self.types.currentData()
        filters = SearchFilters(
            types=(entity_type,) if entity_type else (),
            tag_id=self.tags.currentData(),
            date_from_ms=date_from,
        )
        return SearchRequest(self.field.text().strip(), filters, self.cloud.isChecked())

    def set_type_choices(self, types: list[str]) -> None:
        """Offer these content types in the type filter (keeps the current choice)."""
        self._refill(self.types, "All types", [(type_label(t), t) for t in types])

    def set_tag_choices(self, tags: list[tuple[str, str]]) -> None:
        """Offer these (name, id) tags in the tag filter (keeps the current choice)."""
        self._refill(self.tags, "Any tag", tags)

    def _refill(self, combo: FilterCombo, first: str, items: list[tuple[str, str]]) -> None:
        """Replace a combo's entries without announcing a change when the choice survives."""
        current = combo.currentData()
        wanted = [(first, None), *items]
        if [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())] == wanted:
            return
        combo.blockSignals(True)
        combo.clear()
        for label, value in wanted:
            combo.addItem(label, value)
        position = combo.findData(current) if current is not None else 0
        combo.setCurrentIndex(max(0, position))
        combo.blockSignals(False)
        combo.name_choice_in_tooltip()
        if current is not None and position < 0:
            self._on_filter_changed()

    def focus_order(self) -> list[QWidget]:
        """The bar's controls in the order Tab visits them, as they stand on screen: the
        field and the cloud toggle, the filter menus, then each chip and Clear all."""
        return [
            self.field,
            self.cloud,
            self.types,
            self.tags,
            self.dates,
            *self.chip_buttons(),
            self.clear_all_button,
        ]

    def _order_chips(self) -> None:
        """Put the chips in the Tab order after the filter menus, before Clear all.

        A new chip joins the window's Tab order at its end (after the reader); each is
        moved behind the one before it, so whatever follows the bar still follows Clear all.
        """
        order = [self.dates, *self.chip_buttons(), self.clear_all_button]
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

    def focus_field(self) -> None:
        """Move the keyboard to the query field with its text selected."""
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down in the query field moves to the results; Escape clears the query."""
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            key = event.key() if isinstance(event, QKeyEvent) else None
            if key == Qt.Key.Key_Down:
                self.flush()  # what was just typed is searched, not the list it replaces
                self.move_to_results.emit()
                return True
            if key == Qt.Key.Key_Escape and self.field.text():
                self.field.clear()
                return True
        return super().eventFilter(watched, event)

    @Slot(str)
    def _on_field_text_changed(self, _text: str) -> None:
        """Restart the debounce timer on each keystroke."""
        self._timer.start()

    @Slot()
    def _on_field_input_rejected(self) -> None:
        """A paste (or a key) went past the field's length: say what was kept."""
        if len(self.field.text()) >= self.field.maxLength():
            self.query_cut.emit(self.field.maxLength())

    @Slot()
    def _on_timer_timeout(self) -> None:
        """Typing settled: announce the search."""
        self._announce()

    @Slot()
    def _on_filter_changed(self) -> None:
        """A filter changed: search at once."""
        self._timer.stop()
        self._announce()

    def _announce(self) -> None:
        """Show the chips of what is active, then announce the search."""
        request = self.request()
        self._shown_query = request.query
        self._refresh_chips()
        self.search_changed.emit(request)

    # -- chips -----------------------------------------------------------------------------

    def filter_labels(self) -> list[str]:
        """The chip texts of the filter menus that narrow the search (not the query)."""
        labels = []
        if self.types.currentIndex() > 0:
            labels.append(f"Type: {self.types.currentText()}")
        if self.tags.currentIndex() > 0:
            labels.append(f"Tag: {self.tags.currentText()}")
        if self.dates.currentIndex() > 0:
            labels.append(f"Saved: {self.dates.currentText().lower()}")
        return labels

    def chip_labels(self) -> list[str]:
        """What the chips show, in order: the query, the sidebar entry, the filter menus."""
        labels = [self._query_chip()] if self._shown_query else []
        if self._scope_chip:
            labels.append(self._scope_chip)
        return labels + self.filter_labels()

    def _query_chip(self) -> str:
        """The query's chip: its words as typed, named as the other chips are ("Search: fox
        grir"), shortened to a few dozen characters. Quotes around plain words made them look
        like the phrase "fox grir"; a pasted page with its line breaks made the chip as tall."""
        return f"Search: {shortened(self._shown_query)}"

    def chip_buttons(self) -> list[FilterChip]:
        """The chips on screen, in order."""
        chips = []
        for position in range(self._chip_row.count()):
            item = self._chip_row.itemAt(position)
            widget = item.widget() if item is not None else None
            if isinstance(widget, FilterChip):
                chips.append(widget)
        return chips

    def set_scope_chip(self, text: str | None) -> None:
        """Show the sidebar entry that narrows the results as a chip (None: no chip)."""
        if text != self._scope_chip:
            self._scope_chip = text
            self._refresh_chips()

    def _refresh_chips(self) -> None:
        """One chip per active filter, and Clear all when there is any.

        The chips on screen are relabelled rather than made again: the query chip changes
        at every keystroke, and building its widget was a tenth of a keystroke's work.
        """
        wanted = self.chip_labels()
        shown = self.chip_buttons()
        for position, (chip, label) in enumerate(zip(shown, wanted, strict=False)):
            query = self._is_query_chip(position)
            if (chip.label, chip.query) != (label, query):
                chip.set_label(label, query=query)
        for chip in shown[len(wanted) :]:
            self._chip_row.removeWidget(chip)
            chip.hide()  # gone at once, though deleted only when the event loop is back
            chip.deleteLater()
        for position in range(len(shown), len(wanted)):
            chip = FilterChip(wanted[position], self.chips, query=self._is_query_chip(position))
            chip.removal_requested.connect(self._on_chip_removal_requested)
            self._chip_row.insert_widget(position, chip)
        if len(wanted) > len(shown):
            self._order_chips()
        self.chips.setVisible(bool(wanted))

    def _is_query_chip(self, position: int) -> bool:
        """Whether the chip at ``position`` stands for the query (it comes first)."""
        return position == 0 and bool(self._shown_query)

    @Slot()
    def _on_chip_removal_requested(self) -> None:
        """Remove the filter of the chip clicked (or keyed); the search runs again at once.

        The chip with the keyboard hands it on: to the chip that takes its place, else
        (it was the last) back to the field, never to wherever Qt sends it when a chip hides.
        """
        chip = self.sender()
        chips = self.chip_buttons()
        if not isinstance(chip, FilterChip) or chip not in chips:
            return
        position = chips.index(chip)
        had_focus = chip.hasFocus()
        if had_focus and position == len(chips) - 1:
            self.field.setFocus(Qt.FocusReason.OtherFocusReason)
        self.remove_filter(chip.label)
        if had_focus:
            remaining = self.chip_buttons()
            follower = remaining[position] if position < len(remaining) else self.field
            follower.setFocus(Qt.FocusReason.OtherFocusReason)

    def remove_filter(self, label: str) -> None:
        """Remove the filter a chip with this text stands for (its search runs again)."""
        if self._shown_query and label == self._query_chip():
            self._clear_query()
        elif label == self._scope_chip:
            self.scope_removed.emit()
        else:
            menus = ((self.types, "Type: "), (self.tags, "Tag: "), (self.dates, "Saved: "))
            for combo, prefix in menus:
                if combo.currentIndex() > 0 and label.startswith(prefix):
                    combo.setCurrentIndex(0)  # announces the search

    def _empty_field(self) -> None:
        """Empty the query field with no debounced search of the old words to follow.

        The field's signals stay on: QLineEdit hides its clear button only when it hears its
        own textChanged, so a field emptied with them blocked kept the button beside nothing.
        """
        self.field.clear()
        self._timer.stop()

    def _clear_query(self) -> None:
        """Empty the query field and search at once (no debounce)."""
        self._empty_field()
        self._on_filter_changed()

    @Slot()
    def clear_query(self) -> None:
        """Clear search: empty the query field, search again at once."""
        self._clear_query()

    @Slot()
    def _on_clear_all_button_clicked(self) -> None:
        """Clear all; pressed from the keyboard, the field has it next (the button hides)."""
        if self.clear_all_button.hasFocus():
            self.field.setFocus(Qt.FocusReason.OtherFocusReason)
        self.clear_all()

    @Slot()
    def clear_all(self) -> None:
        """Clear all: the query, the filter menus and the sidebar entry; one search follows."""
        self._empty_field()
        for combo in (self.types, self.tags, self.dates):
            combo.blockSignals(True)
            combo.setCurrentIndex(0)
            combo.blockSignals(False)
            combo.name_choice_in_tooltip()
        if self._scope_chip:
            self.scope_removed.emit()
        self._announce()

    @Slot()
    def _on_field_return_pressed(self) -> None:
        """Enter: search now, locally and on the server."""
        self._timer.stop()
        self._announce()
        self.remote_requested.emit(replace(self.request(), remote=True))

    @Slot(bool)
    def _on_cloud_toggled(self, checked: bool) -> None:
        """Turning the cloud toggle on asks the server for the current query at once."""
        self._on_filter_changed()
        if checked and self.field.text().strip():
            self.remote_requested.emit(replace(self.request(), remote=True))

    def flush(self) -> None:
        """Emit a pending debounced search now."""
        if self._timer.isActive():
            self._timer.stop()
            self._on_timer_timeout()
