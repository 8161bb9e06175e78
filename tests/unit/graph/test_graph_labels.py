"""Label placement: each label beside its own dot, off every other dot and label, in the view;
the important ones first, and zooming in shows more."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memex_desktop.graph import (
    Box,
    LabelCandidate,
    importance_order,
    layout,
    moved_inside,
    place_beside_dots,
    places_around,
    places_beside,
    shortened,
)
from memex_desktop.graph.synthetic import synthetic_neighbourhood

EVERYWHERE = Box(-1e6, -1e6, 1e6, 1e6)
Dots = dict[str, tuple[float, float, float]]


def _distance(box: Box, x: float, y: float) -> float:
    """From a point to the nearest point of a box (0 inside it)."""
    dx = max(box.left - x, 0.0, x - box.right)
    dy = max(box.top - y, 0.0, y - box.bottom)
    return math.hypot(dx, dy)


def _reads_as_another(box: Box, key: str, dots: Dots) -> bool:
    """Whether another dot's ring lies beside the label (within its height) and as near its
    middle as its own dot's ring: a person would read it as that dot's."""
    middle = ((box.left + box.right) / 2, (box.top + box.bottom) / 2)
    x, y, reach = dots[key]
    own = math.dist(middle, (x, y)) - reach
    return any(
        _distance(box, ox, oy) - o_reach < box.height
        and math.dist(middle, (ox, oy)) - o_reach <= own + 1e-9
        for other, (ox, oy, o_reach) in dots.items()
        if other != key
    )


def _padded(box: Box, margin: float) -> Box:
    """The box with ``margin`` added on every side."""
    return Box(box.left - margin, box.top - margin, box.right + margin, box.bottom + margin)


def _kept_boxes(candidates: list[LabelCandidate], placed: dict[str, int]) -> dict[str, Box]:
    return {c.key: c.boxes[placed[c.key]] for c in candidates if c.key in placed}


def _assert_placed_well(
    boxes: dict[str, Box], dots: Dots, bounds: Box, spacing: float, clearance: float
) -> None:
    """Every kept label lies in the view, keeps ``clearance`` beyond every other dot's reach
    (so it covers none), and keeps ``spacing`` from every other kept label."""
    for key, box in boxes.items():
        assert box.inside(bounds), key
        for other, (x, y, reach) in dots.items():
            if other != key:
                assert _distance(box, x, y) >= reach + clearance - 1e-9, (key, other)
    inset = spacing / 2 - 1e-9
    for (a_key, a), (b_key, b) in itertools.combinations(boxes.items(), 2):
        assert not _padded(a, inset).overlaps(_padded(b, inset)), (a_key, b_key)


def test_box_overlap_needs_shared_area() -> None:
    a = Box(0, 0, 10, 10)
    assert a.overlaps(Box(5, 5, 15, 15))
    assert a.overlaps(Box(2, 2, 3, 3))  # inside
    assert not a.overlaps(Box(10, 0, 20, 10))  # touching edges
    assert not a.overlaps(Box(0, 11, 10, 20))
    assert a.inside(Box(-1, -1, 10, 10))
    assert not a.inside(Box(1, 0, 20, 20))


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
    assert len(places) == 16
    assert len(places_beside(x, y, reach, width, height)) == 8
    for place in places:
        assert place.width == pytest.approx(width)
        assert place.height == pytest.approx(height)
        assert _distance(place, x, y) == pytest.approx(reach, rel=1e-6, abs=1e-6)


@given(
    x=st.floats(-500, 500),
    y=st.floats(-500, 500),
    reach=st.floats(0.5, 60),
    width=st.floats(5, 300),
    height=st.floats(5, 40),
)
def test_every_place_around_the_focused_dot_touches_its_ring_too(
    x: float, y: float, reach: float, width: float, height: float
) -> None:
    places = places_around(x, y, reach, width, height)
    assert places[:16] == places_beside(x, y, reach, width, height, running=True)
    assert len(places) == 16 + 12 + 4 + 16
    for place in places:
        assert _distance(place, x, y) == pytest.approx(reach, rel=1e-6, abs=1e-6)


def test_the_places_come_right_left_above_below_then_the_diagonals() -> None:
    right, left, above, below, *diagonals = places_beside(0.0, 0.0, 5.0, 30.0, 10.0)
    assert (right.left, right.top, right.bottom) == (5.0, -5.0, 5.0)
    assert (left.right, above.bottom, below.top) == (-5.0, -5.0, 5.0)
    assert (above.left, above.right) == (-15.0, 15.0)
    assert len(set(diagonals)) == 4


def test_a_label_keeps_clear_of_other_dots_but_touches_its_own() -> None:
    a = LabelCandidate("a", places_beside(0.0, 0.0, 5.0, 40.0, 10.0))
    # A dot right of "a": there the label would cover it; it takes the left of its dot.
    covered = {"a": (0.0, 0.0, 5.0), "b": (30.0, 0.0, 5.0)}
    assert place_beside_dots([a], covered, bounds=EVERYWHERE) == {"a": 1}
    # A dot 6 below the far end of where the label would go: clear of it, unless it must keep
    # 3 more.
    below = {"a": (0.0, 0.0, 5.0), "b": (50.0, 11.0, 5.0)}
    assert place_beside_dots([a], below, bounds=EVERYWHERE) == {"a": 0}
    assert place_beside_dots([a], below, bounds=EVERYWHERE, clearance=3.0) == {"a": 1}
    # The focused item's label may, where it has no other place, come as near another dot as
    # to its own.
    right = LabelCandidate("a", a.boxes[:1])
    assert place_beside_dots([right], below, bounds=EVERYWHERE, clearance=3.0) == {}
    assert place_beside_dots([right], below, bounds=EVERYWHERE, clearance=3.0, near_ok={"a"}) == {
        "a": 0
    }
    # Below the label's middle, a dot 6 away is nearer it than the label's own dot: the label
    # would read as that dot's, and takes the left of its own.
    under = {"a": (0.0, 0.0, 5.0), "b": (25.0, 16.0, 5.0)}
    assert place_beside_dots([a], under, bounds=EVERYWHERE) == {"a": 1}


def test_no_room_leaves_a_label_out_and_the_first_label_has_the_first_pick() -> None:
    ring = {
        f"n{i}": (16 * math.cos(i * math.pi / 8), 16 * math.sin(i * math.pi / 8), 4.0)
        for i in range(16)
    }
    a = LabelCandidate("a", places_beside(0.0, 0.0, 5.0, 60.0, 10.0, running=True))
    assert place_beside_dots([a], {"a": (0.0, 0.0, 5.0), **ring}, bounds=EVERYWHERE) == {}
    first = LabelCandidate("first", places_beside(0.0, 0.0, 5.0, 40.0, 10.0))
    second = LabelCandidate("second", places_beside(55.0, 0.0, 5.0, 40.0, 10.0))
    both = {"first": (0.0, 0.0, 5.0), "second": (55.0, 0.0, 5.0)}
    # Right of its dot, the first label comes within 5 of the second's ring.
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


def test_spacing_keeps_labels_apart() -> None:
    # Two dots one above the other, each label offered only right of its dot: 12 high with a
    # gap of 2 between them.
    a = LabelCandidate("a", places_beside(0.0, 0.0, 5.0, 40.0, 12.0)[:1])
    b = LabelCandidate("b", places_beside(0.0, 14.0, 5.0, 40.0, 12.0)[:1])
    dots = {"a": (0.0, 0.0, 5.0), "b": (0.0, 14.0, 5.0)}
    assert place_beside_dots([a, b], dots, bounds=EVERYWHERE) == {"a": 0, "b": 0}
    assert place_beside_dots([a, b], dots, bounds=EVERYWHERE, spacing=3.0) == {"a": 0}


def test_bounds_keep_labels_inside_the_drawing() -> None:
    places = places_beside(95.0, 50.0, 3.0, 20.0, 6.0)
    dots = {"edge": (95.0, 50.0, 3.0)}
    placed = place_beside_dots([LabelCandidate("edge", places)], dots, bounds=Box(0, 0, 100, 100))
    assert placed == {"edge": 1}  # the right-hand place would stick out: it goes left
    corner = place_beside_dots([LabelCandidate("edge", places)], dots, bounds=Box(80, 45, 100, 100))
    assert corner == {}  # no place fits in a view that narrow: the label waits


@given(
    st.lists(
        st.tuples(
            st.floats(-500, 500),
            st.floats(-500, 500),
            st.floats(1, 120),
            st.floats(1, 30),
        ),
        max_size=80,
    ),
    st.floats(0, 5),
    st.floats(0, 5),
)
def test_kept_labels_never_overlap_nor_cover_a_dot_nor_leave_the_view(
    labels: list[tuple[float, ...]], spacing: float, clearance: float
) -> None:
    bounds = Box(-400, -400, 400, 400)
    dots = {f"n{i}": (x, y, 4.0) for i, (x, y, _, _) in enumerate(labels)}
    candidates = [
        LabelCandidate(f"n{i}", places_beside(x, y, 4.0, w, h, running=i % 5 == 0))
        for i, (x, y, w, h) in enumerate(labels)
    ]
    placed = place_beside_dots(
        candidates, dots, bounds=bounds, spacing=spacing, clearance=clearance
    )
    kept = _kept_boxes(candidates, placed)
    _assert_placed_well(kept, dots, bounds, spacing, clearance)
    # Greedy: a label left out has, in each of its places, a reason: outside the view, too
    # near another dot, too near a label kept, or reading as another dot's.
    for candidate in candidates:
        if candidate.key in placed:
            continue
        for box in candidate.boxes:
            assert (
                not box.inside(bounds)
                or any(
                    _distance(box, x, y) < reach + clearance
                    for key, (x, y, reach) in dots.items()
                    if key != candidate.key
                )
                or any(
                    _padded(box, spacing / 2).overlaps(_padded(k, spacing / 2))
                    for k in kept.values()
                )
                or _reads_as_another(box, candidate.key, dots)
            ), candidate.key


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
    _assert_placed_well(_kept_boxes(candidates, placed), dots, bounds, 4.0, 3.0)


def _scene(scale: float) -> tuple[list[LabelCandidate], Dots, Box, str]:
    """Labels of 140 × 16 px beside the dots (7 wide, 2 px of gap) of a laid-out 300-node
    neighbourhood seen whole at ``scale``, most important first, and the view."""
    center, nodes, edges = synthetic_neighbourhood(300, 900, seed=4)
    positions = layout(nodes, edges, center=center).positions
    xs = [x for x, _ in positions.values()]
    ys = [y for _, y in positions.values()]
    margin = 150 / scale
    bounds = Box(min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)
    reach = 7 + 2 / scale
    dots = {node: (x, y, reach) for node, (x, y) in positions.items()}
    degree: dict[str, int] = {}
    for edge in edges:
        for end in (edge.source, edge.target):
            degree[end] = degree.get(end, 0) + 1
    order = importance_order(positions, center, {center: 0}, degree)
    candidates = [
        LabelCandidate(
            node,
            places_beside(*positions[node], reach, 140 / scale, 16 / scale, running=node == center),
        )
        for node in order
    ]
    return candidates, dots, bounds, center


def _place_scene(scale: float) -> tuple[dict[str, int], list[LabelCandidate], Dots, Box, str]:
    candidates, dots, bounds, center = _scene(scale)
    placed = place_beside_dots(
        candidates,
        dots,
        bounds=bounds,
        spacing=4 / scale,
        clearance=3 / scale,
        near_ok=(center,),
    )
    return placed, candidates, dots, bounds, center


@pytest.mark.parametrize("scale", [0.2, 0.5, 1.0, 2.0])
def test_a_laid_out_300_node_scene_is_labelled_well_at_every_zoom(scale: float) -> None:
    placed, candidates, dots, bounds, center = _place_scene(scale)
    assert placed, "not even one label"
    assert len(placed) < len(candidates) or scale >= 2.0
    kept = _kept_boxes(candidates, placed)
    others = {key: box for key, box in kept.items() if key != center}
    _assert_placed_well(others, dots, bounds, 4 / scale, 3 / scale)
    _assert_placed_well(kept, {}, bounds, 4 / scale, 0.0)
    # The focused item's label may come as near other dots as its own, but covers none.
    if center in kept:
        for key, (x, y, reach) in dots.items():
            if key != center:
                assert _distance(kept[center], x, y) >= reach - 1e-9, key


def test_zooming_in_shows_more_labels() -> None:
    shown = [len(_place_scene(scale)[0]) for scale in (0.2, 0.5, 1.0, 3.0)]
    assert shown == sorted(shown)
    assert shown[-1] > 3 * shown[0]


def test_placement_depends_on_order_not_on_chance() -> None:
    candidates, dots, bounds, _ = _scene(0.5)
    placed = place_beside_dots(candidates, dots, bounds=bounds, spacing=2.0)
    assert placed == place_beside_dots(list(candidates), dict(dots), bounds=bounds, spacing=2.0)
    shuffled = list(candidates)
    random.Random(1).shuffle(shuffled)
    assert place_beside_dots(shuffled, dots, bounds=bounds, spacing=2.0) != placed


def test_importance_puts_the_centre_then_near_then_well_linked_first() -> None:
    hops = {"c": 0, "a": 1, "b": 1, "far": 2}
    degree = {"c": 1, "a": 2, "b": 5, "far": 9}
    assert importance_order(["far", "unlinked", "a", "b", "c"], "c", hops, degree) == [
        "c",
        "b",
        "a",
        "far",
        "unlinked",
    ]
    assert importance_order(["a", "b"], None, {}, {"a": 1, "b": 1}) == ["a", "b"]


def test_a_box_is_moved_the_least_way_inside_and_one_too_big_is_left_out() -> None:
    bounds = Box(0, 0, 100, 50)
    assert moved_inside([Box(80, 10, 130, 20)], bounds) == (Box(50, 10, 100, 20),)
    assert moved_inside([Box(-20, -5, 10, 5)], bounds) == (Box(0, 0, 30, 10),)
    assert moved_inside([Box(10, 10, 20, 20)], bounds) == (Box(10, 10, 20, 20),)
    assert moved_inside([Box(-10, 0, 101, 10), Box(0, 45, 10, 55)], bounds) == (Box(0, 40, 10, 50),)


def test_shortened_ends_with_an_ellipsis_where_cut() -> None:
    assert shortened("Container Growing in Dense Cities", 18) == "Container Growing…"
    assert shortened("Container Growing in Dense Cities", 11) == "Container…"
    assert shortened("water", 10) == "water"
