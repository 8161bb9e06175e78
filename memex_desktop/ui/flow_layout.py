"""A layout that puts widgets side by side and wraps them onto more rows when narrow.

Each widget keeps its size hint, so none is ever cut off; a narrow pane only grows taller.
Its minimum width is its widest item's; an item wider than the whole row gets the row's width.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QStyle, QWidget, QWidgetItem


class FlowLayout(QLayout):
    """Items left to right at their size hints, wrapping to a new row where the width ends."""

    def __init__(self, parent: QWidget | None = None, spacing: int = -1) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing

    def addItem(self, item: QLayoutItem) -> None:
        """Qt's hook for addWidget: keep the item, in order."""
        self._items.append(item)

    def insert_widget(self, index: int, widget: QWidget) -> None:
        """Put ``widget`` at ``index`` in the order (what QBoxLayout.insertWidget does)."""
        self.addChildWidget(widget)
        self._items.insert(index, QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        """How many items."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        """The item at ``index``, or None past the end."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        """Remove and return the item at ``index``."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        """Never wider or taller than the items need."""
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        """Its height depends on the width it gets."""
        return True

    def heightForWidth(self, width: int) -> int:
        """The height of the rows at ``width``."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        """Place the items in ``rect``."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """Every item on one row."""
        margins = self.contentsMargins()
        width = sum(item.sizeHint().width() for item in self._items)
        width += self._gap(Qt.Orientation.Horizontal) * max(0, len(self._items) - 1)
        height = max((item.sizeHint().height() for item in self._items), default=0)
        return QSize(width, height).grownBy(margins)

    def minimumSize(self) -> QSize:
        """The widest item alone on a row."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.sizeHint())
        return size.grownBy(self.contentsMargins())

    def _gap(self, orientation: Qt.Orientation) -> int:
        """The spacing asked for, else the style's between two tool buttons."""
        if self._spacing >= 0:
            return self._spacing
        parent = self.parentWidget()
        if parent is None:
            return 6
        metric = (
            QStyle.PixelMetric.PM_LayoutHorizontalSpacing
            if orientation == Qt.Orientation.Horizontal
            else QStyle.PixelMetric.PM_LayoutVerticalSpacing
        )
        gap = parent.style().pixelMetric(metric, None, parent)
        if gap < 0:
            gap = parent.style().layoutSpacing(
                QSizePolicy.ControlType.ToolButton, QSizePolicy.ControlType.ToolButton, orientation
            )
        return max(0, gap)

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        """Lay the items out in ``rect`` (or only measure); the height used."""
        inner = rect.marginsRemoved(self.contentsMargins())
        margins: QMargins = self.contentsMargins()
        x, y = inner.x(), inner.y()
        row_height = 0
        across, down = self._gap(Qt.Orientation.Horizontal), self._gap(Qt.Orientation.Vertical)
        for item in self._items:
            if item.isEmpty():
                continue
            size = item.sizeHint()
            size.setWidth(min(size.width(), inner.width()))
            if x > inner.x() and x + size.width() > inner.right() + 1:
                x, y = inner.x(), y + row_height + down
                row_height = 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), size))
            x += size.width() + across
            row_height = max(row_height, size.height())
        return y + row_height - rect.y() + margins.bottom()
