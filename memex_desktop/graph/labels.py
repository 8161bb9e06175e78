"""Which node labels a drawing can show without two of them overlapping (no Qt).

The pane hands over, most important node first, the boxes each label could occupy at the
current zoom (right of its dot, left, above, below); a greedy pass keeps the first box of each
label that touches no label already kept. A uniform grid of buckets keeps each test to the
few labels nearby, so a pass over a few hundred labels takes a millisecond or two.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle: ``left`` < ``right`` and ``top`` < ``bottom``."""

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
    """A label to place: its key and the boxes it may take, the preferred one first."""

    key: str
    boxes: tuple[Box, ...]


def around_dot(
    x: float, y: float, radius: float, width: float, height: float, gap: float
) -> tuple[Box, ...]:
    """The places of a ``width`` × ``height`` label beside a dot: right, left, above, below."""
    half_h = height / 2
    half_w = width / 2
    reach = radius + gap
    return (
        Box(x + reach, y - half_h, x + reach + width, y + half_h),
        Box(x - reach - width, y - half_h, x - reach, y + half_h),
        Box(x - half_w, y - reach - height, x + half_w, y - reach),
        Box(x - half_w, y + reach, x + half_w, y + reach + height),
    )


def place_labels(
    candidates: Sequence[LabelCandidate], *, spacing: float = 0.0, bounds: Box | None = None
) -> dict[str, int]:
    """Greedy placement in the given order: key -> index of the box it got; others left out.

    Two kept boxes are at least ``spacing`` apart; with ``bounds`` every kept box lies inside
    it. The result depends only on the candidates' order and boxes.
    """
    cell = _cell_size(candidates, spacing)
    grid: dict[tuple[int, int], list[Box]] = {}
    placed: dict[str, int] = {}
    half = spacing / 2
    for candidate in candidates:
        if candidate.key in placed:
            continue
        for index, box in enumerate(candidate.boxes):
            if bounds is not None and not box.inside(bounds):
                continue
            padded = box.grown(half)
            cells = list(_cells(padded, cell))
            if any(padded.overlaps(kept) for key in cells for kept in grid.get(key, ())):
                continue
            for key in cells:
                grid.setdefault(key, []).append(padded)
            placed[candidate.key] = index
            break
    return placed


def _cell_size(candidates: Sequence[LabelCandidate], spacing: float) -> float:
    """A bucket about as wide as the widest label, so a box spans few buckets."""
    widest = max((box.width for c in candidates for box in c.boxes), default=1.0)
    return max(widest + spacing, 1e-9)


def _cells(box: Box, cell: float) -> Iterable[tuple[int, int]]:
    """The grid buckets a box touches."""
    x0, x1 = math.floor(box.left / cell), math.floor(box.right / cell)
    y0, y1 = math.floor(box.top / cell), math.floor(box.bottom / cell)
    for gx in range(x0, x1 + 1):
        for gy in range(y0, y1 + 1):
            yield (gx, gy)


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
