"""Why an item's pictures did not load, in words: every kind of refusal has its own."""

from __future__ import annotations

import pytest

from memex_desktop.errors import PictureFailure, images_not_loaded
from memex_desktop.render.remote_images import REFUSAL_KINDS


@pytest.mark.parametrize("kind", [kind for kind in REFUSAL_KINDS if kind != "cancelled"])
def test_every_kind_of_refusal_has_its_own_words(kind: str) -> None:
    message = images_not_loaded([PictureFailure(kind, "media.example.com", "status 503")], 1)
    assert message is not None
    assert message.text == "The picture was not loaded."
    assert message.detail is not None
    assert "did not send" not in message.detail  # the fallback for a kind without words


def test_an_unreachable_site_is_named_with_what_to_do() -> None:
    message = images_not_loaded([PictureFailure("unreachable", "media.example.com")], 3)
    assert message is not None
    assert message.text == "1 of 3 pictures were not loaded."
    assert message.detail == (
        "media.example.com could not be reached (no connection, or no such site)."
    )
    assert message.action == "Check the connection, then try again."


def test_several_reasons_are_each_said_once() -> None:
    failures = [
        PictureFailure("status", "a.example", "status 404"),
        PictureFailure("status", "b.example", "status 410"),
        PictureFailure("not_image", "c.example", "an SVG document"),
    ]
    message = images_not_loaded(failures, 3)
    assert message is not None
    assert message.text == "None of the 3 pictures were loaded."
    assert message.detail == (
        "a.example and b.example answered with an error (HTTP 404 and HTTP 410) instead of them; "
        "c.example sent an SVG drawing, which the reader never loads (it can carry script)."
    )


def test_cancelled_pictures_need_no_words() -> None:
    assert images_not_loaded([PictureFailure("cancelled", "a.example")], 1) is None
    assert images_not_loaded([], 2) is None
