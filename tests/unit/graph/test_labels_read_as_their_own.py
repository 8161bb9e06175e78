"""Labels of a crowded small drawing: each reads as its own node's, and every node finds one.

Tried on the demo library in the dock beside the reader (the drawing about 290 × 175 px), the
talk "The Network Is an Optimisation" and its eight neighbours showed "Design review: offline
saves" touching its dot by a corner only and running left, between the focused item, "offline"
and "favourites", where a person read it as theirs; the note and the highlight had no label
though a shortened one had room; and once two highlights were added and the drawing laid out
again, the focused item's own label was gone. The drawings here are the ones the pane drew
then, in screen pixels (scale 1): dots by their centre and reach (the ring a label touches),
label widths as the pane measured them, 14 px high.
"""

from __future__ import annotations

import math

from memex_desktop.graph import (
    Box,
    LabelCandidate,
    label_candidate,
    place_beside_dots,
    places_beside,
)

Dots = dict[str, tuple[float, float, float]]

HEIGHT = 14.0
SPACING = 4.0
CLEARANCE = 3.0
CENTER = "youtube-local-first-talk"
VIEW = Box(0.0, 0.0, 291.0, 174.0)

# The talk and its neighbours as drawn at a zoom of 1.075: the focused dot's reach is its
# radius with its outline and the gap, larger than the others'.
TALK: Dots = {
    CENTER: (146.0, 89.0, 15.11),
    "chatThread-offline-design": (207.6, 110.3, 9.95),
    "note-lesson-two-outbox-r1": (99.0, 43.5, 9.95),
    "selector-network-optimisation": (200.0, 53.8, 9.95),
    "tag-favourites": (167.0, 150.0, 9.95),
    "tag-local-first": (81.9, 96.5, 9.95),
    "tag-offline": (112.2, 144.6, 9.95),
    "tag-sync": (153.3, 23.9, 9.95),
}
# Each label's widths on screen: the whole name, then cut to 18 and to 10 characters.
TALK_WIDTHS = {
    CENTER: (212.0, 141.6, 91.2),
    "chatThread-offline-design": (174.4, 122.6, 76.2),
    "note-lesson-two-outbox-r1": (173.7, 117.7, 76.8),
    "selector-network-optimisation": (188.5, 118.3, 71.6),
    "tag-favourites": (67.2,),
    "tag-local-first": (62.7,),
    "tag-offline": (44.2,),
    "tag-sync": (34.5,),
}

# The same talk with two more highlights, laid out again (zoom 0.975).
WITH_HIGHLIGHTS: Dots = {
    CENTER: (145.0, 93.0, 13.9),
    "chatThread-offline-design": (197.0, 124.0, 9.2),
    "note-lesson-two-outbox-r1": (115.0, 145.0, 9.2),
    "selector-a": (107.0, 23.0, 9.2),
    "selector-b": (93.0, 66.0, 9.2),
    "selector-network-optimisation": (149.0, 35.0, 9.2),
    "tag-favourites": (193.0, 34.0, 9.2),
    "tag-local-first": (201.0, 78.0, 9.2),
    "tag-offline": (88.0, 108.0, 9.2),
    "tag-sync": (159.0, 151.0, 9.2),
}


def _order(dots: Dots) -> list[str]:
    """The pane's importance order here: the focused item, then its neighbours by id (each
    has one link)."""
    return [CENTER, *sorted(key for key in dots if key != CENTER)]


def _whole_names(dots: Dots, widths: dict[str, tuple[float, ...]]) -> list[LabelCandidate]:
    """Each node's whole name beside its dot, the focused item's also shortened, as the
    pane offered them."""
    candidates = []
    for key in _order(dots):
        x, y, reach = dots[key]
        if key == CENTER:
            boxes = tuple(
                box
                for width in widths[key]
                for box in places_beside(x, y, reach, width, HEIGHT, running=True)
            )
        else:
            boxes = places_beside(x, y, reach, widths[key][0], HEIGHT)
        candidates.append(LabelCandidate(key, boxes))
    return candidates


