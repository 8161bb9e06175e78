"""Recency keys: the rowids of new entities, chosen so that rowid order follows creation.

The search indexes return matches in rowid order, so a search reads the newest items first
and stops early. Keys are spaced so that items arriving later from between two cached ones
(an older page, an item a note pointed at) fit without renumbering the library.
"""

from __future__ import annotations

import itertools
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from sqlite_utils import Database

from memex_desktop.store.schema import FIRST_KEY, KEY_STEP
from memex_desktop.store.sql import IN_LIST, in_ids, rows_at_once


def _one(db: Database, sql: str, params: Sequence[Any] = ()) -> int | None:
    row = db.conn.execute(sql, params).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def _gap(db: Database, created_at: int | None) -> tuple[int | None, int | None]:
    """Keys of the cached neighbours (older, newer) an item created at ``created_at`` goes
    between; items without a date go below everything."""
    if created_at is None:
        return None, _one(db, "SELECT min(rowid) FROM entities")
    before = _one(
        db,
        "SELECT rowid FROM entities WHERE created_at <= ? ORDER BY created_at DESC, rowid DESC "
        "LIMIT 1",
        (created_at,),
    )
    after = _one(
        db,
        "SELECT rowid FROM entities WHERE created_at > ? ORDER BY created_at, rowid LIMIT 1",
        (created_at,),
    )
    if before is None and after is None:
        return _one(db, "SELECT max(rowid) FROM entities"), None  # only undated rows so far
    return before, after


def _dates_of(db: Database, keys: Iterable[int]) -> dict[int, int | None]:
    """The created_at of the cached rows at ``keys``."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    return {
        int(row[0]): row[1]
        for row in db.conn.execute(
            f"SELECT rowid, created_at FROM entities WHERE rowid IN {IN_LIST}", [in_ids(wanted)]
        )
    }


class _Neighbours:
    """The gaps of a batch, looked up once per distinct date.

    A sync reads newest first, so nearly every item of a page is older than everything
    cached (and new saves newer): those share the gap below (above) the cached range,
    found with two index probes instead of two per item.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        conn = db.conn
        self.oldest = conn.execute(
            "SELECT created_at, rowid FROM entities WHERE created_at IS NOT NULL "
            "ORDER BY created_at, rowid LIMIT 1"
        ).fetchone()
        self.newest = conn.execute(
            "SELECT created_at, rowid FROM entities WHERE created_at IS NOT NULL "
            "ORDER BY created_at DESC, rowid DESC LIMIT 1"
        ).fetchone()
        # Separate queries: SQLite reads min() or max() alone off the b-tree's edge, but
        # scans the whole table for both in one statement.
        self.low = _one(db, "SELECT min(rowid) FROM entities")
        self.high = _one(db, "SELECT max(rowid) FROM entities")
        self.oldest_key = self.oldest[1] if self.oldest is not None else None
        self.newest_key = self.newest[1] if self.newest is not None else None
        self._known: dict[int | None, tuple[int | None, int | None]] = {}

    def gap(self, created_at: int | None) -> tuple[int | None, int | None]:
        """What :func:`_gap` answers, from the cached ends when the date lies beyond them."""
        found = self._known.get(created_at)
        if found is not None:
            return found
        if created_at is None:
            found = (None, self.low)
        elif self.oldest is None:
            found = (self.high, None)  # only undated rows (or none at all) so far
        elif created_at < self.oldest[0]:
            found = (None, self.oldest[1])
        elif created_at >= self.newest[0]:
            found = (self.newest[1], None)
        else:
            found = _gap(self.db, created_at)
        self._known[created_at] = found
        return found

    def look_up(self, dates: Iterable[int | None]) -> None:
        """Find the gaps of every date strictly inside the cached range at once.

        One statement for all of them: each statement step lets other threads take the GIL
        (see :func:`.sql.insert_rows`), and two probes per date were most of a page's steps.
        """
        if self.oldest is None:
            return
        low, high = self.oldest[0], self.newest[0]
        inside = {d for d in dates if d is not None and low <= d < high and d not in self._known}
        if not inside:
            return
        for date, before, after in rows_at_once(
            self.db.conn,
            "value, before, after",
            "FROM (SELECT value,"
            " (SELECT rowid FROM entities WHERE created_at <= value"
            "  ORDER BY created_at DESC, rowid DESC LIMIT 1) AS before,"
            " (SELECT rowid FROM entities WHERE created_at > value"
            "  ORDER BY created_at, rowid LIMIT 1) AS after FROM json_each(?))",
            [in_ids(inside)],
        ):
            self._known[date] = (before, after)

    def taken(self, keys: Sequence[int]) -> set[int]:
        """Which of ``keys`` are cached rowids (only keys within the cached range can be)."""
        low, high = self.low, self.high
        if low is None or high is None:
            return set()
        inside = [key for key in keys if low <= key <= high]
        if not inside:
            return set()
        return {
            row[0]
            for row in self.db.conn.execute(
                f"SELECT rowid FROM entities WHERE rowid IN {IN_LIST}", [in_ids(inside)]
            )
        }


