"""The reader's pictures: loaded on a worker (kept ones first), and why any did not load.

:func:`load_item_images` runs on the render worker: it asks the item's
:class:`~memex_desktop.render.image_cache.ImageSource` for the pictures (the kept ones read
offline, the rest fetched and kept), decodes each in the format its bytes were checked to be
(so no image plugin ever sees an SVG or anything else), and puts the failures into words
(``errors.images_not_loaded``). :class:`ImagesNotice` shows those words above the text, with
a button that tries again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt, Signal
from PySide6.QtGui import QImage, QImageReader
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from memex_desktop.errors import PictureFailure, UserMessage, images_not_loaded
from memex_desktop.render.image_cache import ImageSource
from memex_desktop.render.image_check import CheckedImage
from memex_desktop.render.remote_images import Refusal, wanted_images

log = logging.getLogger(__name__)

_QT_FORMATS = {"png": b"PNG", "jpeg": b"JPEG", "gif": b"GIF", "webp": b"WEBP"}


@dataclass
class ItemImages:
    """An item's pictures, decoded, and what to tell the person about those that failed."""

    images: dict[str, QImage] = field(default_factory=dict)
    notice: UserMessage | None = None


def decoded(image: CheckedImage) -> QImage | None:
    """The picture decoded as the format it was checked to be (never another format Qt may
    guess from the content); None when Qt cannot read it or it is not the size it said."""
    buffer = QBuffer()
    buffer.setData(QByteArray(image.body))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, QByteArray(_QT_FORMATS[image.format]))
    reader.setDecideFormatFromContent(False)
    size = reader.size()
    if size.isValid() and (size.width(), size.height()) != (image.width, image.height):
        return None
    picture = reader.read()
    buffer.close()
    return None if picture.isNull() else picture


def _host(url: str) -> str:
    """The site of an address, for the words (empty when it has none)."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


LOADING = UserMessage("info", "Loading the pictures from the web…")


def load_item_images(
    urls: list[str],
    cancel: threading.Event,
    source: ImageSource,
    show_kept: Callable[[ItemImages], None] | None = None,
) -> ItemImages:
    """Worker: the pictures the person allowed for one item, decoded, and why any are missing.

    When some must come from the web, ``show_kept`` first gets the kept ones (with a notice
    that the rest are loading), so the item reads at once however slow the network is.
    """
    pictures: dict[str, QImage | None] = {}

    def decode(images: dict[str, CheckedImage]) -> dict[str, QImage]:
        # Each picture is decoded once, though the kept ones are shown twice.
        shown: dict[str, QImage] = {}
        for url, checked in images.items():
            if url not in pictures:
                pictures[url] = decoded(checked)
            picture = pictures[url]
            if picture is not None:
                shown[url] = picture
        return shown

    def kept(images: dict[str, CheckedImage]) -> None:
        if show_kept is not None:
            show_kept(ItemImages(decode(images), LOADING))

    loaded = source.load(urls, cancel, kept)
    images = decode(loaded.images)
    refused: dict[str, Refusal] = dict(loaded.refused)
    for url, checked in loaded.images.items():
        if url not in images:
            refused[url] = Refusal("not_image", f"{checked.format} that does not decode")
    for url, refusal in refused.items():
        log.info("remote image not loaded (%s): %s", refusal.detail, url[:200])
    failures = [
        PictureFailure(refusal.kind, _host(url), refusal.detail) for url, refusal in refused.items()
    ]
    wanted = len(wanted_images(urls, source.policy))
    return ItemImages(images, images_not_loaded(failures, wanted))


class ImagesNotice(QWidget):
    """The line above the reader's text saying why pictures did not load, with "Try again".

    Signals:
        retry_requested(): the person asked to load the pictures again.
    """

    retry_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("readerimagesnotice")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel("", self)
        self.label.setObjectName("readerimagesnoticetext")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.retry_button = QToolButton(self)
        self.retry_button.setText("Try again")
        self.retry_button.setToolTip("Load this item's pictures again")
        self.retry_button.setAccessibleName("Load the pictures again")
        self.retry_button.setAutoRaise(True)
        self.retry_button.clicked.connect(self.retry_requested)
        row.addWidget(self.label, 1)
        row.addWidget(self.retry_button)
        self.setVisible(False)

    def show_notice(self, notice: UserMessage | None) -> None:
        """Say why pictures are missing (or that they are on their way); hidden when nothing
        needs saying."""
        self.label.setText("" if notice is None else notice_text(notice))
        self.retry_button.setVisible(notice is not None and notice.level != "info")
        self.setVisible(notice is not None)


def notice_text(notice: UserMessage) -> str:
    """What went wrong, why, and what to do: the message with its detail in the middle."""
    parts = (notice.text, notice.detail or "", notice.action or "")
    return " ".join(part.strip() for part in parts if part.strip())
