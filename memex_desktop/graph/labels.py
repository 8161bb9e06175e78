"""Where a drawing puts node labels: beside their own dots, clear of every other (no Qt).

Every place offered for a label touches a ring just outside its dot (the dot's ``reach``), so
a label reads as its dot's: right or left of it, above or below it, off one of its diagonals
(where the label's corner meets the ring) or, for the labels that matter most, above or below
running right or left from it, or beside it raised or lowered. The placement keeps, most
important label first, the first place of each that lies in the view, keeps ``spacing`` from
the labels kept before it, stays ``clearance`` further from every other dot than from its own
(so no label covers a dot), and has its middle nearer its own dot than any other: a long label
touching its dot by a corner can otherwise lie among other dots, and a person reads it as
theirs. The focused item's label, whose bold face says whose it is, may where nothing else is
free come as near other dots as its own. The order is ``importance_order``'s; each name is
offered whole, then ``shortened`` (``label_candidate``), so it is cut before it is dropped,
and the labels that matter most may sit above or below their dot ``moved_inside`` a narrow
view.

Dots are tested as circles, through a grid of buckets as large as a label (and, for a label's
middle, a grid of their centres), so a pass over a few hundred labels takes a few milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

# A diagonal place's corner meets the ring this share of its radius along each axis.
DIAGONAL = math.sqrt(0.5)

Cell = tuple[int, int]
# A dot as the placement files it: key, centre, and the squared distances a label keeps from
# it (with the clearance, without, and without the gap either).
Dot = tuple[str, float, float, float, float, float]
# Which of those a label keeps.
Keep = Literal[3, 4, 5]
# A dot as a person sees it, filed by its centre: key, centre and reach.
Seen = tuple[str, float, float, float]


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


@dataclass(frozen=True)
class LabelCandidate:
    """A label to place: its key and the boxes it may take, the preferred one first.

    ``texts`` says which of the node's label texts each box holds (its whole name is 0,
    shorter ones follow); empty when every box holds the whole name.
    """

    key: str
    boxes: tuple[Box, ...]
    texts: tuple[int, ...] = ()

    def text(self, index: int) -> int:
        """Which of the node's texts the box at ``index`` holds."""
        return self.texts[index] if self.texts else 0


def label_candidate(
    key: str, by_text: Sequence[Sequence[Box]], *, along: Box | None = None
) -> LabelCandidate:
    """A node's label places, for each of its texts in turn (``by_text``: each text's
    ``places_beside``, the whole name first), so a name is shortened before it is dropped.

    With ``along`` (the view), each text is also offered above and below its dot moved along
    to stay inside it, where a long name crosses the view's edge: moved up or down, it would
    cover its own dot, so only those moved sideways are kept.
    """
    boxes: list[Box] = []
    texts: list[int] = []
    levels = {by_text[0][2].top, by_text[0][3].top} if by_text and along is not None else set()
    for index, places in enumerate(by_text):
        here = list(places)
        if along is not None:
            here += [moved for moved in moved_inside(places[2:4], along) if moved.top in levels]
        boxes += here
        texts += [index] * len(here)
    return LabelCandidate(key, tuple(boxes), tuple(texts))


def places_beside(
    x: float, y: float, reach: float, width: float, height: float, *, running: bool = False
) -> tuple[Box, ...]:
    """The places of a ``width`` × ``height`` label touching the circle of radius ``reach``
    around (``x``, ``y``), the most readable first.

    Right, left, above and below, then the four diagonals; with ``running``, then above and
    below again running right from the dot or left from it (for a long label near the
    drawing's edge), then right and left again raised or lowered by half their height (for a
    crowded dot, between its neighbours). None overlaps the circle.
    """
    half_w, half_h = width / 2, height / 2
    corner = reach * DIAGONAL
    top, bottom = y - reach, y + reach
    places = (
        Box(x + reach, y - half_h, x + reach + width, y + half_h),
        Box(x - reach - width, y - half_h, x - reach, y + half_h),
        Box(x - half_w, top - height, x + half_w, top),
        Box(x - half_w, bottom, x + half_w, bottom + height),
        Box(x + corner, y - corner - height, x + corner + width, y - corner),
        Box(x + corner, y + corner, x + corner + width, y + corner + height),
        Box(x - corner - width, y - corner - height, x - corner, y - corner),
        Box(x - corner - width, y + corner, x - corner, y + corner + height),
    )
    if not running:
        return places
    # Running right or left from the dot, a label above or below it still spans its centre.
    run = min(corner, half_w)
    return (
        *places,
        Box(x - run, top - height, x - run + width, top),
        Box(x + run - width, top - height, x + run, top),
        Box(x - run, bottom, x - run + width, bottom + height),
        Box(x + run - width, bottom, x + run, bottom + height),
        # Raised or lowered, a label beside the dot still has the dot's centre level with it.
        Box(x + reach, y - height, x + reach + width, y),
        Box(x + reach, y, x + reach + width, y + height),
        Box(x - reach - width, y - height, x - reach, y),
        Box(x - reach - width, y, x - reach, y + height),
    )


