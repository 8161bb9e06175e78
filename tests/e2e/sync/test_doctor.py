"""``doctor`` names what each kind of server does, and its report holds no secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import run_cli

from memex_desktop.api.client import MemexClient
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader
from memex_desktop.sync.doctor import run_doctor
from memex_desktop.sync.server_profile import ServerProfile, state_key


def _doctor(emulator: Any, *, page_size: int = 100) -> Any:
    with MemexClient(emulator.base_url, api_key=TEST_API_KEY, max_retries=0) as client:
        return run_doctor(client, page_size=page_size)


def _result(report: Any, check: str) -> str:
    return next(f.result for f in report.findings if f.check.startswith(check))


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(200, seed=6, words_per_entity=8)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            {},
            {"offset_honoured": True, "sort_by_honoured": True, "date_ordered": True,
             "time_paging": True, "distinct_ids": False, "paging": "offset", "page_cap": None},
        ),
        (
            {"profile": "first-party"},
            {"sort_by_honoured": True, "date_ordered": True, "time_paging": True,
             "distinct_ids": True, "paging": "offset"},
        ),
        (
            {"ignore_offset": True},
            {"offset_honoured": False, "time_paging": True, "paging": "time"},
        ),
        (
            {"ignore_sort_by": True},
            {"sort_by_honoured": False, "date_ordered": False, "offset_honoured": True},
        ),
    ],
    ids=["default", "first-party", "ignores-offset", "ignores-sortBy"],
)  # fmt: skip
def test_doctor_reports_the_flags_of_each_server(
    options: dict[str, Any], expected: dict[str, Any], library: dict[str, Any],
    one_profile_emulator: Any,
) -> None:  # fmt: skip
    emulator = one_profile_emulator(library, **{"profile": "default", **options})
    report = _doctor(emulator)
    assert report.can_sync
    assert report.profile is not None
    for name, value in expected.items():
        assert getattr(report.profile, name) == value, name
    if options.get("profile") == "first-party":
        # 40 a page, minus the rows dropped after the limit: never more than the cap.
        assert report.profile.page_cap is not None
        assert report.profile.page_cap <= 40
        assert "different" in _result(report, "id vs content_id")
    assert _result(report, "saved views").endswith("read")


def test_doctor_names_a_moved_api(library: dict[str, Any], one_profile_emulator: Any) -> None:
    emulator = one_profile_emulator(library, profile="default", moved_to="https://new.example/api")
    report = _doctor(emulator)
    assert not report.can_sync
    assert _result(report, "reachable") == "moved to https://new.example/api/search"


def test_doctor_command_prints_a_table_keeps_flags_and_writes_no_secret(
    library: dict[str, Any], one_profile_emulator: Any, tmp_path: Path
) -> None:
    emulator = one_profile_emulator(library, profile="first-party")
    data_dir = tmp_path / "data"
    done = run_cli("doctor", "--data-dir", str(data_dir), "--api-url", emulator.base_url,
                   api_key=TEST_API_KEY)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "offset pages disjoint" in done.stdout
    assert "page cap" in done.stdout
    report_text = (data_dir / "doctor-report.json").read_text(encoding="utf-8")
    assert TEST_API_KEY not in report_text
    assert TEST_API_KEY not in done.stdout + done.stderr
    report = json.loads(report_text)
    assert report["can_sync"] is True
    assert report["flags"]["distinct_ids"] is True
    # The flags are kept for the sync, which obeys them instead of probing again.
    key = state_key(emulator.base_url)
    with CacheReader(data_dir / "cache.db") as reader:
        probed = ServerProfile.load(emulator.base_url, reader.sync_state(key)).probed_at_ms
    assert probed is not None
    synced = run_cli("sync", "--quiet", "--data-dir", str(data_dir), "--api-url",
                     emulator.base_url, api_key=TEST_API_KEY)  # fmt: skip
    assert synced.returncode == 0, synced.stderr
    with CacheReader(data_dir / "cache.db") as reader:
        kept = ServerProfile.load(emulator.base_url, reader.sync_state(key))
    assert kept.probed_at_ms == probed
    assert kept.page_cap is not None
    with_unreachable = run_cli("doctor", "--data-dir", str(data_dir), "--api-url",
                               "http://127.0.0.1:9", api_key=TEST_API_KEY)  # fmt: skip
    assert with_unreachable.returncode == 3
    assert "reachable" in with_unreachable.stdout