def _place(candidates: list[LabelCandidate], dots: Dots) -> dict[str, Box]:
    placed = place_beside_dots(
        candidates, dots, bounds=VIEW, spacing=SPACING, clearance=CLEARANCE, near_ok=(CENTER,)
    )
    return {c.key: c.boxes[placed[c.key]] for c in candidates if c.key in placed}


def _distance(box: Box, x: float, y: float) -> float:
    """From a point to the nearest point of a box (0 inside it)."""
    return math.hypot(max(box.left - x, 0.0, x - box.right), max(box.top - y, 0.0, y - box.bottom))


def _nearest_dot(box: Box, dots: Dots) -> str:
    """Of the dots beside a label (their ring within its height of it), the one whose ring
    is nearest its middle: whose a person reads it as."""
    middle = ((box.left + box.right) / 2, (box.top + box.bottom) / 2)
    beside = [key for key, (x, y, reach) in dots.items() if _distance(box, x, y) - reach < HEIGHT]
    return min(beside, key=lambda key: math.dist(middle, dots[key][:2]) - dots[key][2])


def test_each_label_of_a_crowded_drawing_is_nearest_its_own_dot() -> None:
    shown = _place(_whole_names(TALK, TALK_WIDTHS), TALK)
    assert {key: _nearest_dot(box, TALK) for key, box in shown.items()} == {
        key: key for key in shown
    }


def test_a_long_name_touching_its_dot_by_a_corner_is_not_left_among_other_dots() -> None:
    """The design review's label: where it was, its middle lay nearer "offline" and the
    focused item than its own dot; it goes elsewhere, or shortened, or not at all."""
    x, y, reach = TALK["chatThread-offline-design"]
    where_it_was = places_beside(x, y, reach, 174.4, HEIGHT)[7]  # below left, by its corner
    assert where_it_was.left < TALK["tag-offline"][0] < where_it_was.right
    shown = _place(_whole_names(TALK, TALK_WIDTHS), TALK)
    assert shown.get("chatThread-offline-design") != where_it_was


def test_a_node_with_room_for_a_shortened_name_is_labelled() -> None:
    """The note and the highlight had no room for their whole names: cut, they fit."""
    candidates = [
        label_candidate(
            key,
            [
                places_beside(*TALK[key], width, HEIGHT, running=key == CENTER)
                for width in TALK_WIDTHS[key]
            ],
            along=VIEW if key == CENTER else None,
        )
        for key in _order(TALK)
    ]
    placed = place_beside_dots(
        candidates, TALK, bounds=VIEW, spacing=SPACING, clearance=CLEARANCE, near_ok=(CENTER,)
    )
    assert set(placed) == set(TALK)
    by_key = {c.key: c for c in candidates}
    # Which text each got: the tags' short names whole, the highlight's cut.
    assert by_key["tag-favourites"].text(placed["tag-favourites"]) == 0
    highlight = "selector-network-optimisation"
    assert by_key[highlight].text(placed[highlight]) > 0
    shown = {key: by_key[key].boxes[index] for key, index in placed.items()}
    assert {key: _nearest_dot(box, TALK) for key, box in shown.items()} == {
        key: key for key in shown
    }


def test_the_focused_items_label_shows_among_nine_neighbours() -> None:
    """Once two highlights were added, no place around the focused dot kept the gap from
    its neighbours: raised beside it, its shortened name fits between two of them."""
    widths = {key: (60.0,) for key in WITH_HIGHLIGHTS}
    widths[CENTER] = (213.0, 142.0, 92.0)
    shown = _place(_whole_names(WITH_HIGHLIGHTS, widths), WITH_HIGHLIGHTS)
    assert CENTER in shown
    # It touches its own dot, and, bold, may come as near others as its own, covering none.
    x, y, reach = WITH_HIGHLIGHTS[CENTER]
    assert math.isclose(_distance(shown[CENTER], x, y), reach)
    for key, (x, y, reach) in WITH_HIGHLIGHTS.items():
        assert _distance(shown[CENTER], x, y) >= reach - 1e-9, key
