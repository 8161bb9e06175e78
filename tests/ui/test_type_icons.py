"""Each type people can save has a drawn icon in the list; a letter badge is left for types
no one has named."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QImage

from memex_desktop.api.content import TYPE_LABELS
from memex_desktop.ui.results_delegate import TypeIcons

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


@pytest.mark.parametrize("entity_type", sorted(TYPE_LABELS))
def test_every_named_type_has_a_drawn_icon(qtbot: Any, entity_type: str) -> None:
    del qtbot  # the application, for rendering SVG
    icons = TypeIcons()
    assert icons.icon(entity_type) is not None
    drawn = icons.pixmap(entity_type, 24, 1.0, "#000000").toImage()
    inked = sum(
        1 for x in range(24) for y in range(24) if QImage.pixelColor(drawn, x, y).alpha() > 0
    )
    assert inked > 20  # a line drawing, not an empty square


def test_a_type_no_one_named_keeps_its_letter_badge(qtbot: Any) -> None:
    del qtbot
    assert TypeIcons().icon("hologram") is None
