"""Places beside a dot touch its ring and no more; the placement keeps labels off other dots."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memex_desktop.graph import Box, LabelCandidate
from memex_desktop.ui.graph_labels import place_beside_dots, places_beside, shortened

EVERYWHERE = Box(-1e6, -1e6, 1e6, 1e6)


def _distance(box: Box, x: float, y: float) -> float:
    """From a point to the nearest point of a box (0 inside it)."""
    dx = max(box.left - x, 0.0, x - box.right)
    dy = max(box.top - y, 0.0, y - box.bottom)
    return math.hypot(dx, dy)


@given(
    x=st.floats(-500, 500),
    y=st.floats(-500, 500),
    reach=st.floats(0.5, 60),
    width=st.floats(5, 300),
    height=st.floats(5, 40),
)
def test_every_place_touches_the_ring_and_stays_out_of_it(
    x: float, y: float, reach: float, width: float, height: float
) -> None:
    places = places_beside(x, y, reach, width, height, running=True)
    assert len(places) == 12
    assert len(places_beside(x, y, reach, width, height)) == 8
    for place in places:
        assert place.width == pytest.approx(width)
        assert place.height == pytest.approx(height)
        assert _distance(place, x, y) == pytest.approx(reach, rel=1e-6, abs=1e-6)


def test_a_label_keeps_clear_of_other_dots_but_touches_its_own() -> None:
    a = LabelCandidate("a", places_beside(0.0, 0.0, 5.0, 40.0, 10.0))
    # A dot right of "a": there the label would cover it; it takes the left of its dot.
    covered = {"a": (0.0, 0.0, 5.0), "b": (30.0, 0.0, 5.0)}
    assert place_beside_dots([a], covered, bounds=EVERYWHERE) == {"a": 1}
    # A dot 6 below where the label would go: clear of it, unless it must keep 3 more.
    below = {"a": (0.0, 0.0, 5.0), "b": (30.0, 11.0, 5.0)}
    assert place_beside_dots([a], below, bounds=EVERYWHERE) == {"a": 0}
    assert place_beside_dots([a], below, bounds=EVERYWHERE, clearance=3.0) == {"a": 1}
    # The focused item's label may come as near another dot as to its own.
    assert place_beside_dots([a], below, bounds=EVERYWHERE, clearance=3.0, near_ok={"a"}) == {
        "a": 0
    }


def test_no_room_leaves_a_label_out_and_the_first_label_has_the_first_pick() -> None:
    ring = {
        f"n{i}": (16 * math.cos(i * math.pi / 8), 16 * math.sin(i * math.pi / 8), 4.0)
        for i in range(16)
    }
    a = LabelCandidate("a", places_beside(0.0, 0.0, 5.0, 60.0, 10.0, running=True))
    assert place_beside_dots([a], {"a": (0.0, 0.0, 5.0), **ring}, bounds=EVERYWHERE) == {}
    first = LabelCandidate("first", places_beside(0.0, 0.0, 5.0, 40.0, 10.0))
    second = LabelCandidate("second", places_beside(50.0, 0.0, 5.0, 40.0, 10.0))
    both = {"first": (0.0, 0.0, 5.0), "second": (50.0, 0.0, 5.0)}
    # Right of its dot, the first label only touches the second's ring.
    assert place_beside_dots([first, second], both, bounds=EVERYWHERE) == {"first": 0, "second": 0}
    # Kept 8 further from other dots, it takes the left of its dot; the second keeps the right.
    assert place_beside_dots([first, second], both, bounds=EVERYWHERE, clearance=8.0) == {
        "first": 1,
        "second": 0,
    }
    # The second's left would overlap the first's right: it takes the next place free.
    placed = place_beside_dots(
        [first, LabelCandidate("second", second.boxes[1:])], both, bounds=EVERYWHERE
    )
    assert placed["first"] == 0
    assert not first.boxes[0].overlaps(second.boxes[1:][placed["second"]])


def test_labels_of_a_random_crowd_cover_no_dot_and_no_label() -> None:
    rng = random.Random(5)
    dots = {f"n{i}": (rng.uniform(0, 800), rng.uniform(0, 600), 4.0) for i in range(300)}
    candidates = [
        LabelCandidate(key, places_beside(x, y, reach, rng.uniform(30, 160), 14.0))
        for key, (x, y, reach) in dots.items()
    ]
    bounds = Box(0, 0, 800, 600)
    placed = place_beside_dots(candidates, dots, bounds=bounds, spacing=4.0, clearance=3.0)
    assert 20 < len(placed) < 300
    boxes = {c.key: c.boxes[placed[c.key]] for c in candidates if c.key in placed}
    for key, box in boxes.items():
        assert box.inside(bounds)
        for other, (x, y, reach) in dots.items():
            if other != key:
                assert _distance(box, x, y) >= reach + 3.0 - 1e-9, (key, other)
    for a, b in itertools.combinations(boxes.values(), 2):
        assert not a.grown(2.0 - 1e-9).overlaps(b.grown(2.0 - 1e-9))


def test_shortened_ends_with_an_ellipsis_where_cut() -> None:
    assert shortened("Container Growing in Dense Cities", 18) == "Container Growing…"
    assert shortened("Container Growing in Dense Cities", 11) == "Container…"
    assert shortened("water", 10) == "water"
