"""Probes of what a Memex server does with the requests a sync depends on (read-only).

Each probe is a small ``/search`` (five items, no notes), so probing costs a handful of cheap
requests: is an empty query a listing? is ``sortBy`` accepted and honoured? are ``offset``
pages disjoint? does ``timeRange.end`` narrow the listing, inclusively? do items carry a
library row id besides the content id? ``doctor`` adds the page cap and the shapes of the
small lists. The findings go into a :class:`ServerProfile`, which the sync obeys.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memex_desktop.api.content import epoch_ms
from memex_desktop.api.errors import ApiError, NetworkUnavailable, ValidationError
from memex_desktop.api.models import SearchRawPage
from memex_desktop.errors import ConnectionCheck
from memex_desktop.sync.server_profile import ServerProfile

if TYPE_CHECKING:
    from memex_desktop.api.client import MemexClient

_log = logging.getLogger(__name__)

PROBE_LIMIT = 5


@dataclass
class Finding:
    """One line of a probe report: what was checked, what was found, what it means.

    ``ok`` is the mark a person sees (True passed, False a problem, None for information);
    ``outcome`` says which of the check's words apply (True ok, False not ok, None not known
    or nothing to judge): the two differ where a limit is only for information. ``said`` holds
    the server's own words on a refusal, as it sent them. ``meaning`` is the probe's note until
    :func:`memex_desktop.services.explain_findings` puts the words for a person there.
    """

    check: ConnectionCheck
    result: str
    meaning: str = ""
    ok: bool | None = None
    outcome: bool | None = field(default=None, kw_only=True)
    said: str = field(default="", kw_only=True)


@dataclass
class ProbeReport:
    """Every finding, in the order the checks ran, and the profile they produced."""

    profile: ServerProfile
    findings: list[Finding] = field(default_factory=list)

    def add(
        self,
        check: ConnectionCheck,
        result: str,
        note: str = "",
        ok: bool | None = None,
        *,
        said: str = "",
        information: bool = False,
    ) -> None:
        """Record one finding whose outcome is ``ok``; ``information``: marked for
        information whatever the outcome (a limit the sync copes with)."""
        mark = None if information else ok
        self.findings.append(Finding(check, result, note, mark, outcome=ok, said=said))


def _ids(page: SearchRawPage) -> list[str]:
    return [str(entity["id"]) for entity in page.results]


def _times(page: SearchRawPage) -> list[int]:
    found = (epoch_ms(entity.get("created_at")) for entity in page.results)
    return [t for t in found if t is not None]


def _non_increasing(values: list[int]) -> bool:
    return all(a >= b for a, b in itertools.pairwise(values))


def _non_decreasing(values: list[int]) -> bool:
    return all(a <= b for a, b in itertools.pairwise(values))


def probe_server(
    client: MemexClient,
    profile: ServerProfile | None = None,
    *,
    now_ms: int,
    report: ProbeReport | None = None,
) -> ServerProfile:
    """Probe how the server lists the library; the profile the sync then obeys.

    Raises:
        ApiError: when the server cannot be reached or rejects the credentials (a request
            it refuses as invalid is a finding, not an error).
    """
    profile = profile or ServerProfile(client.base_url)
    report = report or ProbeReport(profile)
    search = _Searcher(client, profile)
    try:
        first = search(sort_by="date-desc")
    except ValidationError as exc:
        profile.sort_by_accepted = False
        report.add(ConnectionCheck.SORT_BY_ACCEPTED, "no", ok=False, said=exc.message)
        try:
            first = search()
        except ValidationError as again:
            profile.empty_query = False
            profile.problems.append(f"an empty query is refused: {again.message}")
            report.add(ConnectionCheck.EMPTY_QUERY_LISTS, "no", ok=False, said=again.message)
            profile.probed_at_ms = now_ms
            return profile
    profile.empty_query = True
    report.add(
        ConnectionCheck.EMPTY_QUERY_LISTS, f"yes ({len(first.results)} items on a first page)",
        ok=True,
    )  # fmt: skip
    if profile.sort_by_accepted is None:
        profile.sort_by_accepted = True
    _probe_identity(first, profile, report)
    times = _times(first)
    profile.date_ordered = _non_increasing(times)
    report.add(
        ConnectionCheck.NEWEST_FIRST, "yes" if profile.date_ordered else "no",
        "" if profile.date_ordered else "incremental pulls read a time window instead",
        profile.date_ordered,
    )  # fmt: skip
    if profile.sort_by_accepted and len(set(times)) >= 2:
        ascending = search(sort_by="date-asc")
        flipped = _non_decreasing(_times(ascending)) and _ids(ascending) != _ids(first)
        profile.sort_by_honoured = flipped
        report.add(
            ConnectionCheck.SORT_BY_HONOURED, "yes" if flipped else "no (ignored)", ok=flipped
        )
    _probe_offset(search, first, profile, report)
    _probe_time(search, first, profile, report)
    if profile.offset_honoured is False:
        profile.paging = "time" if profile.time_paging else profile.paging
    profile.probed_at_ms = now_ms
    if profile.offset_honoured is False and not profile.time_paging:
        profile.problems.append("the server pages neither by offset nor by time")
    return profile


def _probe_identity(first: SearchRawPage, profile: ServerProfile, report: ProbeReport) -> None:
    """Whether items carry a library row id besides their content id."""
    distinct = sum(1 for entity in first.results if "userLibraryId" in entity)
    profile.distinct_ids = distinct > 0
    report.add(
        ConnectionCheck.IDENTITY,
        f"different on {distinct} of {len(first.results)}" if distinct else "the same",
        "items are keyed by content_id; the library row id is kept" if distinct else "",
    )


def _probe_offset(
    search: _Searcher, first: SearchRawPage, profile: ServerProfile, report: ProbeReport
) -> None:
    """Whether the next offset gives other, older items."""
    if len(first.results) < PROBE_LIMIT:
        report.add(ConnectionCheck.OFFSET_PAGING, "not known (the library fits on one page)")
        return
    second = search(offset=len(first.results), sort_by="date-desc")
    ids, more = set(_ids(first)), _ids(second)
    if not more:
        report.add(ConnectionCheck.OFFSET_PAGING, "not known (nothing after the first page)")
        return
    overlap = len(ids & set(more))
    profile.offset_honoured = overlap == 0
    if overlap == len(more):
        result = "no: the same items again (offset is ignored)"
    elif overlap:
        result = f"partly: {overlap} of {len(more)} items again"
    else:
        result = "yes"
    report.add(
        ConnectionCheck.OFFSET_PAGING, result,
        "" if profile.offset_honoured else "the sync pages by time instead",
        profile.offset_honoured,
    )  # fmt: skip


def _probe_time(
    search: _Searcher, first: SearchRawPage, profile: ServerProfile, report: ProbeReport
) -> None:
    """Whether ``timeRange.end`` narrows the listing, and whether the bound is inclusive."""
    dated = [
        (str(entity["id"]), t)
        for entity in first.results
        if (t := epoch_ms(entity.get("created_at"))) is not None
    ]
    if len({t for _, t in dated}) < 2:
        report.add(ConnectionCheck.TIME_PAGING, "not known (too few dated items)")
        return
    newest = max(t for _, t in dated)
    boundary_id, boundary = next((i, t) for i, t in dated if t < newest)
    page = search(time_range={"end": boundary}, sort_by="date-desc")
    times = _times(page)
    narrowed = bool(times) and max(times) <= boundary
    profile.time_paging = narrowed
    profile.time_end_inclusive = boundary_id in _ids(page) if narrowed else None
    result = "yes" if narrowed else "no (timeRange is ignored)"
    if narrowed:
        result += ", end inclusive" if profile.time_end_inclusive else ", end exclusive"
    report.add(ConnectionCheck.TIME_PAGING, result, ok=narrowed)


class _Searcher:
    """Small probe searches with the fields the profile says the server accepts."""

    def __init__(self, client: MemexClient, profile: ServerProfile) -> None:
        self._client = client
        self._profile = profile

    def __call__(self, **options: Any) -> SearchRawPage:
        if self._profile.sort_by_accepted is False:
            options.pop("sort_by", None)
        options.setdefault("limit", PROBE_LIMIT)
        options.setdefault("offset", 0)
        return self._client.search_raw_page("", include_notes=False, **options)


def probe_page_cap(
    client: MemexClient, profile: ServerProfile, asked: int, report: ProbeReport
) -> None:
    """The most items the server returns per page, asking for ``asked`` (the sync's size)."""
    search = _Searcher(client, profile)
    page = search(limit=asked, sort_by="date-desc")
    sent = page.parse.sent
    if sent >= asked:
        report.add(ConnectionCheck.PAGE_CAP, f"at least {asked}", ok=True)
        return
    if profile.offset_honoured is False:
        oldest = min(_times(page), default=None)
        if oldest is None:
            report.add(ConnectionCheck.PAGE_CAP, "not known")
            return
        after = search(limit=asked, time_range={"end": oldest - 1}, sort_by="date-desc")
    else:
        after = search(limit=asked, offset=sent, sort_by="date-desc")
    if after.parse.sent == 0 or set(_ids(after)) <= set(_ids(page)):
        report.add(ConnectionCheck.PAGE_CAP, f"not known (the library holds {sent} items)")
        return
    profile.page_cap = sent
    echoed = page.meta.limit
    note = "pages come back short, so a pass ends only on an empty page"
    if echoed not in (None, sent):
        note += f" (meta.limit said {echoed})"
    result = f"{sent} items on a page (asked for {asked})"
    report.add(ConnectionCheck.PAGE_CAP, result, note, False, information=True)


def probe_lists(
    calls: list[tuple[ConnectionCheck, Callable[[], list[Any]]]], report: ProbeReport
) -> None:
    """Whether the small lists (views, feeds, tag names) can be read, and how many there are."""
    for name, call in calls:
        try:
            items = call()
        except NetworkUnavailable:
            raise
        except ApiError as exc:
            report.add(name, "could not be read", ok=False, said=exc.message)
            continue
        report.add(name, f"{len(items)} read", ok=True)
