"""Pictures in the reader scaled down to the width they have, never up, keeping their shape.

Qt lays an ``<img>`` out at its own size (or at the ``width``/``height`` the page gave it), so a
big picture would be wider than the reader and scroll sideways. :func:`fit_images` sets each
picture's size to what fits the line it stands on (the page's width less the indent of its
quote or list), keeping its aspect ratio; the size it was meant to have is kept in its format,
so a wider reader shows it bigger again, up to that size.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, QSizeF, Qt, QUrl
from PySide6.QtGui import QImage, QTextCursor, QTextDocument, QTextFormat, QTextImageFormat

# Where an image's format keeps the size the page meant it to have (QTextFormat.UserProperty
# + "MI"); the highlight painter's property is "MH".
INTENDED_SIZE_PROPERTY = int(QTextFormat.Property.UserProperty.value) + 0x4D49
# The character that stands for a picture in a document's text.
OBJECT_CHARACTER = "\ufffc"
# Qt sizes a picture in points of a 96 dpi screen.
_DEFAULT_DPI = 96.0


def intended_size(image_format: QTextImageFormat, picture: QImage) -> QSizeF:
    """The size the page meant: its width and height, one of them with the picture's shape
    for the other, else the picture's own size."""
    width = image_format.width() if image_format.hasProperty(QTextFormat.Property.ImageWidth) else 0
    height = (
        image_format.height() if image_format.hasProperty(QTextFormat.Property.ImageHeight) else 0
    )
    own_width, own_height = picture.width(), picture.height()
    if width > 0 and height > 0:
        return QSizeF(width, height)
    if width > 0:
        return QSizeF(width, width * own_height / own_width)
    if height > 0:
        return QSizeF(height * own_width / own_height, height)
    return QSizeF(own_width, own_height)


def fitted_size(intended: QSizeF, room: float) -> QSizeF:
    """``intended`` scaled down to ``room`` pixels wide when wider, keeping its shape."""
    if intended.width() <= room or intended.width() <= 0:
        return QSizeF(intended)
    room = max(1.0, room)
    return QSizeF(room, max(1.0, round(intended.height() * room / intended.width())))


def fit_images(
    document: QTextDocument,
    page_width: float,
    picture: Callable[[str], QImage | None],
    pixel_ratio: float = 1.0,
) -> int:
    """Size every picture of ``document`` (``picture`` gives it by name) to fit a page of
    ``page_width`` pixels; returns how many sizes and pictures changed.

    Qt draws a picture into its box without smoothing, so a picture shown smaller than it is
    goes into the document scaled smoothly to that size (at ``pixel_ratio``, the screen's).
    """
    text = document.toRawText()
    position = text.find(OBJECT_CHARACTER)
    if position < 0:
        return 0
    document.setUndoRedoEnabled(False)  # a size is no edit to undo
    layout = document.documentLayout()
    device = layout.paintDevice()
    scale = device.logicalDpiY() / _DEFAULT_DPI if device is not None else 1.0
    right = page_width - document.documentMargin()
    cursor = QTextCursor(document)
    changed = 0
    shown_at: dict[str, QSizeF] = {}  # the largest size each picture is shown at
    while position >= 0:
        cursor.setPosition(position)
        cursor.setPosition(position + 1, QTextCursor.MoveMode.KeepAnchor)
        shown = cursor.charFormat()
        name = shown.toImageFormat().name() if shown.isImageFormat() else ""
        found = picture(name) if name else None
        if found is not None and found.width() > 0 and found.height() > 0:
            image_format = shown.toImageFormat()
            intended = image_format.property(INTENDED_SIZE_PROPERTY)
            if not isinstance(intended, QSizeF):
                intended = intended_size(image_format, found)
                image_format.setProperty(INTENDED_SIZE_PROPERTY, intended)
            room = _room(document, position, right) / scale
            size = fitted_size(intended, room)
            if (image_format.width(), image_format.height()) != (size.width(), size.height()):
                image_format.setWidth(size.width())
                image_format.setHeight(size.height())
                cursor.setCharFormat(image_format)
                changed += 1
            if name not in shown_at or shown_at[name].width() < size.width():
                shown_at[name] = size
        position = text.find(OBJECT_CHARACTER, position + 1)
    for name, size in shown_at.items():
        found = picture(name)
        if found is not None:
            changed += _smooth_resource(document, name, found, size * scale * pixel_ratio)
    return changed


def _smooth_resource(document: QTextDocument, name: str, picture: QImage, size: QSizeF) -> int:
    """Give ``document`` the picture at ``size`` device pixels (scaled smoothly, unless that
    is its own size); 1 when it had another, else 0."""
    wanted = QSize(max(1, round(size.width())), max(1, round(size.height())))
    kind = QTextDocument.ResourceType.ImageResource.value
    url = QUrl(name)
    held = document.resource(kind, url)
    if isinstance(held, QImage) and held.size() == wanted:
        return 0
    if picture.size() == wanted:
        document.addResource(kind, url, picture)
    else:
        scaled = picture.scaled(
            wanted,
            Qt.AspectRatioMode.IgnoreAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        document.addResource(kind, url, scaled)
    return 1


def _room(document: QTextDocument, position: int, page_right: float) -> float:
    """The width the line holding ``position`` has: to the page's right edge, or in a table,
    its cell's share of the table's room.

    A table takes its width from what its cells hold, so pictures sized to the page would
    push it past the page's edge; each column is given an equal share instead.
    """
    cursor = QTextCursor(document)
    cursor.setPosition(position)
    table = cursor.currentTable()
    if table is None:
        return page_right - _line_left(document, position)
    table_format = table.format()
    before = QTextCursor(document)
    before.setPosition(table.firstPosition() - 1)
    outer = before.currentTable()
    if outer is None or outer == table:  # the table stands on the page
        room = page_right - document.documentLayout().frameBoundingRect(table).x()
    else:  # in a cell of another table
        room = _room(document, table.firstPosition() - 1, page_right)
    room -= table_format.leftMargin() + table_format.rightMargin()
    border, spacing = table_format.border(), table_format.cellSpacing()
    columns = max(1, table.columns())
    # Between cells, before the first and after the last: spacing; around them: the border.
    share = (room - 2 * border - spacing * (columns + 1)) / columns
    cell = table.cellAt(position)
    span = cell.columnSpan()
    width = share * span + spacing * (span - 1) - 2 * (table_format.cellPadding() + border)
    # A quote or list in the cell takes its indent.
    return width - (_line_left(document, position) - _line_left(document, cell.firstPosition()))


def _line_left(document: QTextDocument, position: int) -> float:
    """Where the line holding ``position`` starts on the page (its quote's or list's indent
    and its block's right margin included, as room taken)."""
    block = document.findBlock(position)
    rect = document.documentLayout().blockBoundingRect(block)  # lays the block out
    line = block.layout().lineForTextPosition(position - block.position())
    indent = line.x() if line.isValid() else block.blockFormat().leftMargin()
    return rect.x() + indent + block.blockFormat().rightMargin()