def places_around(x: float, y: float, reach: float, width: float, height: float) -> tuple[Box, ...]:
    """Every place ``places_beside`` offers running, then more still touching the ring: above
    and below slid along by eighths of the label's width, beside it by quarters of its height,
    and off the ring at every 15 degrees between the diagonals. For the one label that must
    show (the focused item's) in a crowd, where the usual places all meet another dot.
    """
    places = list(places_beside(x, y, reach, width, height, running=True))
    top, bottom = y - reach, y + reach
    for eighth in (1, 2, 3, 5, 6, 7):
        left = x - width * eighth / 8
        places += (
            Box(left, top - height, left + width, top),
            Box(left, bottom, left + width, bottom + height),
        )
    for quarter in (1, 3):
        upper = y - height * quarter / 4
        places += (
            Box(x + reach, upper, x + reach + width, upper + height),
            Box(x - reach - width, upper, x - reach, upper + height),
        )
    for degrees in (15, 30, 60, 75):
        dx, dy = reach * math.cos(math.radians(degrees)), reach * math.sin(math.radians(degrees))
        places += (
            Box(x + dx, y - dy - height, x + dx + width, y - dy),
            Box(x + dx, y + dy, x + dx + width, y + dy + height),
            Box(x - dx - width, y - dy - height, x - dx, y - dy),
            Box(x - dx - width, y + dy, x - dx, y + dy + height),
        )
    return tuple(places)


