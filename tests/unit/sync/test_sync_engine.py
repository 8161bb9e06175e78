"""SyncEngine against the emulator: paging, resume, incremental pulls, outcomes, the outbox."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import library_ids

from memex_desktop.api.errors import InsufficientCredits
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import SyncOutcome, SyncProgress
from memex_desktop.sync.engine import STATE_FULL_PASS, STATE_NEWEST_MS

SAVE_PATHS = ["/save-content-by-url", "/save-content-entity"]


@pytest.fixture(scope="module")
def small_library() -> dict[str, Any]:
    return generate_library(300, seed=3, words_per_entity=20)


def _server_entities(emulator: Any) -> list[dict[str, Any]]:
    state = emulator.state
    return [state.entity(entity_id) for entity_id in state.entity_ids()]


def test_full_pass_pages_through_everything(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=40)
    seen: list[SyncProgress] = []
    started_ms = int(time.time() * 1000)
    report = harness.engine.run(progress=seen.append)
    assert report.outcome is SyncOutcome.OK, report.error
    assert report.full_pass_completed
    last_sync = harness.reader.stats().last_sync_at  # what Help > About shows
    assert last_sync is not None
    assert started_ms <= last_sync <= int(time.time() * 1000)
    assert report.pulled == 300
    assert set(harness.reader.all_ids()) == library_ids(small_library)
    assert harness.reader.sync_state(STATE_FULL_PASS) in (None, "")
    assert harness.reader.sync_state(STATE_NEWEST_MS)
    assert {v.id for v in harness.reader.views()} == {v["id"] for v in small_library["views"]}
    assert {f.id for f in harness.reader.feeds()} == {f["id"] for f in small_library["feeds"]}
    assert report.changes.view_ids
    pulls = [p for p in seen if p.phase == "pull"]
    assert [p.done for p in pulls] == sorted(p.done for p in pulls)
    assert pulls[-1].done == 300
    assert any(p.phase == "reconcile" for p in seen)


def test_server_page_cap_below_the_asked_size(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library, max_page_size=25)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=100)
    report = harness.engine.run(full=True)
    assert report.ok, report.error
    assert set(harness.reader.all_ids()) == library_ids(small_library)


def test_cancel_between_pages_then_resume_from_the_persisted_page(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=30)
    cancel = threading.Event()

    def stop_after_three_pages(progress: SyncProgress) -> None:
        if progress.phase == "pull" and progress.done >= 90:
            cancel.set()

    report = harness.engine.run(cancel=cancel, progress=stop_after_three_pages)
    assert report.outcome is SyncOutcome.CANCELLED
    assert report.pulled == 90
    assert '"offset": 90' in (harness.reader.sync_state(STATE_FULL_PASS) or "")
    # Something already pulled vanishes upstream meanwhile, shifting the listing: the
    # resumed pass re-reads one page so no live item is skipped, and it cannot prove the
    # deletion (it did not see the whole library), so the item is kept for now.
    gone = sorted(harness.reader.all_ids())[0]
    assert emulator.state.delete_entity(gone)
    resumed = harness.new_engine().run()
    assert resumed.ok, resumed.error
    assert resumed.pulled == 300 - 60 - 1
    assert resumed.deleted_upstream == 0
    assert not resumed.full_pass_completed
    assert resumed.not_reconciled == "the pass resumed after an interruption"
    assert set(harness.reader.all_ids()) == library_ids(small_library)
    # A complete pass (seen whole) that misses it remembers that; the next one marks it.
    first = harness.new_engine().run(full=True)
    assert first.full_pass_completed
    assert first.deleted_upstream == 0
    whole = harness.new_engine().run(full=True)
    assert whole.deleted_upstream == 1
    assert [row.id for row in harness.reader.deleted_upstream()] == [gone]


def test_incremental_pull_stops_at_known_items(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=20)
    assert harness.engine.run().ok
    now_ms = int(time.time() * 1000) + 60_000
    for index in range(3):
        emulator.state.put_entity(
            {
                "id": f"new-{index}",
                "type": "web",
                "url": f"https://new.example/{index}",
                "title": f"Fresh item {index}",
                "created_at": now_ms + index,
                "updated_at": now_ms + index,
                "metadata": {"status": "indexing-done"},
            }
        )
    report = harness.new_engine().run()
    assert report.ok, report.error
    assert not report.full_pass_completed
    assert report.pulled <= 40  # one page with the new items, one page of known ones at most
    assert {"new-0", "new-1", "new-2"} <= set(harness.reader.all_ids())


def test_offline_and_server_down_keep_everything(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=100)
    assert harness.engine.run().ok
    emulator.faults.next_status(503, count=50)
    # Refusals are waited out for a while (see test_sync_rate_limited): not here.
    down = harness.new_engine(patience_s=0.0).run(full=True)
    assert down.outcome is SyncOutcome.SERVER_DOWN
    emulator.faults.clear()
    emulator.stop()
    offline = harness.new_engine().run(full=True)
    assert offline.outcome is SyncOutcome.OFFLINE
    assert harness.reader.deleted_upstream() == []
    assert set(harness.reader.all_ids()) == library_ids(small_library)


def test_rejected_key_is_its_own_outcome(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, "wrong-key")
    report = harness.engine.run()
    assert report.outcome is SyncOutcome.AUTH_REJECTED


def test_remote_search_caches_what_it_shows(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    web = next(e for e in small_library["results"] if e["type"] == "web" and e.get("title"))
    word = web["title"].split()[0]
    ids, changes = harness.engine.remote_search(word, limit=10)
    assert ids
    assert set(ids) <= set(harness.reader.all_ids())
    assert changes.entity_ids
    again, _ = harness.engine.remote_search(word, limit=10)
    assert again == ids


def test_outbox_saves_are_accepted_then_confirmed(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    assert harness.engine.run().ok
    harness.outbox.enqueue_url("https://saved.example/a?utm_source=x")
    harness.outbox.enqueue_url("https://saved.example/b")
    drained = harness.engine.drain_outbox()
    assert drained.ok, drained.error
    assert drained.sent == 2
    assert {op.state for op in harness.outbox.list()} == {"accepted"}
    report = harness.new_engine().run()
    assert report.ok, report.error
    assert {op.state for op in harness.outbox.list()} == {"confirmed"}


def test_refused_save_needs_attention_with_the_server_message(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    harness.outbox.enqueue_url("https://refused.example/")
    harness.outbox.enqueue_url("https://fine.example/")
    emulator.faults.next_status(
        422, body={"error": "This page cannot be saved"}, paths=["/save-content-by-url"]
    )
    report = harness.engine.drain_outbox()
    assert report.ok
    assert report.sent == 1
    assert report.needs_attention == 1
    refused = harness.outbox.list(states=["needs_attention"])
    assert len(refused) == 1
    assert refused[0].url == "https://refused.example/"
    assert "cannot be saved" in (refused[0].reason or "")


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_is_honoured(
    status: int, library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    """As a server refusing for its load asks (429), and as one down for maintenance
    announces (503)."""
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, client_retries=0)
    harness.outbox.enqueue_url("https://limited.example/")
    emulator.faults.next_status(status, count=1, retry_after=120, paths=SAVE_PATHS)
    before_ms = time.time() * 1000
    report = harness.engine.drain_outbox(max_wait_s=0)
    assert report.outcome is SyncOutcome.SERVER_DOWN
    (op,) = harness.outbox.list()
    assert op.state == "queued"
    assert op.next_attempt_at >= before_ms + 119_000


def test_insufficient_credits_pauses_the_outbox(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library, balance_micros=0)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    for index in range(3):
        harness.outbox.enqueue_url(f"https://paid.example/{index}")
    report = harness.engine.drain_outbox()
    assert report.outcome is SyncOutcome.INSUFFICIENT_CREDITS
    assert isinstance(report.error, InsufficientCredits)
    assert report.error.upgrade_options is not None
    assert harness.outbox.paused_reason()
    assert harness.outbox.pending_count() == 3
    # Background syncs leave it paused; an explicit one resumes once usage is bought.
    assert harness.new_engine().run().outcome is SyncOutcome.INSUFFICIENT_CREDITS
    emulator.state.set_balance(10**9)
    resumed = harness.new_engine().run(resume_paused_outbox=True)
    assert resumed.ok, resumed.error
    assert resumed.sent == 3


def test_entity_save_after_a_lost_response_is_not_duplicated(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    target = next(e for e in small_library["results"] if e["type"] == "web")
    note = {
        "type": "annotation",
        "text": "a note written offline",
        "content": {
            "type": "doc",
            "content": [
                {"type": "paragraph", "content": [{"type": "text", "text": "a note written"}]}
            ],
        },
        "reference_content_ids": [target["id"]],
        "external_id": "client-note-1",
    }
    harness.outbox.enqueue_entity(note, external_id="client-note-1")
    emulator.faults.lose_response_after_commit(2)
    report = harness.engine.drain_outbox()
    assert report.ok, report.error
    matching = [e for e in _server_entities(emulator) if e.get("external_id") == "client-note-1"]
    assert len(matching) == 1
    (op,) = harness.outbox.list()
    assert op.state == "accepted"
    assert op.entity_id == matching[0]["id"]


def test_lost_url_save_responses_do_not_duplicate(
    library_emulator: Any, harness_factory: Any, small_library: dict[str, Any]
) -> None:
    emulator = library_emulator(small_library)
    harness = harness_factory(emulator.base_url, TEST_API_KEY)
    urls = [f"https://lost.example/{index}" for index in range(5)]
    for url in urls:
        harness.outbox.enqueue_url(url)
    emulator.faults.lose_response_after_commit(4)
    report = harness.engine.drain_outbox()
    assert report.ok, report.error
    saved = [e for e in _server_entities(emulator) if e.get("url") in set(urls)]
    assert len(saved) == 5
    assert len({e["url"] for e in saved}) == 5
    assert {op.state for op in harness.outbox.list()} == {"accepted"}
