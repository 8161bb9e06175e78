"""``memex-desktop doctor``: what the Memex server does with the requests the app depends on.

Read-only towards the server (small searches and list reads, nothing saved). The findings are
printed as a table (the window shows the same one: Help → Check the connection to Memex…),
written to a report in the data folder with no secret in it, and the flags they establish are
kept for the sync (a :class:`ServerProfile`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from memex_desktop import __version__
from memex_desktop.api.client import MemexClient
from memex_desktop.api.errors import ApiError, ApiMoved, AuthError, NetworkUnavailable
from memex_desktop.errors import ConnectionCheck, user_message
from memex_desktop.sync.probe import (
    Finding,
    ProbeReport,
    probe_lists,
    probe_page_cap,
    probe_server,
)
from memex_desktop.sync.server_profile import ServerProfile

REPORT_NAME = "doctor-report.json"


@dataclass
class DoctorReport:
    """Everything ``doctor`` found, and whether a sync can work against this server."""

    base_url: str
    auth_mode: str
    findings: list[Finding]
    profile: ServerProfile | None
    can_sync: bool
    error: BaseException | None = None

    def rows(self) -> list[tuple[str, str, str]]:
        """(check, result, what it means) for a table; a leading mark says good or bad."""
        rows = []
        for finding in self.findings:
            mark = {True: "ok", False: "!!", None: "--"}[finding.ok]
            rows.append((f"{mark} {finding.check}", finding.result, finding.meaning))
        return rows

    def table(self) -> str:
        """The findings as an aligned text table (the command line's output)."""
        rows = [("check", "result", "meaning"), *self.rows()]
        widths = [max(len(row[column]) for row in rows) for column in range(2)]
        lines = []
        for check, result, meaning in rows:
            line = f"{check.ljust(widths[0])}  {result.ljust(widths[1])}  {meaning}"
            lines.append(line.rstrip())
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON: the server's address without credentials, no key, no token."""
        return {
            "memex_desktop": __version__,
            "checked_at_ms": int(time.time() * 1000),
            "api_url": public_url(self.base_url),
            "auth_mode": self.auth_mode,
            "can_sync": self.can_sync,
            "findings": [asdict(finding) for finding in self.findings],
            "flags": _public_flags(self.profile),
        }

    def write(self, data_dir: Path) -> Path:
        """Write the report into the data folder; its path."""
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / REPORT_NAME
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        return path


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment (where a credential could hide)."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return "(unreadable URL)"
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


def _public_flags(profile: ServerProfile | None) -> dict[str, Any] | None:
    if profile is None:
        return None
    flags = asdict(profile)
    flags["base_url"] = public_url(profile.base_url)
    return flags


def run_doctor(client: MemexClient, *, page_size: int, now_ms: int | None = None) -> DoctorReport:
    """Probe the server behind ``client`` (read-only); never raises for what it finds."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    profile = ServerProfile(client.base_url)
    probes = ProbeReport(profile)
    probes.add(ConnectionCheck.API_URL, public_url(client.base_url))
    probes.add(ConnectionCheck.AUTHENTICATION, client.auth_mode)
    try:
        probe_server(client, profile, now_ms=now_ms, report=probes)
    except ApiError as exc:
        probes.add(ConnectionCheck.REACHABLE, *_unreachable(exc))
        return DoctorReport(client.base_url, client.auth_mode, probes.findings, None, False, exc)
    reached = Finding(ConnectionCheck.REACHABLE, "yes, credentials accepted", ok=True, outcome=True)
    probes.findings.insert(2, reached)
    try:
        if profile.empty_query:
            probe_page_cap(client, profile, page_size, probes)
        probe_lists(
            [
                (ConnectionCheck.VIEWS, client.list_views),
                (ConnectionCheck.FEEDS, client.list_feeds),
                (ConnectionCheck.TAG_NAMES, client.get_available_tag_names),
            ],
            probes,
        )
    except ApiError as exc:
        probes.add(ConnectionCheck.REACHABLE, *_unreachable(exc))
    can_sync = bool(profile.empty_query) and not profile.problems
    if can_sync:
        how = "by time (timeRange.end)" if profile.paging == "time" else "by offset"
        probes.add(ConnectionCheck.SYNC, f"pages {how}", "", True)
    else:
        probes.add(ConnectionCheck.SYNC, "cannot work", "; ".join(profile.problems), False)
    return DoctorReport(client.base_url, client.auth_mode, probes.findings, profile, can_sync)


def _unreachable(exc: ApiError) -> tuple[str, str, bool]:
    """(result, meaning, ok) of a check that could not reach the server as expected."""
    message = user_message(exc)
    if isinstance(exc, NetworkUnavailable):
        result = "no"
    elif isinstance(exc, ApiMoved):
        result = f"moved to {public_url(exc.location)}"
    elif isinstance(exc, AuthError):
        result = "credentials rejected"
    else:
        result = "failed"
    return result, message.one_line(), False