def place_beside_dots(
    candidates: Sequence[LabelCandidate],
    dots: Mapping[str, tuple[float, float, float]],
    *,
    bounds: Box,
    spacing: float = 0.0,
    clearance: float = 0.0,
    near_ok: Collection[str] = (),
    gap: float = 0.0,
) -> dict[str, int]:
    """Greedy placement in the given order: key -> index of the place it got; others left out.

    ``dots`` holds the (x, y, reach) of every dot drawn, by key; a candidate's places are its
    own dot's (``places_beside``), which they only touch, and the first is its widest and
    tallest. A place is kept where it lies inside ``bounds``, at least ``spacing`` from each
    label kept before it, at least ``reach`` + ``clearance`` from the centre of every other
    dot, and reads as its own dot's: no other dot's ring lies within the label's height of it
    nearer its middle than its own dot's ring (a long label touching its dot by a corner may
    otherwise lie among other dots, and read as theirs). The labels of ``near_ok`` (the
    focused item's, whose bold face says whose it is) that find no such place may then take
    one keeping ``reach`` only, wherever its middle is, and last one keeping only ``reach``
    less ``gap`` (the part of each reach that is a gap around the dot): it touches other dots
    then, but covers none. The result depends only on the arguments' order and values.
    """
    firsts = [candidate.boxes[0] for candidate in candidates if candidate.boxes]
    if not firsts:
        return {}
    # Buckets a label wide and tall: a label's box touches at most two by two of them.
    cell_w = max(right - left for left, _, right, _ in firsts) + spacing
    cell_h = max(bottom - top for _, top, _, bottom in firsts) + spacing
    min_left, min_top, max_right, max_bottom = bounds
    # Each dot in every bucket its kept circle's square touches: a place meets only the dots
    # filed under the buckets it touches. The dots a person sees are also filed by their
    # centre in square buckets, to find those near a label's middle.
    near: dict[Cell, list[Dot]] = {}
    seen: dict[Cell, list[Seen]] = {}
    grain = max(cell_h, cell_w / 4)
    widest = 0.0
    for key, (x, y, reach) in dots.items():
        keep = reach + clearance
        if x + keep <= min_left or x - keep >= max_right:
            continue
        if y + keep <= min_top or y - keep >= max_bottom:
            continue
        bare = max(reach - gap, 0.0)
        entry = (key, x, y, keep * keep, reach * reach, bare * bare)
        for cell in _cells(x - keep, y - keep, x + keep, y + keep, cell_w, cell_h):
            near.setdefault(cell, []).append(entry)
        seen.setdefault((int(x // grain), int(y // grain)), []).append((key, x, y, reach))
        widest = max(widest, reach)
    kept: dict[Cell, list[Box]] = {}
    placed: dict[str, int] = {}
    half = spacing / 2
    for candidate in candidates:
        own = candidate.key
        if own in placed:
            continue
        mine = dots.get(own)
        passes: tuple[Keep, ...] = (3, 4, 5) if own in near_ok else (3,)
        # First with the clearance from other dots and its middle nearest its own; for the
        # focused item, then keeping only their reach, then not even their gap.
        for keep_at in passes:
            strict = keep_at == 3
            for index, (left, top, right, bottom) in enumerate(candidate.boxes):
                if left < min_left or top < min_top or right > max_right or bottom > max_bottom:
                    continue
                p_left, p_top = left - half, top - half
                p_right, p_bottom = right + half, bottom + half
                cells = _cells(p_left, p_top, p_right, p_bottom, cell_w, cell_h)
                if _meets_a_dot(left, top, right, bottom, own, keep_at, cells, near):
                    continue
                if _meets_a_label(p_left, p_top, p_right, p_bottom, cells, kept):
                    continue
                if (
                    strict
                    and mine is not None
                    and _reads_as_another(
                        Box(left, top, right, bottom), own, mine, widest, grain, seen
                    )
                ):
                    continue
                padded = Box(p_left, p_top, p_right, p_bottom)
                for cell in cells:
                    kept.setdefault(cell, []).append(padded)
                placed[own] = index
                break
            if own in placed:
                break
    return placed


def _reads_as_another(
    box: Box,
    own: str,
    mine: tuple[float, float, float],
    widest: float,
    grain: float,
    seen: dict[Cell, list[Seen]],
) -> bool:
    """Whether a dot other than ``own`` (``mine``: its x, y and reach) lies beside the label
    (its ring within the label's height of it) and nearer the label's middle than ``own``'s
    ring: a person would read the label as that dot's."""
    left, top, right, bottom = box
    mx, my = (left + right) / 2, (top + bottom) / 2
    x, y, reach = mine
    mine_at = math.hypot(mx - x, my - y) - reach
    beside = bottom - top
    far = mine_at + widest
    x0, x1 = int((mx - far) // grain), int((mx + far) // grain)
    y0, y1 = int((my - far) // grain), int((my + far) // grain)
    for gx in range(x0, x1 + 1):
        for gy in range(y0, y1 + 1):
            for key, ox, oy, o_reach in seen.get((gx, gy), ()):
                dx, dy = mx - ox, my - oy
                at = mine_at + o_reach
                if dx * dx + dy * dy > at * at or key == own:
                    continue
                ex = left - ox if ox < left else (ox - right if ox > right else 0.0)
                ey = top - oy if oy < top else (oy - bottom if oy > bottom else 0.0)
                by = beside + o_reach
                if ex * ex + ey * ey < by * by:
                    return True
    return False


def _cells(
    left: float, top: float, right: float, bottom: float, width: float, height: float
) -> tuple[Cell, ...]:
    """The buckets of a ``width`` × ``height`` grid that a box touches."""
    x0, x1 = int(left // width), int(right // width)
    y0, y1 = int(top // height), int(bottom // height)
    if x0 == x1 and y0 == y1:
        return ((x0, y0),)
    if x1 - x0 <= 1 and y1 - y0 <= 1:
        if x0 == x1:
            return ((x0, y0), (x0, y1))
        if y0 == y1:
            return ((x0, y0), (x1, y0))
        return ((x0, y0), (x1, y0), (x0, y1), (x1, y1))
    return tuple((gx, gy) for gx in range(x0, x1 + 1) for gy in range(y0, y1 + 1))


def _meets_a_dot(
    left: float,
    top: float,
    right: float,
    bottom: float,
    own: str,
    keep_at: Keep,
    cells: tuple[Cell, ...],
    near: dict[Cell, list[Dot]],
) -> bool:
    """Whether the box comes nearer than the distance kept (the squared one at ``keep_at``
    of a dot's entry) to a dot other than ``own``."""
    for cell in cells:
        for dot in near.get(cell, ()):
            x, y = dot[1], dot[2]
            dx = left - x if x < left else (x - right if x > right else 0.0)
            dy = top - y if y < top else (y - bottom if y > bottom else 0.0)
            if dx * dx + dy * dy < dot[keep_at] and dot[0] != own:
                return True
    return False


def _meets_a_label(
    left: float,
    top: float,
    right: float,
    bottom: float,
    cells: tuple[Cell, ...],
    kept: dict[Cell, list[Box]],
) -> bool:
    """Whether the (padded) box shares area with a kept label's padded box."""
    for cell in cells:
        for other_left, other_top, other_right, other_bottom in kept.get(cell, ()):
            if (
                left < other_right
                and other_left < right
                and top < other_bottom
                and other_top < bottom
            ):
                return True
    return False


def shortened(text: str, chars: int) -> str:
    """``text`` in at most ``chars`` characters, the last an ellipsis where it was cut."""
    if len(text) <= chars:
        return text
    return text[: chars - 1].rstrip() + "…"


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
