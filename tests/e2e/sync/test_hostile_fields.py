"""Acceptance: one wrong value in a page never stops a sync, costs another item or a deletion.

The real engine syncs from the real emulator over loopback; every ``/search`` answer is
rewritten on its way out (``Faults.rewrite_body``) the way a hostile or buggy server would
send it: one field of one entity (or of the page) replaced by a value of the wrong kind, or
text that is not valid Unicode.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.emulator import make_config, small_library
from support.secrets import TEST_API_KEY
from support.sync_env import SyncHarness

from memex_desktop import paths
from memex_desktop.api.identity import CANONICAL_ID_KEYS
from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.config import PROFILES
from memex_desktop.render.entities import render_entity
from memex_desktop.sync import SyncOutcome

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hostile"
MISSING = object()  # the field left out altogether
HOSTILE_VALUES: dict[str, Any] = {
    "null": None,
    "int": 7,
    "huge int 2**63": 2**63,
    "huge int 2**70": 2**70,
    "huge negative int": -(2**63) - 1,
    "integer past float": 10**400,
    "float": 2.5,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
    "string": "not what this field holds",
    "list": [1, "two", None, {"id": 3}],
    "dict": {"id": 5, "type": [], "annotations": 4},
    "bool": True,
    "missing": MISSING,
}
# Fields every layer walks, named here because an entity may not carry them yet.
STRUCTURAL_FIELDS = (
    "id", "type", "created_at", "updated_at", "tag_ids", "reference_content_ids",
    "annotations", "references", "resolvedReferences", "metadata", "content", "messages",
    "transcript", "summary", "url", "title", "text",
)  # fmt: skip
PAGE_FIELDS = ("extraEntities", "referencesByResultId", "referencedEntities", "referencedTags",
               "meta")  # fmt: skip
LIBRARY = small_library()
IDS = [entity["id"] for entity in LIBRARY["results"]]
FIELDS_OF = {
    entity["id"]: sorted(set(entity) | set(STRUCTURAL_FIELDS)) for entity in LIBRARY["results"]
}
ENTITY_CASES = st.sampled_from(IDS).flatmap(
    lambda entity_id: st.tuples(
        st.just(entity_id),
        st.sampled_from(FIELDS_OF[entity_id]),
        st.sampled_from(sorted(HOSTILE_VALUES)),
    )
)
PAGE_CASES = st.tuples(st.sampled_from(PAGE_FIELDS), st.sampled_from(sorted(HOSTILE_VALUES)))


def _replaced(container: dict[str, Any], key: str, value: Any) -> None:
    """Put ``value`` under ``key`` (or take the key out for MISSING)."""
    if value is MISSING:
        container.pop(key, None)
    else:
        container[key] = value


def _entity_field_rewrite(entity_id: str, key: str, value: Any) -> Callable[[bytes], bytes]:
    """A rewrite of /search answers replacing one field of one result."""

    def rewrite(body: bytes) -> bytes:
        page = json.loads(body)
        for entity in page.get("results", []):
            if isinstance(entity, dict) and entity.get("id") == entity_id:
                _replaced(entity, key, value)
        # allow_nan (the default) writes NaN and Infinity as JavaScript does.
        return json.dumps(page).encode()

    return rewrite


def _page_field_rewrite(key: str, value: Any) -> Callable[[bytes], bytes]:
    """A rewrite of /search answers replacing one field of the page itself."""

    def rewrite(body: bytes) -> bytes:
        page = json.loads(body)
        if page.get("results"):  # the empty last page stays what ends the pass
            _replaced(page, key, value)
        return json.dumps(page).encode()

    return rewrite


@dataclass(frozen=True)
class Served:
    """An emulator of one profile and the ids a clean sync from it caches."""

    emulator: RunningEmulator
    ids: frozenset[str]


@contextmanager
def _library_emulators() -> Iterator[dict[str, Served]]:
    """The small library served on loopback by one emulator per profile (the first-party
    one pages by time, so hostile times meet another path), for all examples of a test."""
    with ExitStack() as stack:
        served = {}
        for profile in PROFILES:
            running = stack.enter_context(RunningEmulator(make_config(LIBRARY, profile=profile)))
            clean, _deleted = _sync_twice(running, lambda body: body)
            served[profile] = Served(running, frozenset(clean))
        yield served


def _sync_twice(
    running: RunningEmulator, rewrite: Callable[[bytes], bytes]
) -> tuple[set[str], int]:
    """(ids cached, how many marked deleted) after two full passes into a fresh cache with
    every /search answer rewritten (two: an item is only marked deleted when missing from
    two consecutive complete passes)."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as folder:
        harness = SyncHarness(Path(folder), running.base_url, TEST_API_KEY)
        running.faults.rewrite_body(rewrite, count=10_000, paths=["/search"])
        try:
            for _ in range(2):
                report = harness.engine.run(full=True)
                assert report.outcome is SyncOutcome.OK, report.error
        finally:
            running.faults.clear()
            harness.close()
        cache = sqlite3.connect(paths.cache_db_path(Path(folder)))
        try:
            cached = {row[0] for row in cache.execute("SELECT id FROM entities")}
            deleted = cache.execute(
                "SELECT count(*) FROM entities WHERE deleted_upstream_at IS NOT NULL"
            ).fetchone()[0]
        finally:
            cache.close()
    return cached, deleted


