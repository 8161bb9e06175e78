"""Offline: with the server gone, search and show work from the cache and save queues;
when it is back, sync sends the queue. Each step is a separate `memex-desktop` process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import run_cli

from memex_desktop import cli
from memex_desktop.emulator.synthetic import generate_library

pytestmark = pytest.mark.e2e


def test_offline_then_back_online(library_emulator: Any, tmp_path: Path) -> None:
    library = generate_library(120, seed=13, words_per_entity=20)
    emulator = library_emulator(library)
    data = ("--data-dir", str(tmp_path / "data"), "--api-url", emulator.base_url)

    synced = run_cli("sync", *data, api_key=TEST_API_KEY)
    assert synced.returncode == 0, synced.stderr
    page = next(e for e in library["results"] if e["type"] == "web" and e.get("url"))

    emulator.stop()
    found = run_cli("search", page["url"], "--json", *data, api_key=TEST_API_KEY)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["id"] == page["id"]
    # Asked to ask the server too, the command still gives the local library's results,
    # then says the server was not reached, and exits as offline.
    asked = run_cli("search", page["url"], "--remote", "--json", *data, api_key=TEST_API_KEY)
    assert asked.returncode == cli.EXIT_OFFLINE, asked.stderr
    assert json.loads(asked.stdout)[0]["id"] == page["id"]
    assert "only the local library was searched" in asked.stderr
    shown = run_cli("show", page["id"], *data, api_key=TEST_API_KEY)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip()

    url = "https://offline.example/read-later"
    saved = run_cli("save", url, *data, api_key=TEST_API_KEY)
    assert saved.returncode == 0, saved.stderr
    assert f"queued: {url}" in saved.stdout
    assert "offline" in saved.stdout
    assert "Traceback" not in saved.stderr

    offline_sync = run_cli("sync", *data, api_key=TEST_API_KEY)
    assert offline_sync.returncode == cli.EXIT_OFFLINE
    assert len(offline_sync.stderr.strip().splitlines()) == 1
    # Its host refuses the connection: the server is down, not the network.
    assert "refused the connection" in offline_sync.stderr

    listed = run_cli("outbox", "list", "--json", *data)
    assert [op["state"] for op in json.loads(listed.stdout)] == ["queued"]

    emulator.start()
    back = run_cli("sync", *data, api_key=TEST_API_KEY)
    assert back.returncode == 0, back.stderr
    assert "1 save sent" in back.stdout
    urls = [emulator.state.entity(i).get("url") for i in emulator.state.entity_ids()]
    assert urls.count(url) == 1
    listed = run_cli("outbox", "list", "--json", *data)
    assert [op["state"] for op in json.loads(listed.stdout)] in (["accepted"], ["confirmed"])


def test_save_without_a_key_queues(tmp_path: Path) -> None:
    saved = run_cli("save", "https://nokey.example/", "--data-dir", str(tmp_path / "d"))
    assert saved.returncode == 0, saved.stderr
    assert "queued: https://nokey.example/" in saved.stdout
    assert "no API key" in saved.stdout