# Most keys one item may be placed from its neighbour: room for that many later arrivals.
# The spacing follows the dates (see _keys_per_ms), so this only bounds a jump whose slope
# came from a batch of items a few milliseconds apart. It is large because the first page of
# a full sync often carries a very old item a note points at, and the rest of the library
# arrives later between that item and the page: at KEY_STEP * 1024 that room held about a
# thousand items spaced as their dates asked, a millionth of what a large library needs.
_MAX_KEY_JUMP = KEY_STEP << 24


# The widest spacing between items a batch may suggest: one KEY_STEP per minute at least.
# A sync page whose notes point at items from all over the library (or a server that pages
# in another order than by date) has a median gap of hours; keys spaced by it left about one
# key per item where the rest of the library had to fit, and a 100,000-item sync put 94,000
# items above every key, out of date order. A minute apart leaves 64 keys per minute of
# dates: a billion keys hold 30 years, far inside the keys' range.
_WIDEST_GAP_MS = 60_000


def _keys_per_ms(created: Sequence[int | None]) -> float:
    """Key distance per millisecond that leaves one KEY_STEP per expected item.

    The expectation is the batch's typical spacing (the median gap between its dates, at
    most _WIDEST_GAP_MS): a sync page is a run of consecutive items plus older ones they
    point at, and the items between those will arrive later and need room between their
    keys.
    """
    dates = sorted({value for value in created if value is not None})
    gaps = sorted(b - a for a, b in itertools.pairwise(dates))
    if not gaps:
        return KEY_STEP / _WIDEST_GAP_MS if dates else 0.0
    return KEY_STEP / max(1, min(gaps[len(gaps) // 2], _WIDEST_GAP_MS))


def _spread(
    times: Sequence[int | None], edge_key: int, edge_time: int | None, sign: int, slope: float
) -> list[int]:
    """Keys going away from ``edge_key`` (down for ``sign`` -1, up for +1), one per time in
    the order given (moving away from the edge), spaced by the time between neighbours."""
    keys: list[int] = []
    key, previous = edge_key, edge_time
    for moment in times:
        distance = 0 if moment is None or previous is None else abs(moment - previous)
        key += sign * min(_MAX_KEY_JUMP, max(KEY_STEP, round(distance * slope)))
        keys.append(key)
        previous = moment if moment is not None else previous
    return keys


def _by_date(
    times: Sequence[int | None], low: tuple[int, int | None], high: tuple[int, int | None]
) -> list[int]:
    """Keys strictly between two cached neighbours' keys for items created at ``times``
    (oldest first), each where its date falls between theirs; [] when there is no room.

    Placed by date, the items that arrive later from between these find room where their
    dates are, as they would had they come in order; shared out evenly instead, every page
    of a sync falling between the same two items halved the room the next one had.
    """
    (low_key, low_time), (high_key, high_time) = low, high
    room = high_key - low_key
    if room <= len(times):
        return []
    span = (high_time - low_time) if low_time is not None and high_time is not None else 0
    keys: list[int] = []
    previous = low_key
    for position, moment in enumerate(times):
        if span > 0 and moment is not None and low_time is not None:
            wanted = low_key + round((moment - low_time) * room / span)
        else:
            wanted = low_key + room * (position + 1) // (len(times) + 1)
        # Increasing, and leaving one key for each item still to place.
        key = max(previous + 1, min(wanted, high_key - (len(times) - position)))
        keys.append(key)
        previous = key
    return keys


def assign_keys(db: Database, created: Sequence[int | None]) -> list[int]:
    """Free recency keys (rowids) for new items, in the order of ``created``.

    A full sync, newest first, extends the key range downwards, new saves extend it
    upwards, with room left between keys in proportion to the time between items, so the
    items that arrive later from between them (a later page, an older item a note pointed
    at) fit without renumbering. The items falling between two cached neighbours are placed
    in that gap by their dates (see _by_date). Should a gap be too narrow, the item goes
    above every key: search then sees it as newer than it is (date order uses created_at).
    """
    order = sorted(range(len(created)), key=lambda i: (created[i] is not None, created[i] or 0))
    neighbours = _Neighbours(db)
    neighbours.look_up(created)
    slope = _keys_per_ms(created)
    groups: dict[tuple[int | None, int | None], list[int]] = {}
    for index in order:
        groups.setdefault(neighbours.gap(created[index]), []).append(index)
    keys: dict[int, int] = {}
    misplaced: list[int] = []
    between: list[tuple[int, int, list[int]]] = []

    def place(members: list[int], starts: list[int]) -> None:
        if len(starts) < len(members):
            misplaced.extend(members)  # no room in their gap
        else:
            keys.update(zip(members, starts, strict=True))

    for (before, after), members in groups.items():
        times = [created[index] for index in members]
        if before is None and after is None:
            starts = [FIRST_KEY, *_spread(times[1:], FIRST_KEY, times[0], 1, slope)]
        elif after is None:
            assert before is not None
            edge = neighbours.newest[0] if neighbours.newest is not None else None
            starts = _spread(times, before, edge if before == neighbours.newest_key else None,
                             1, slope)  # fmt: skip
        elif before is None:
            edge = neighbours.oldest[0] if neighbours.oldest is not None else None
            downwards = _spread(times[::-1], after, edge if after == neighbours.oldest_key
                                else None, -1, slope)  # fmt: skip
            starts = downwards[::-1]
        else:
            between.append((before, after, members))
            continue
        place(members, starts)
    if between:
        dates = _dates_of(db, [key for before, after, _ in between for key in (before, after)])
        for before, after, members in between:
            times = [created[index] for index in members]
            place(members, _by_date(times, (before, dates.get(before)), (after, dates.get(after))))
    # Keys no longer follow created_at once an item was misplaced: gaps can overlap, so
    # every key is checked against the cache and against the rest of the batch.
    cached = neighbours.taken(list(keys.values()))
    taken: set[int] = set()
    for index, key in list(keys.items()):
        if key in taken or key in cached:
            del keys[index]
            misplaced.append(index)
        else:
            taken.add(key)
    if misplaced:
        top = max([neighbours.high or FIRST_KEY, *taken])
        position = {index: rank for rank, index in enumerate(order)}
        for offset, index in enumerate(sorted(misplaced, key=position.__getitem__), start=1):
            keys[index] = top + KEY_STEP * offset
    return [keys[index] for index in range(len(created))]


def keys_in_date_order_sql(created: Sequence[int | None]) -> tuple[str, list[Any]]:
    """A query of ``(old, new)``: every cached rowid and the key a full sync by this version
    would give it, ``created`` being every cached date (for the spacing).

    :func:`_spread` over the whole library, oldest first from FIRST_KEY, in one statement:
    at a million items the rows would not fit in memory as Python objects cheaply.
    """
    slope = _keys_per_ms(created)
    step = (
        "min(?, max(?, CAST(round(coalesce(created_at - lag(created_at) OVER "
        "(ORDER BY created_at, rowid), 0) * ?) AS INTEGER)))"
    )
    sql = (
        "SELECT old, ? + sum(step) OVER (ORDER BY created_at, old "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS new "
        f"FROM (SELECT rowid AS old, created_at, {step} AS step FROM entities)"
    )
    # The first row's step is KEY_STEP (it has no predecessor): it lands on FIRST_KEY.
    return sql, [FIRST_KEY - KEY_STEP, _MAX_KEY_JUMP, KEY_STEP, slope]


# Moving more items than this share of the library costs more than giving every item a new
# key: a moved item leaves both indexes (its text tokenized again to remove it) and enters
# them again, where a rebuild tokenizes each item once.
MOST_MOVED = 0.25


# Keys a run of moved items asks per item between its neighbours: one free key beside each,
# for an item arriving later. Not KEY_STEP: the older versions that left keys out of order
# spaced the rest closer than that (a median of 35 on a 100,000-item cache one synced), and
# asking for it there widened the windows from 215 items moved to 22,430.
_ROOM_PER_MOVED = 2


def _longest_in_order(keys: Sequence[int]) -> bytearray:
    """Flags of the most keys that already increase along ``keys`` (a longest increasing
    subsequence, in O(n log n)): those can keep their keys."""
    tails = array("q")  # the smallest last key of an increasing run of each length
    tail_at = array("q")
    before = array("q", bytes(8 * len(keys)))
    for position, key in enumerate(keys):
        length = bisect_left(tails, key)
        if length == len(tails):
            tails.append(key)
            tail_at.append(position)
        else:
            tails[length] = key
            tail_at[length] = position
        before[position] = tail_at[length - 1] if length else -1
    kept = bytearray(len(keys))
    position = tail_at[-1] if tail_at else -1
    while position >= 0:
        kept[position] = 1
        position = before[position]
    return kept


def keys_back_in_order(keys: Sequence[int], created: Sequence[int | None]) -> dict[int, int] | None:
    """New keys for the fewest items that put ``keys`` (the cached keys in date order,
    ``created`` their dates) in increasing order: {old key: new key}; None when that would
    move more than MOST_MOVED of them (every key is better given anew).

    The most keys already in order stay. Each run of the others goes between its kept
    neighbours, placed by date (:func:`_by_date`); where those leave fewer than
    _ROOM_PER_MOVED keys per item, the neighbours on both sides move too, the window
    doubling until there is room. Runs at either end extend the key range as a sync does
    (:func:`_spread`).
    """
    count = len(keys)
    kept = _longest_in_order(keys)
    if count - kept.count(1) > count * MOST_MOVED:
        return None
    slope = _keys_per_ms(created)
    current = array("q", keys)
    moved: dict[int, int] = {}
    start = 0
    while start < count:
        if kept[start]:
            start += 1
            continue
        end = start
        while end < count and not kept[end]:
            end += 1
        widen = 1
        while start > 0 and end < count:
            if current[end] - current[start - 1] >= (end - start + 1) * _ROOM_PER_MOVED:
                break
            start, end = max(0, start - widen), min(count, end + widen)
            while end < count and not kept[end]:
                end += 1
            widen *= 2
        if start == 0 and end == count:
            return None
        times = list(created[start:end])
        if end == count:
            placed = _spread(times, current[start - 1], created[start - 1], 1, slope)
        elif start == 0:
            placed = _spread(times[::-1], current[end], created[end], -1, slope)[::-1]
        else:
            placed = _by_date(
                times, (current[start - 1], created[start - 1]), (current[end], created[end])
            )
        for position, key in zip(range(start, end), placed, strict=True):
            moved[position] = key
            current[position] = key
            kept[position] = 1
        if len(moved) > count * MOST_MOVED:
            return None
        start = end
    return {keys[position]: key for position, key in moved.items() if key != keys[position]}
