"""Drafts of notes not saved yet: kept whole in drafts.json, read back, damage survived."""

from __future__ import annotations

import errno
import json
import logging
import os
import threading
from pathlib import Path

import pytest

from memex_desktop.drafts import (
    DRAFTS_FORMAT,
    Draft,
    DraftPassage,
    DraftReference,
    DraftStore,
    draft_key,
    drafts_path,
)


def _draft(target: str = "page", text: str = "Bees visit lavender first.") -> Draft:
    return Draft(
        target_id=target,
        text=text,
        external_id=f"ext-{target}",
        item_id="page",
        is_reply=target != "page",
        label="Gardening with bees",
        references=(DraftReference("other", "Other page"), DraftReference(None, "u", "https://u")),
    )


def test_a_kept_draft_is_read_back_by_another_store(tmp_path: Path) -> None:
    draft = _draft()
    assert DraftStore(drafts_path(tmp_path)).keep(draft)
    [read] = DraftStore(drafts_path(tmp_path)).all()
    assert read.text == draft.text
    assert read.external_id == "ext-page"
    assert read.references == draft.references
    assert (read.item_id, read.is_reply, read.label) == ("page", False, "Gardening with bees")
    assert read.saved_at > 0


def test_drafts_are_kept_per_target_and_passage(tmp_path: Path) -> None:
    store = DraftStore(drafts_path(tmp_path))
    on_passage = Draft("page", "On the passage", "ext-2", passage=DraftPassage("lavender", "Bees "))
    store.keep(_draft())
    store.keep(_draft("note-1", "A reply"))
    store.keep(on_passage)
    store.keep(_draft(text="Bees visit lavender first, then thyme."))
    assert len(store.all()) == 3
    found = store.get(draft_key("page"))
    assert found is not None
    assert found.text == "Bees visit lavender first, then thyme."
    kept_passage = store.get(draft_key("page", "lavender"))
    assert kept_passage is not None
    assert kept_passage.passage == DraftPassage("lavender", "Bees ", "")


def test_forgetting_the_last_draft_removes_the_file(tmp_path: Path) -> None:
    store = DraftStore(drafts_path(tmp_path))
    store.keep(_draft())
    store.keep(_draft("note-1"))
    store.forget(draft_key("page"))
    assert [draft.target_id for draft in store.all()] == ["note-1"]
    store.forget(draft_key("note-1"))
    store.forget(draft_key("never-kept"))
    assert not drafts_path(tmp_path).exists()


def test_the_file_holds_no_secret_only_the_words_and_where_they_belong(tmp_path: Path) -> None:
    DraftStore(drafts_path(tmp_path)).keep(_draft())
    data = json.loads(drafts_path(tmp_path).read_text(encoding="utf-8"))
    assert data["format"] == DRAFTS_FORMAT
    assert set(data["drafts"][0]) == {
        "target_id",
        "text",
        "external_id",
        "item_id",
        "is_reply",
        "label",
        "passage",
        "references",
        "saved_at",
    }


def test_a_failed_write_leaves_the_previous_file_whole_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DraftStore(drafts_path(tmp_path))
    store.keep(_draft())
    before = drafts_path(tmp_path).read_bytes()

    def disk_full(_source: object, _target: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        store.keep(_draft(text="This one did not fit"))
    monkeypatch.undo()
    assert drafts_path(tmp_path).read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["drafts.json"]


def test_a_damaged_file_is_moved_aside_with_a_log_line_and_drafts_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = drafts_path(tmp_path)
    path.write_text('{"format": 1, "drafts": [{"target_id": "page", "te', encoding="utf-8")
    store = DraftStore(path)
    with caplog.at_level(logging.ERROR, logger="memex_desktop.drafts"):
        assert store.all() == []
    [line] = [record.getMessage() for record in caplog.records]
    assert "drafts.json is damaged" in line
    assert "moved aside" in line
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("drafts.json.damaged-")]
    assert '"te' in aside.read_text(encoding="utf-8")  # the words there can still be read
    assert store.keep(_draft())
    assert [draft.target_id for draft in store.all()] == ["page"]


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe not text", b"[1, 2]", b'{"format": "one", "drafts": []}', b'{"format": 1}'],
)
def test_whatever_is_not_a_drafts_file_counts_as_damaged(tmp_path: Path, content: bytes) -> None:
    drafts_path(tmp_path).write_bytes(content)
    assert DraftStore(drafts_path(tmp_path)).all() == []
    assert any(p.name.startswith("drafts.json.damaged-") for p in tmp_path.iterdir())


def test_an_entry_that_is_not_a_draft_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    good = {"target_id": "page", "text": "Kept", "external_id": "ext"}
    drafts_path(tmp_path).write_text(
        json.dumps({"format": 1, "drafts": [good, {"text": "no target"}, 7]}), encoding="utf-8"
    )
    [draft] = DraftStore(drafts_path(tmp_path)).all()
    assert (draft.target_id, draft.text, draft.passage, draft.references) == (
        "page",
        "Kept",
        None,
        (),
    )


def test_a_file_from_a_newer_version_is_left_untouched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = drafts_path(tmp_path)
    newer = json.dumps({"format": DRAFTS_FORMAT + 1, "drafts": [], "notes": {"x": "y"}})
    path.write_text(newer, encoding="utf-8")
    store = DraftStore(path)
    with caplog.at_level(logging.ERROR, logger="memex_desktop.drafts"):
        assert store.all() == []
        assert store.keep(_draft()) is False
        store.forget(draft_key("page"))
    assert path.read_text(encoding="utf-8") == newer
    [line] = [record.getMessage() for record in caplog.records]  # said once, not per call
    assert "newer memex-desktop" in line
    assert "left untouched" in line


def test_keeping_from_two_threads_loses_no_draft(tmp_path: Path) -> None:
    store = DraftStore(drafts_path(tmp_path))
    targets = [f"note-{n}" for n in range(20)]
    threads = [threading.Thread(target=store.keep, args=(_draft(t),)) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(draft.target_id for draft in store.all()) == sorted(targets)


def test_a_file_that_cannot_be_read_is_logged_and_nothing_is_restored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    drafts_path(tmp_path).mkdir()  # a folder where the file belongs: reading it fails
    store = DraftStore(drafts_path(tmp_path))
    with caplog.at_level(logging.ERROR, logger="memex_desktop.drafts"):
        assert store.all() == []
    assert "could not be read" in caplog.records[0].getMessage()
    with pytest.raises(IsADirectoryError):
        store.keep(_draft())