def _check_entity_case(served: Served, entity_id: str, key: str, name: str) -> None:
    """The sync succeeds, every item is cached, none is marked deleted."""
    rewrite = _entity_field_rewrite(entity_id, key, HOSTILE_VALUES[name])
    cached, deleted = _sync_twice(served.emulator, rewrite)
    others = served.ids - {entity_id}
    assert others <= cached, f"{key}={name} of {entity_id} cost {others - cached}"
    if key not in CANONICAL_ID_KEYS and entity_id in served.ids:
        assert entity_id in cached, f"{key}={name} lost the item itself"
    assert deleted == 0


def _check_page_case(served: Served, key: str, name: str) -> None:
    """A page field of the wrong kind costs no result and marks nothing deleted."""
    cached, deleted = _sync_twice(served.emulator, _page_field_rewrite(key, HOSTILE_VALUES[name]))
    assert served.ids <= cached, f"{key}={name} cost {served.ids - cached}"
    assert deleted == 0


def _fuzz(entity_examples: int, page_examples: int) -> None:
    """Run hostile entity fields and page fields (that many of each) against one emulator."""

    def fuzz_settings(examples: int) -> settings:
        return settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        )

    with _library_emulators() as running:

        @fuzz_settings(entity_examples)
        @given(st.sampled_from(PROFILES), ENTITY_CASES)
        def entity_fields(profile: str, case: tuple[str, str, str]) -> None:
            _check_entity_case(running[profile], *case)

        @fuzz_settings(page_examples)
        @given(st.sampled_from(PROFILES), PAGE_CASES)
        def page_fields(profile: str, case: tuple[str, str]) -> None:
            _check_page_case(running[profile], *case)

        entity_fields()
        page_fields()


def test_hostile_fields_never_stop_a_sync() -> None:
    # Each example is two full syncs into a fresh cache (about 0.7 s): bounded here.
    _fuzz(60, 15)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_hostile_fields_never_stop_a_sync_many_times() -> None:
    # 2,000 of the 10,470 entity cases (profile, item, field, value) at about 0.7 s each;
    # the page cases end when all 150 have been tried.
    _fuzz(2_000, 10_000)


@pytest.mark.parametrize(
    ("key", "name"),
    [("annotations", "int"), ("tag_ids", "int"), ("reference_content_ids", "int"),
     ("references", "int"), ("resolvedReferences", "int"), ("created_at", "huge int 2**63"),
     ("created_at", "NaN"), ("updated_at", "Infinity"), ("id", "int"), ("type", "list")],
)  # fmt: skip
def test_the_reported_fields_sync(key: str, name: str) -> None:
    """The cases that ended every sync in a traceback, on a note and on a web page."""
    with _library_emulators() as running:
        for profile in PROFILES:
            for entity_id in ("web-1", "note-1"):
                _check_entity_case(running[profile], entity_id, key, name)


# Markers put into the library's strings, turned into broken text on the wire: a lone high
# surrogate escape (a string JavaScript cut mid-emoji), a lone low one, bytes that are not
# UTF-8. Each becomes one U+FFFD.
BROKEN_TEXT = {
    b"@@HIGH@@": b"\\ud83d",
    b"@@LOW@@": b"\\udc00",
    b"@@BYTES@@": b"\xff",
}
BROKEN_PLACES = {
    # id -> field whose text carries every marker
    "web-1": "title",
    "note-1": "text",
    "tweet-1": "text",
    "yt-1": "description",
}


def _broken_text_library() -> dict[str, Any]:
    """The small library with every broken-text marker in several strings of several types."""
    library = small_library()
    for entity in library["results"]:
        key = BROKEN_PLACES.get(entity["id"])
        if key is not None:
            entity[key] = f"{entity[key]} @@HIGH@@ then @@LOW@@ then @@BYTES@@ end"
            entity["note_@@HIGH@@"] = "a key with a cut emoji"
    return library


def _broken_text_rewrite(body: bytes) -> bytes:
    """Every marker as the broken text it stands for."""
    for marker, broken in BROKEN_TEXT.items():
        body = body.replace(marker, broken)
    return body


def test_text_that_is_not_unicode_syncs_as_replacement_characters(
    emulator_factory: Any, tmp_path: Path
) -> None:
    running = emulator_factory(library=_broken_text_library())
    running.faults.rewrite_body(_broken_text_rewrite, count=10_000, paths=["/search"])
    harness = SyncHarness(tmp_path / "data", running.base_url, TEST_API_KEY)
    try:
        report = harness.engine.run(full=True)
        assert report.outcome is SyncOutcome.OK, report.error
        harness.flush()
        assert set(IDS) <= set(harness.reader.all_ids())
        for entity_id, key in BROKEN_PLACES.items():
            raw = harness.reader.raw_json(entity_id)
            assert raw is not None
            assert raw[key].endswith(" \ufffd then \ufffd then \ufffd end"), raw[key]
            assert "note_\ufffd" in raw
            entity = harness.reader.entity(entity_id)
            assert entity is not None
            shown = render_entity(entity).text
            assert "\ufffd then \ufffd then \ufffd" in shown
        row = harness.reader.get("web-1")
        assert row is not None
        assert "\ufffd" in row.title
        assert harness.reader.search_ids("then end")  # the repaired text is searchable
    finally:
        harness.close()


