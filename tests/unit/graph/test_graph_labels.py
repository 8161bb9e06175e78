"""Label placement: no two kept labels overlap, the important ones win, zooming in shows more."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memex_desktop.graph import (
    Box,
    LabelCandidate,
    around_dot,
    importance_order,
    layout,
    moved_inside,
    place_labels,
)
from memex_desktop.graph.synthetic import synthetic_neighbourhood


def _kept_boxes(candidates: list[LabelCandidate], placed: dict[str, int]) -> list[Box]:
    by_key = {c.key: c for c in candidates}
    return [by_key[key].boxes[index] for key, index in placed.items()]


def _assert_apart(boxes: list[Box], spacing: float = 0.0) -> None:
    for a, b in itertools.combinations(boxes, 2):
        assert not a.grown(spacing / 2 - 1e-9).overlaps(b.grown(spacing / 2 - 1e-9)), (a, b)


def test_box_overlap_needs_shared_area() -> None:
    a = Box(0, 0, 10, 10)
    assert a.overlaps(Box(5, 5, 15, 15))
    assert a.overlaps(Box(2, 2, 3, 3))  # inside
    assert not a.overlaps(Box(10, 0, 20, 10))  # touching edges
    assert not a.overlaps(Box(0, 11, 10, 20))
    assert a.inside(Box(-1, -1, 10, 10))
    assert not a.inside(Box(1, 0, 20, 20))


def test_the_first_label_wins_and_a_colliding_one_takes_its_next_place() -> None:
    first = LabelCandidate("first", (Box(0, 0, 50, 10),))
    second = LabelCandidate("second", (Box(40, 0, 90, 10), Box(0, 20, 50, 30)))
    assert place_labels([first, second]) == {"first": 0, "second": 1}
    # The other order: the second takes its preferred place, the first has nowhere to go.
    assert place_labels([second, LabelCandidate("first", (Box(0, 0, 50, 10),))]) == {"second": 0}


def test_spacing_keeps_labels_apart() -> None:
    a = LabelCandidate("a", (Box(0, 0, 10, 10),))
    b = LabelCandidate("b", (Box(12, 0, 22, 10),))
    assert place_labels([a, b]) == {"a": 0, "b": 0}
    assert place_labels([a, b], spacing=3) == {"a": 0}


def test_bounds_keep_labels_inside_the_drawing() -> None:
    beside = around_dot(95, 50, radius=2, width=20, height=6, gap=1)
    placed = place_labels([LabelCandidate("edge", beside)], bounds=Box(0, 0, 100, 100))
    assert placed == {"edge": 1}  # the right-hand place would stick out: it goes left


def _dot_in(box: Box) -> Box:
    """A small dot in the middle of a box."""
    x, y = (box.left + box.right) / 2, (box.top + box.bottom) / 2
    return Box(x - 1, y - 1, x + 1, y + 1)


def test_labels_keep_off_dots_unless_they_insist() -> None:
    places = around_dot(0, 0, radius=2, width=20, height=6, gap=1)
    label = LabelCandidate("a", places)
    assert place_labels([label], avoid=[_dot_in(places[0])]) == {"a": 1}
    everywhere = [_dot_in(place) for place in places]
    assert place_labels([label], avoid=everywhere[:5]) == {"a": 5}
    assert place_labels([label], avoid=everywhere) == {}
    insisting = LabelCandidate("a", places, insist=True)
    assert place_labels([insisting], avoid=everywhere) == {"a": 0}
    assert place_labels([insisting], avoid=everywhere[:5]) == {"a": 5}
    # An insisting label still never goes over another label.
    first = LabelCandidate("first", (places[0],))
    assert place_labels([first, insisting], avoid=everywhere[1:]) == {"first": 0, "a": 1}
    assert place_labels([first, label], avoid=everywhere[1:2]) == {"first": 0, "a": 2}


def test_around_dot_offers_the_sides_then_the_corners_clear_of_the_dot() -> None:
    places = around_dot(0, 0, radius=5, width=30, height=10, gap=2)
    right, left, above, below, *corners = places
    dot = Box(-5, -5, 5, 5)
    assert (right.left, right.width, right.height) == (7, 30, 10)
    assert (left.right, above.bottom, below.top) == (-7, -7, 7)
    assert len(corners) == 4
    assert all((box.width, box.height) == (30, 10) for box in places)
    assert not any(box.overlaps(dot) for box in places)
    assert len(set(places)) == 8


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
)
def test_no_two_kept_labels_overlap(labels: list[tuple[float, ...]], spacing: float) -> None:
    candidates = [
        LabelCandidate(f"n{i}", around_dot(x, y, 4, w, h, 2))
        for i, (x, y, w, h) in enumerate(labels)
    ]
    placed = place_labels(candidates, spacing=spacing)
    _assert_apart(_kept_boxes(candidates, placed), spacing)
    # Greedy: every label left out collides in each of its places with one that was kept.
    kept = _kept_boxes(candidates, placed)
    for candidate in candidates:
        if candidate.key not in placed:
            for box in candidate.boxes:
                assert any(box.grown(spacing / 2).overlaps(k.grown(spacing / 2)) for k in kept)


def _scene_candidates(scale: float) -> tuple[list[LabelCandidate], int]:
    """Labels of 140 × 16 px for a laid-out 300-node neighbourhood seen at ``scale``."""
    center, nodes, edges = synthetic_neighbourhood(300, 900, seed=4)
    positions = layout(nodes, edges, center=center).positions
    order = sorted(positions)
    candidates = [
        LabelCandidate(n, around_dot(*positions[n], 7, 140 / scale, 16 / scale, 3 / scale))
        for n in order
    ]
    return candidates, len(order)


@pytest.mark.parametrize("scale", [0.2, 0.5, 1.0, 2.0])
def test_a_laid_out_300_node_scene_keeps_apart_at_every_zoom(scale: float) -> None:
    candidates, count = _scene_candidates(scale)
    placed = place_labels(candidates, spacing=2 / scale)
    assert placed, "not even one label"
    _assert_apart(_kept_boxes(candidates, placed), 2 / scale)
    assert len(placed) < count or scale >= 2.0


def test_zooming_in_shows_more_labels() -> None:
    shown = [len(place_labels(_scene_candidates(s)[0], spacing=2 / s)) for s in (0.2, 0.5, 1, 3)]
    assert shown == sorted(shown)
    assert shown[-1] > 3 * shown[0]


def test_placement_depends_on_order_not_on_chance() -> None:
    candidates, _ = _scene_candidates(0.5)
    assert place_labels(candidates) == place_labels(list(candidates))
    shuffled = list(candidates)
    random.Random(1).shuffle(shuffled)
    assert place_labels(shuffled) != place_labels(candidates)


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
