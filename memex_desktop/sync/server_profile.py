"""What the sync has learned about one Memex server: how it pages, what it refuses.

The public contract leaves paging open (is ``offset`` honoured? ``sortBy``? what is the page
cap? research/memex-api-evidence.md §2), so the client finds out at run time: ``doctor`` and
the first sync against a server probe it (:mod:`memex_desktop.sync.probe`), and every pass
updates what it learns (the page cap, a page size that works). The profile is kept per server
in cache.db's sync_state; losing it only costs a new probe.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from memex_desktop.store.state_keys import STATE_SERVER_PREFIX

_log = logging.getLogger(__name__)

PagingMode = Literal["offset", "time"]
# Page sizes: where a pass starts on a server not seen before, and the least it goes down to.
FIRST_PAGE_SIZE = 50
MIN_PAGE_SIZE = 5


@dataclass
class ServerProfile:
    """Capabilities of one server: ``None`` means not known (yet)."""

    base_url: str
    probed_at_ms: int | None = None
    empty_query: bool | None = None  # an empty query lists the library
    sort_by_accepted: bool | None = None  # ``sortBy`` is not refused
    sort_by_honoured: bool | None = None  # ``sortBy`` changes the order
    date_ordered: bool | None = None  # the listing comes newest first
    offset_honoured: bool | None = None  # ``offset`` pages are disjoint
    time_paging: bool | None = None  # ``timeRange.end`` narrows the listing
    time_end_inclusive: bool | None = None
    page_cap: int | None = None  # the most items the server returns per page
    page_size: int | None = None  # the size that last worked
    distinct_ids: bool | None = None  # items carry a library row id besides the content id
    paging: PagingMode = "offset"
    refused_fields: list[str] = field(default_factory=list)  # save fields the server refused
    problems: list[str] = field(default_factory=list)

    @property
    def state_key(self) -> str:
        """Its sync_state key."""
        return state_key(self.base_url)

    @property
    def probed(self) -> bool:
        """Whether the probes ran against this server."""
        return self.probed_at_ms is not None

    @property
    def sends_sort_by(self) -> bool:
        """Whether requests should carry ``sortBy`` (unless the server refused it)."""
        return self.sort_by_accepted is not False

    def dump(self) -> str:
        """The profile as JSON."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def load(cls, base_url: str, text: str | None) -> ServerProfile:
        """The stored profile of ``base_url``, or a fresh one (unreadable text is ignored)."""
        if not text:
            return cls(base_url)
        try:
            data: Any = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            known = {item.name for item in fields(cls)}
            profile = cls(**{key: value for key, value in data.items() if key in known})
        except (ValueError, TypeError) as exc:
            _log.warning("unreadable server profile ignored: %s", exc)
            return cls(base_url)
        profile.base_url = base_url
        if profile.paging not in ("offset", "time"):
            profile.paging = "offset"
        return profile


def state_key(base_url: str) -> str:
    """The sync_state key of a server's profile."""
    return STATE_SERVER_PREFIX + base_url.rstrip("/")