def _saved_entity_rewrite(key: str, value: Any) -> Callable[[bytes], bytes]:
    """A rewrite of save answers replacing one field of the saved entity."""

    def rewrite(body: bytes) -> bytes:
        answer = json.loads(body)
        if isinstance(answer.get("entity"), dict):
            _replaced(answer["entity"], key, value)
        return json.dumps(answer).encode()

    return rewrite


@pytest.mark.parametrize(
    ("key", "name"),
    [("annotations", "int"), ("references", "dict"), ("tag_ids", "int"),
     ("created_at", "huge int 2**70"), ("updated_at", "NaN"), ("title", "Infinity"),
     ("metadata", "list")],
)  # fmt: skip
def test_a_save_answer_with_a_hostile_field_is_accepted(
    key: str, name: str, emulator_factory: Any, tmp_path: Path
) -> None:
    running = emulator_factory()
    rewrite = _saved_entity_rewrite(key, HOSTILE_VALUES[name])
    answered: list[bytes] = []

    def counted(body: bytes) -> bytes:
        answered.append(body)
        return rewrite(body)

    running.faults.rewrite_body(counted, count=10_000, paths=["/save-content-by-url"])
    harness = SyncHarness(tmp_path / "data", running.base_url, TEST_API_KEY)
    try:
        harness.outbox.enqueue_url("https://hostile.example/saved")
        report = harness.engine.drain_outbox()
        assert report.outcome is SyncOutcome.OK, report.error
        assert report.sent == 1
        assert [op.state for op in harness.outbox.list()] == ["accepted"]
        assert len(answered) == 1  # one save request, never re-sent
    finally:
        harness.close()


# No other item references it, so the page holds no other copy of it.
UNREADABLE_TARGET = "pdf-1"


def _unreadable_items_rewrite(body: bytes) -> bytes:
    """pdf-1 with a type that is no type, and on its page two results that are no entities."""
    page = json.loads(body)
    results = page.get("results") or []
    for entity in results:
        if entity.get("id") == UNREADABLE_TARGET:
            entity["type"] = ["pdf"]
            results += [["a", "list", "not", "an", "entity"], {"title": "no id at all"}]
            break
    return json.dumps(page).encode()


def test_an_unreadable_item_is_kept_raw_and_shown_as_unreadable(
    emulator_factory: Any, tmp_path: Path
) -> None:
    running = emulator_factory()
    harness = SyncHarness(tmp_path / "data", running.base_url, TEST_API_KEY)
    try:
        running.faults.rewrite_body(_unreadable_items_rewrite, count=10_000, paths=["/search"])
        report = harness.engine.run(full=True)
        assert report.outcome is SyncOutcome.OK, report.error
        assert set(IDS) <= set(harness.reader.all_ids())

        item = harness.reader.entity(UNREADABLE_TARGET)
        assert item is not None
        shown = render_entity(item).text
        assert "This item could not be read" in shown
        assert "id pdf-1" in shown
        assert '"title": "' + LIBRARY["results"][IDS.index(UNREADABLE_TARGET)]["title"] in shown

        stand_ins = [
            entity_id for entity_id in harness.reader.all_ids() if entity_id not in set(IDS)
        ]
        assert len(stand_ins) == 2
        texts = []
        for entity_id in stand_ins:
            row = harness.reader.get(entity_id)
            assert row is not None
            assert row.title.startswith("This item could not be read (id unreadable-")
            entity = harness.reader.entity(entity_id)
            assert entity is not None
            texts.append(render_entity(entity).text)
        assert any('"not",' in text for text in texts)
        assert any('"title": "no id at all"' in text for text in texts)

        # Once the server sends the item readably again, it is read.
        running.faults.clear()
        assert harness.engine.run(full=True).outcome is SyncOutcome.OK
        item = harness.reader.entity(UNREADABLE_TARGET)
        assert item is not None
        assert item.type == "pdf"
        assert "could not be read" not in render_entity(item).text
    finally:
        harness.close()


def test_an_unreadable_copy_never_replaces_a_readable_one(
    emulator_factory: Any, tmp_path: Path
) -> None:
    running = emulator_factory()
    harness = SyncHarness(tmp_path / "data", running.base_url, TEST_API_KEY)
    try:
        assert harness.engine.run(full=True).outcome is SyncOutcome.OK
        running.faults.rewrite_body(_unreadable_items_rewrite, count=10_000, paths=["/search"])
        for _ in range(2):
            assert harness.engine.run(full=True).outcome is SyncOutcome.OK
        item = harness.reader.entity(UNREADABLE_TARGET)
        assert item is not None
        assert item.type == "pdf"
        assert not harness.reader.deleted_upstream()
    finally:
        harness.close()
