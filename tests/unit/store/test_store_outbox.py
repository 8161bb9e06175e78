"""The durable outbox: normalization, dedupe, states, crash recovery, threads."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.open_files import CAN_COUNT, open_files_of

from memex_desktop.store import Outbox, StoreWriter, normalize_url
from memex_desktop.store.outbox import OUTBOX_SCHEMA_VERSION, OutboxFailure
from memex_desktop.store.urls import parse_and_normalize


def test_normalize_url_rules() -> None:
    assert (
        normalize_url("HTTPS://Example.COM:443/a/b/?utm_source=x&q=1#frag")
        == "https://example.com/a/b?q=1"
    )
    assert normalize_url("http://bücher.example:80/") == "http://xn--bcher-kva.example"
    for bad in ("", "ftp://x.org/a", "javascript:alert(1)", "not a url", "http://"):
        with pytest.raises(ValueError, match=r"\w"):
            normalize_url(bad)


@given(st.text(max_size=40), st.sampled_from(["http://", "https://", "HTTP://"]))
def test_normalize_url_is_idempotent(tail: str, scheme: str) -> None:
    try:
        once = normalize_url(f"{scheme}example.org/{tail}")
    except ValueError:
        return
    assert normalize_url(once) == once


@pytest.fixture
def outbox(tmp_path: Path) -> Outbox:
    box = Outbox(tmp_path / "outbox.db")
    yield box  # type: ignore[misc]
    box.close()


def test_same_url_twice_is_one_row(outbox: Outbox) -> None:
    first = outbox.enqueue_url("https://example.org/a?utm_medium=x")
    second = outbox.enqueue_url("https://EXAMPLE.org/a/#x")
    assert (first.status, second.status) == ("queued", "already_queued")
    assert len(outbox.list()) == 1
    assert outbox.pending_count() == 1


def test_states_and_crash_recovery(outbox: Outbox) -> None:
    op = outbox.enqueue_url("https://example.org/1").op
    assert op is not None
    claimed = outbox.claim_next()
    assert claimed is not None
    assert (claimed.state, claimed.attempts) == ("sending", 1)
    assert outbox.claim_next() is None
    assert outbox.recover_after_crash() == 1
    assert outbox.get(op.id).state == "queued"  # type: ignore[union-attr]
    claimed = outbox.claim_next()
    outbox.mark_failed_retryable(op.id, OutboxFailure("server_error", "503"), retry_at=10**13)
    waiting = outbox.get(op.id)
    assert waiting is not None
    assert (waiting.error_kind, waiting.reason) == ("server_error", "503")
    assert outbox.claim_next() is None  # not due yet
    outbox.retry(op.id)
    assert outbox.get(op.id).error_kind is None  # type: ignore[union-attr]
    outbox.claim_next()
    outbox.mark_accepted(op.id, "ent-1")
    assert outbox.enqueue_url("https://example.org/1").status == "already_saved"
    assert outbox.confirm_seen(["ent-1"], []) == 1
    assert outbox.get(op.id).state == "confirmed"  # type: ignore[union-attr]
    other = outbox.enqueue_url("https://example.org/2").op
    assert other is not None
    outbox.claim_next()
    outbox.mark_needs_attention(other.id, OutboxFailure("rejected", "400 invalid URL"))
    kept = outbox.get(other.id)
    assert kept is not None
    assert (kept.error_kind, kept.reason) == ("rejected", "400 invalid URL")


def test_pause_undo_and_entity_saves(outbox: Outbox) -> None:
    queued = outbox.enqueue_entity({"type": "annotation", "text": "hi"}, external_id="x1")
    assert outbox.enqueue_entity({}, external_id="x1").status == "already_queued"
    outbox.pause(OutboxFailure("insufficient_credits", "HTTP 402: no credits"))
    assert outbox.paused_reason() == OutboxFailure("insufficient_credits", "HTTP 402: no credits")
    assert outbox.claim_next() is None
    outbox.resume()
    assert queued.op is not None
    assert outbox.undo(queued.op.id).undone
    assert outbox.list() == []


_VERSION_1_OPS = """CREATE TABLE ops (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, url TEXT,
    normalized_url TEXT UNIQUE, external_id TEXT UNIQUE, payload TEXT, state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, reason TEXT, entity_id TEXT, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, next_attempt_at INTEGER NOT NULL)"""


def test_an_outbox_of_the_first_version_keeps_its_rows_and_gains_error_kinds(
    tmp_path: Path,
) -> None:
    path = tmp_path / "outbox.db"
    conn = sqlite3.connect(path)
    conn.execute(_VERSION_1_OPS)
    conn.execute("CREATE TABLE control (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        "INSERT INTO ops (kind, url, normalized_url, state, attempts, reason, created_at, "
        "updated_at, next_attempt_at) VALUES ('save_url', 'https://old.example/', "
        "'https://old.example', 'needs_attention', 1, 'ValidationError: POST /x: HTTP 400', "
        "1, 1, 1)"
    )
    conn.execute("INSERT INTO control VALUES ('paused', 'InsufficientCredits: HTTP 402')")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    box = Outbox(path)
    try:
        [old] = box.list()
        assert (old.url, old.state, old.error_kind) == (
            "https://old.example/",
            "needs_attention",
            None,
        )
        assert old.reason == "ValidationError: POST /x: HTTP 400"
        paused = box.paused_reason()
        assert paused is not None
        assert paused.kind == "insufficient_credits"
        box.mark_needs_attention(old.id, OutboxFailure("rejected", "HTTP 400: bad"))
        assert box.get(old.id).error_kind == "rejected"  # type: ignore[union-attr]
    finally:
        box.close()
    reopened = sqlite3.connect(path)
    try:
        assert reopened.execute("PRAGMA user_version").fetchone()[0] == OUTBOX_SCHEMA_VERSION == 2
    finally:
        reopened.close()


def test_already_in_cache_is_reported(tmp_path: Path) -> None:
    with StoreWriter(tmp_path / "cache.db") as writer:
        writer.ingest_json([{"id": "w", "type": "web", "url": "https://example.org/p/"}]).result()
    box = Outbox(tmp_path / "outbox.db")
    try:
        result = box.enqueue_url("http://example.org/p")
        assert (result.status, result.entity_id) == ("already_saved", "w")
        assert box.enqueue_url("https://x.org", known_in_cache=lambda url: "y").entity_id == "y"
    finally:
        box.close()


def test_concurrent_enqueue_from_two_threads(outbox: Outbox) -> None:
    errors: list[BaseException] = []

    def enqueue(offset: int) -> None:
        try:
            for index in range(100):
                outbox.enqueue_url(f"https://example.org/{(index + offset) % 150}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=enqueue, args=(n * 50,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(outbox.list()) == 150


def test_closing_while_other_threads_read_and_write_waits_for_them(tmp_path: Path) -> None:
    """The window closes its outbox while workers still list and enqueue: no crash, no loss."""
    outbox = Outbox(tmp_path / "outbox.db")
    errors: list[BaseException] = []
    stop = threading.Event()

    def work(offset: int) -> None:
        index = 0
        try:
            while not stop.is_set():
                outbox.enqueue_url(f"https://example.org/{offset}/{index}")
                outbox.list(states=["queued"])
                index += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        outbox.close()
    stop.set()
    for thread in threads:
        thread.join()
    outbox.close()
    assert errors == []
    with Outbox(tmp_path / "outbox.db") as reopened:
        assert len(reopened.list()) > 0


@pytest.mark.skipif(not CAN_COUNT, reason="reads /proc")
def test_threads_that_come_and_go_share_connections_instead_of_keeping_one_each(
    tmp_path: Path,
) -> None:
    """The GUI's workers lose their thread-local values after every task: an outbox read by a
    hundred short tasks keeps one connection, not a hundred."""
    outbox = Outbox(tmp_path / "outbox.db")
    outbox.enqueue_url("https://example.org/a")
    for _ in range(100):
        thread = threading.Thread(target=lambda: outbox.list(states=["queued"]))
        thread.start()
        thread.join()
    assert open_files_of(tmp_path / "outbox.db") <= 2
    outbox.close()
    assert open_files_of(tmp_path / "outbox.db") == 0


def test_a_read_inside_a_write_uses_the_writing_connection(outbox: Outbox) -> None:
    """A thread asking again while it holds a connection gets the same one: a second would
    wait for the first's write lock."""
    with outbox._write() as writing:
        writing.execute("INSERT INTO control (key, value) VALUES ('probe', '1')")
        with outbox._conn() as reading:
            assert reading is writing
            assert reading.execute("SELECT value FROM control WHERE key = 'probe'").fetchall()


_URL_PIECES = st.sampled_from(
    ["a", "Z", "0", "-", ".", "_", "~", "/", "?", "&", "=", "#", "%", "%2F", "+", ":", "@",
     "!", "$", "'", "(", ")", "*", ",", ";", " ", "é", "utm_x", "UTM_", "..", "//"]
)  # fmt: skip


@given(
    st.sampled_from(["http://", "https://", "HTTP://", "https://"]),
    st.sampled_from(["example.org", "Example.org", "a.b.c", "x", "a..b", "h.org.", "h:443", "h:8"]),
    st.lists(_URL_PIECES, max_size=12).map("".join),
)
def test_canonical_fast_path_agrees_with_parsing(scheme: str, host: str, tail: str) -> None:
    url = f"{scheme}{host}/{tail}" if tail else f"{scheme}{host}"
    try:
        expected: str | None = parse_and_normalize(url)
    except ValueError:
        expected = None
    try:
        got: str | None = normalize_url(url)
    except ValueError:
        got = None
    assert got == expected
