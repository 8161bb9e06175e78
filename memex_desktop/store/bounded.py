"""An entity's stored JSON cut to a text budget, so a huge item opens without its whole text.

A saved page can hold tens of megabytes of text. The reader shows a bounded part of it: the
strings of the JSON are kept in document order until the budget is spent, the rest of each long
string is cut off and arrays stop growing. Short strings (ids, types, titles, addresses) are
kept whole past the budget, within a small overdraft, so the item still parses as its type.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from memex_desktop.api.models import ContentEntityBase, parse_content_entity

# Strings this short are an item's identity and metadata, not its body: kept past the budget.
KEEP_WHOLE_CHARS = 1000
# How far short strings may go past the budget (an object of many small fields stays bounded).
OVERDRAFT_CHARS = 64_000


@dataclass(frozen=True)
class BoundedEntity:
    """One entity's stored JSON within a text budget, and how big the stored item is."""

    data: dict[str, Any]
    stored_bytes: int
    truncated: bool

    def entity(self, max_chars: int | None = None) -> ContentEntityBase:
        """The entity, parsed from the bounded JSON (cut further to ``max_chars`` if given)."""
        data = self.data if max_chars is None else text_within(self.data, max_chars)[0]
        return parse_content_entity(data)


@dataclass
class _Budget:
    left: int
    cut: bool = False


def _bounded(value: Any, budget: _Budget) -> Any:
    """``value`` with its strings cut to what is left of ``budget`` (spent as it goes)."""
    if isinstance(value, str):
        size = len(value)
        if size <= budget.left or (
            size <= KEEP_WHOLE_CHARS and budget.left - size >= -OVERDRAFT_CHARS
        ):
            budget.left -= size
            return value
        kept = max(budget.left, 0)
        budget.left -= kept
        budget.cut = True
        return value[:kept]
    if isinstance(value, list):
        items = []
        for item in value:
            if budget.left <= 0:
                budget.cut = True
                break
            items.append(_bounded(item, budget))
        return items
    if isinstance(value, dict):
        # Every key is kept: a small field after a huge one (the type, a date) still counts.
        return {key: _bounded(item, budget) for key, item in value.items()}
    return value


def text_within(value: Any, max_chars: int) -> tuple[Any, bool]:
    """A copy of JSON ``value`` holding at most about ``max_chars`` characters of strings,
    and whether anything was cut."""
    budget = _Budget(max(0, max_chars))
    bounded = _bounded(value, budget)
    return bounded, budget.cut


def read_bounded(
    connection: sqlite3.Connection, rowid: int, max_chars: int
) -> BoundedEntity | None:
    """The stored JSON of the entity at ``rowid`` within ``max_chars`` characters of text.

    The stored size is read from the row's header (an incremental blob handle), so an item
    within the budget costs one ordinary read and a huge one is read once, then cut.
    """
    with connection.blobopen("entity_raw", "raw", rowid, readonly=True) as blob:
        stored = len(blob)
        raw = blob.read()
    value = json.loads(raw)
    del raw
    if not isinstance(value, dict):
        return None
    if stored <= max_chars:  # its text cannot be longer than its JSON
        return BoundedEntity(value, stored, truncated=False)
    bounded, cut = text_within(value, max_chars)
    return BoundedEntity(bounded, stored, truncated=cut)
