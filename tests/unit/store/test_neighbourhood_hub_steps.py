"""The neighbourhood of a hub reads in a bounded amount of work, whatever the hub's size.

Reading which of the 600 nodes found around a tag link one another probed every pair of
them, 360,000 lookups: about 100 ms of each read of the graph around a tag on 10,000 items,
and of each read again for a filter. Counted in SQLite's steps, which no other work on the
machine changes.
"""

from __future__ import annotations

import pytest

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.neighbourhood import GraphFilter, read_shown

MEMBERS = 2000
# Thousands of SQLite steps a read may take (it takes about 100; probing every pair, 2,300).
MOST_STEPS = 500


@pytest.fixture
def steps(writer: StoreWriter, reader: CacheReader) -> list[int]:
    """A tag on ``MEMBERS`` items that reference one another, and a count of the reader's
    SQLite steps in thousands."""
    members = [
        {"id": f"member{n:04d}", "type": "web", "title": f"Tagged page {n}",
         "tag_ids": ["popular"], "reference_content_ids": [f"member{(7 * n + 1) % MEMBERS:04d}"]}
        for n in range(MEMBERS)
    ]  # fmt: skip
    writer.ingest_json(members, tags=[{"id": "popular", "name": "popular"}]).result()
    counted = [0]

    def count() -> int:
        counted[0] += 1
        return 0  # go on

    reader.db.conn.set_progress_handler(count, 1000)
    return counted


@pytest.mark.parametrize("hops", [1, 2])
def test_a_tag_on_thousands_of_items_reads_in_bounded_steps(
    reader: CacheReader, steps: list[int], hops: int
) -> None:
    hood = reader.neighbourhood("popular", hops, 300)
    assert len(hood.nodes) == 300
    assert steps[0] < MOST_STEPS


def test_a_filtered_read_of_it_too(reader: CacheReader, steps: list[int]) -> None:
    shown = read_shown(reader, "popular", 2, 300, GraphFilter(kinds=frozenset({"references"})))
    assert len(shown.hood.nodes) == 300
    assert steps[0] < 2 * MOST_STEPS  # the read through every link, then the one for the filter
