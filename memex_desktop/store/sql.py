"""Statement shapes shared by the store's writer and reader: id lists, multi-row inserts and
reads that return all their rows in one step."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

import orjson

T = TypeVar("T")

# Values per read of a bounded batch (the reader's graph and snippet batches).
CHUNK = 500
# SQLite's smallest limit on a statement's parameters (raised from 999 in 3.32).
MAX_PARAMETERS = 999

# The one shape of ``x IN (...)``: one parameter holding every value as a JSON array, so any
# number of values takes a single statement that is compiled once and stays cached. Measured
# with ``memex-desktop bench --only sync`` (20,000 entities, 6 runs alternated on a shared
# 2-core machine, medians): 1,129 entities/s with this shape, 939 with lists of ``?`` padded
# to a power of two under a 512-statement cache, 993 with plain lists of up to 500 ``?``; the
# store's CPU time for that ingest (5 runs): 14.0 s, 16.1 s and 18.1 s. SQLite's JSON ends a
# text at U+0000, which server ids never hold.
IN_LIST = "(SELECT value FROM json_each(?))"


def in_ids(values: Iterable[Any]) -> str:
    """The one parameter of :data:`IN_LIST`: ``values`` (ids, rowids, dates) as a JSON array."""
    return orjson.dumps(list(values)).decode()


def _marks(count: int) -> str:
    return ",".join("?" * count)


def chunks(values: Sequence[T]) -> Iterator[Sequence[T]]:
    """``values`` in slices of at most CHUNK."""
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def insert_rows(conn: sqlite3.Connection, statement: str, rows: Sequence[Sequence[Any]]) -> None:
    """Run ``statement`` (``INSERT ... INTO t (cols)``) for many rows in a few statements.

    Each statement step lets the sync's other threads take the GIL, and getting it back
    can take a whole switch interval or one of their long C calls (decoding a page): with
    ``executemany``'s step per row, a page's writes waited hundreds of times. Measured with
    ``memex-desktop bench --only sync`` (20,000 entities): 956 and 923 entities/s with
    ``executemany``, 1,938 and 2,156 with these multi-row statements. Statements take a
    power-of-two number of rows, so few distinct ones are compiled and cached.
    """
    if not rows:
        return
    width = len(rows[0])
    group = f"({_marks(width)})"
    most = 1 << (max(1, MAX_PARAMETERS // width).bit_length() - 1)
    start = 0
    while start < len(rows):
        count = min(most, 1 << ((len(rows) - start).bit_length() - 1))
        chunk = rows[start : start + count]
        conn.execute(
            f"{statement} VALUES {','.join([group] * count)}",
            [value for row in chunk for value in row],
        )
        start += count


def rows_at_once(conn: sqlite3.Connection, values: str, rest: str, params: Any) -> list[Any]:
    """``SELECT values rest`` as a list of rows, read in one step: one JSON array.

    Each row read is a step that lets other threads take the GIL (see :func:`insert_rows`).
    Only for integers and text: JSON would round some floats. The rows come in no set order.
    """
    (text,) = conn.execute(
        f"SELECT json_group_array(json_array({values})) {rest}", params
    ).fetchone()
    rows: list[Any] = orjson.loads(text)
    return rows
