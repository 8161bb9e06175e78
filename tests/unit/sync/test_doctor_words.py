"""Every connection check the probes and ``doctor`` report has words for a person, found by
the check and its outcome (data), never by re-reading the result's sentence; the server's own
words travel in a field of their own and are quoted as sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.secrets import TEST_API_KEY

from memex_desktop.api.client import MemexClient
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.errors import ConnectionCheck, check_meaning
from memex_desktop.services import explain_findings
from memex_desktop.sync.doctor import DoctorReport, run_doctor
from memex_desktop.sync.probe import Finding

# Each check's outcomes that have words of their own. "reachable" when not ok is said by
# user_message (the note), and the checks for information have words only for None.
OUTCOMES: dict[ConnectionCheck, tuple[bool | None, ...]] = {
    ConnectionCheck.API_URL: (None,),
    ConnectionCheck.AUTHENTICATION: (None,),
    ConnectionCheck.REACHABLE: (True,),
    ConnectionCheck.SORT_BY_ACCEPTED: (True, False),
    ConnectionCheck.EMPTY_QUERY_LISTS: (True, False),
    ConnectionCheck.IDENTITY: (None,),
    ConnectionCheck.NEWEST_FIRST: (True, False),
    ConnectionCheck.SORT_BY_HONOURED: (True, False),
    ConnectionCheck.OFFSET_PAGING: (True, False, None),
    ConnectionCheck.TIME_PAGING: (True, False, None),
    ConnectionCheck.PAGE_CAP: (True, False, None),
    ConnectionCheck.VIEWS: (True, False),
    ConnectionCheck.FEEDS: (True, False),
    ConnectionCheck.TAG_NAMES: (True, False),
    ConnectionCheck.SYNC: (True, False),
}


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    """Enough items for every paging check to find an answer (and the page cap to show)."""
    return generate_library(200, seed=6, words_per_entity=8)


def _explained(emulator: Any, *, page_size: int = 100) -> DoctorReport:
    with MemexClient(emulator.base_url, api_key=TEST_API_KEY, max_retries=0) as client:
        return explain_findings(run_doctor(client, page_size=page_size))


def _finding(report: DoctorReport, check: ConnectionCheck) -> Finding:
    return next(finding for finding in report.findings if finding.check is check)


def _assert_every_finding_has_words(report: DoctorReport) -> None:
    for finding in report.findings:
        assert isinstance(finding.check, ConnectionCheck), finding
        assert finding.meaning, finding


def test_every_check_has_words_for_each_of_its_outcomes() -> None:
    assert set(OUTCOMES) == set(ConnectionCheck)
    for check, outcomes in OUTCOMES.items():
        for outcome in outcomes:
            assert check_meaning(check, outcome), (check, outcome)
    # A check that could not reach the server says user_message's words, its note.
    assert check_meaning(ConnectionCheck.REACHABLE, False, note="No connection.") == (
        "No connection."
    )


def test_every_finding_has_words_against_each_profile(
    emulator_factory: Any, emulator_profile: str, library: dict[str, Any], tmp_path: Path
) -> None:
    report = _explained(emulator_factory(library=library, profile=emulator_profile))
    assert report.can_sync
    _assert_every_finding_has_words(report)
    # Everything but the refusal of sortBy, which only a server that refuses it reports.
    assert {finding.check for finding in report.findings} == set(ConnectionCheck) - {
        ConnectionCheck.SORT_BY_ACCEPTED
    }
    cap = _finding(report, ConnectionCheck.PAGE_CAP)
    if emulator_profile == "first-party":
        # A cap learned is a limit the sync copes with: marked for information.
        assert (cap.ok, cap.outcome) == (None, False)
        assert cap.meaning == check_meaning(ConnectionCheck.PAGE_CAP, False)
    else:
        assert (cap.ok, cap.outcome) == (True, True)
    saved = json.loads(report.write(tmp_path).read_text(encoding="utf-8"))
    for finding, kept in zip(report.findings, saved["findings"], strict=True):
        assert {"check", "result", "meaning", "ok"} <= set(kept)
        assert (kept["check"], kept["meaning"], kept["ok"]) == (
            finding.check.value, finding.meaning, finding.ok,
        )  # fmt: skip


def test_a_small_library_says_what_is_not_known_yet(
    emulator_factory: Any, emulator_profile: str
) -> None:
    report = _explained(emulator_factory(profile=emulator_profile), page_size=500)
    _assert_every_finding_has_words(report)
    cap = _finding(report, ConnectionCheck.PAGE_CAP)
    assert (cap.ok, cap.outcome) == (None, None)
    assert cap.meaning == check_meaning(ConnectionCheck.PAGE_CAP, None)
    assert cap.meaning.startswith("Not known yet")


def test_the_servers_own_words_are_kept_apart_and_quoted(
    emulator_factory: Any, library: dict[str, Any]
) -> None:
    emulator = emulator_factory(library=library)
    emulator.faults.next_status(400, body={"error": "Unknown field: sortBy"}, paths=["/search"])
    emulator.faults.next_status(500, body={"error": "views are resting"}, paths=["/list-views"])
    report = _explained(emulator)
    _assert_every_finding_has_words(report)
    refused = _finding(report, ConnectionCheck.SORT_BY_ACCEPTED)
    assert (refused.ok, refused.outcome) == (False, False)
    assert refused.said.endswith("HTTP 400: Unknown field: sortBy")
    assert refused.meaning == (
        check_meaning(ConnectionCheck.SORT_BY_ACCEPTED, False)
        + f" The server said: {refused.said}."
    )
    views = _finding(report, ConnectionCheck.VIEWS)
    assert (views.ok, views.outcome) == (False, False)
    assert views.meaning.startswith(check_meaning(ConnectionCheck.VIEWS, False))
    assert views.said.endswith("HTTP 500: views are resting")
    assert views.meaning.endswith(f"The server said: {views.said}.")
    assert report.can_sync  # neither stops a sync
