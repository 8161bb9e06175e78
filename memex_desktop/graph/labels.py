"""Which node labels a drawing can show without covering each other or other nodes (no Qt).

The pane hands over, most important node first, the boxes each label could occupy at the
current zoom (right of its dot, left, above, below, then at its corners); a greedy pass keeps
the first box of each label that touches no label already kept and covers no other node's dot.
A uniform grid of buckets keeps each test to the few boxes nearby, so a pass over a few
hundred labels takes a few milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple


class Box(NamedTuple):
    """An axis-aligned rectangle: ``left`` < ``right`` and ``top`` < ``bottom``.

    A tuple, so the thousands made on every zoom cost little.
    """

    left: float
    top: float
    right: float
    bottom: float

    @property
    def width(self) -> float:
        """Horizontal extent."""
        return self.right - self.left

    @property
    def height(self) -> float:
        """Vertical extent."""
        return self.bottom - self.top

    def overlaps(self, other: Box) -> bool:
        """Whether the two share interior area (touching edges do not count)."""
        return (
            self.left < other.right
            and other.left < self.right
            and self.top < other.bottom
            and other.top < self.bottom
        )

    def inside(self, outer: Box) -> bool:
        """Whether the whole box lies within ``outer``."""
        return (
            self.left >= outer.left
            and self.top >= outer.top
            and self.right <= outer.right
            and self.bottom <= outer.bottom
        )

    def grown(self, margin: float) -> Box:
        """The box with ``margin`` added on every side."""
        return Box(self.left - margin, self.top - margin, self.right + margin, self.bottom + margin)


@dataclass(frozen=True)
class LabelCandidate:
    """A label to place: its key and the boxes it may take, the preferred one first.

    ``insist``: when every place would cover something to avoid, take the first place clear of
    labels anyway (the focused item's label).
    """

    key: str
    boxes: tuple[Box, ...]
    insist: bool = False


def around_dot(
    x: float, y: float, radius: float, width: float, height: float, gap: float
) -> tuple[Box, ...]:
    """The places of a ``width`` × ``height`` label beside a dot, the most readable first.

    Right, left, above and below the dot, then the four corners (a label that leans
    diagonally off its dot still reads as its own).
    """
    half_h = height / 2
    half_w = width / 2
    reach = radius + gap
    # A corner place touches the dot's bounding square at one corner only.
    corner = reach
    return (
        Box(x + reach, y - half_h, x + reach + width, y + half_h),
        Box(x - reach - width, y - half_h, x - reach, y + half_h),
        Box(x - half_w, y - reach - height, x + half_w, y - reach),
        Box(x - half_w, y + reach, x + half_w, y + reach + height),
        Box(x + corner, y - corner - height, x + corner + width, y - corner),
        Box(x + corner, y + corner, x + corner + width, y + corner + height),
        Box(x - corner - width, y - corner - height, x - corner, y - corner),
        Box(x - corner - width, y + corner, x - corner, y + corner + height),
    )


def moved_inside(boxes: Iterable[Box], bounds: Box) -> tuple[Box, ...]:
    """Each box moved the least way that puts it inside ``bounds``; a box larger than
    ``bounds`` is left out. For a label that must show in a narrow drawing: beside its dot it
    would cross the edge, while above or below it, moved along, it still reads as its own.
    """
    moved: list[Box] = []
    for left, top, right, bottom in boxes:
        if right - left > bounds.width or bottom - top > bounds.height:
            continue
        dx = max(0.0, bounds.left - left) - max(0.0, right - bounds.right)
        dy = max(0.0, bounds.top - top) - max(0.0, bottom - bounds.bottom)
        moved.append(Box(left + dx, top + dy, right + dx, bottom + dy))
    return tuple(moved)


def place_labels(
    candidates: Sequence[LabelCandidate],
    *,
    spacing: float = 0.0,
    bounds: Box | None = None,
    avoid: Sequence[Box] = (),
) -> dict[str, int]:
    """Greedy placement in the given order: key -> index of the box it got; others left out.

    Two kept boxes are at least ``spacing`` apart; with ``bounds`` every kept box lies inside
    it. No kept box covers any of ``avoid`` (the other nodes' dots), except an insisting
    candidate's when it has no other place. The result depends only on the arguments' order
    and values.
    """
    cell_w, cell_h = _cell_size(candidates, spacing)
    grid: dict[tuple[int, int], list[Box]] = {}
    obstacles: dict[tuple[int, int], list[Box]] = {}
    for box in avoid:
        for key in _cells(box, cell_w, cell_h):
            obstacles.setdefault(key, []).append(box)
    if bounds is None:
        bounds = Box(-math.inf, -math.inf, math.inf, math.inf)
    min_left, min_top, max_right, max_bottom = bounds
    placed: dict[str, int] = {}
    half = spacing / 2
    for candidate in candidates:
        if candidate.key in placed:
            continue
        chosen: tuple[int, Box, list[tuple[int, int]]] | None = None
        for index, box in enumerate(candidate.boxes):
            left, top, right, bottom = box
            if left < min_left or top < min_top or right > max_right or bottom > max_bottom:
                continue
            padded = Box(left - half, top - half, right + half, bottom + half)
            cells = _cells(padded, cell_w, cell_h)
            if _hits(padded, cells, grid):
                continue
            if not _hits(box, cells, obstacles):
                chosen = (index, padded, cells)
                break
            if candidate.insist:
                chosen = chosen or (index, padded, cells)
        if chosen is not None:
            index, padded, cells = chosen
            for key in cells:
                grid.setdefault(key, []).append(padded)
            placed[candidate.key] = index
    return placed


def _hits(box: Box, cells: list[tuple[int, int]], grid: dict[tuple[int, int], list[Box]]) -> bool:
    """Whether ``box`` shares area with any box filed under ``cells``."""
    left, top, right, bottom = box
    for key in cells:
        for other_left, other_top, other_right, other_bottom in grid.get(key, ()):
            if (
                left < other_right
                and other_left < right
                and top < other_bottom
                and other_top < bottom
            ):
                return True
    return False


def _cell_size(candidates: Sequence[LabelCandidate], spacing: float) -> tuple[float, float]:
    """Buckets as wide as the widest label and as tall as the tallest: a box spans at most
    two by two of them, and a bucket holds about one kept label."""
    boxes = [box for c in candidates for box in c.boxes]
    widest = max((box.width for box in boxes), default=1.0)
    tallest = max((box.height for box in boxes), default=1.0)
    return (max(widest + spacing, 1e-9), max(tallest + spacing, 1e-9))


def _cells(box: Box, width: float, height: float) -> list[tuple[int, int]]:
    """The buckets of a ``width`` × ``height`` grid that a box touches."""
    left, top, right, bottom = box
    x0, x1 = int(left // width), int(right // width)
    y0, y1 = int(top // height), int(bottom // height)
    if x0 == x1 and y0 == y1:
        return [(x0, y0)]
    return [(gx, gy) for gx in range(x0, x1 + 1) for gy in range(y0, y1 + 1)]


def importance_order(
    ids: Iterable[str],
    center: str | None,
    hops: Mapping[str, int],
    degree: Mapping[str, int],
) -> list[str]:
    """Ids in the order their labels matter: the centre, then nearer, then better linked."""
    far = max(hops.values(), default=0) + 1

    def rank(node: str) -> tuple[bool, int, int, str]:
        return (node != center, hops.get(node, far), -degree.get(node, 0), node)

    return sorted(ids, key=rank)
