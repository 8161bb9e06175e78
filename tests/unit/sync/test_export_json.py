"""The JSON export is written item by item: the same library file, progress as it goes, and
the file appears only whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.sync import export
from memex_desktop.sync.export import (
    EXPORT_FILE_NAME,
    build_export,
    export_json,
    import_json,
    render_for_cli,
)


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(120, seed=21, words_per_entity=30)


@pytest.fixture
def cache(tmp_path: Path, library: dict[str, Any]) -> Path:
    path = tmp_path / "cache.db"
    with StoreWriter(path) as writer:
        writer.ingest_json(library["results"], tags=library["referencedTags"]).result()
    return path


def test_the_file_is_the_library_and_imports_back(cache: Path, tmp_path: Path) -> None:
    heard: list[tuple[int, int]] = []
    with CacheReader(cache) as reader:
        path = export_json(reader, tmp_path / "out", lambda *step: heard.append(step))
        whole = build_export(reader)
        ids = reader.all_ids()
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == whole
    assert sorted(item["id"] for item in written["results"]) == sorted(ids)
    assert written["meta"]["returnedCount"] == len(written["results"])
    assert written["referencesByResultId"]
    assert written["highlightsByResultId"]
    assert heard[0] == (0, len(ids))
    assert heard[-1] == (len(ids), len(ids))
    assert [done for done, _ in heard] == sorted(done for done, _ in heard)
    with StoreWriter(tmp_path / "copy.db") as writer:
        assert import_json(writer, path) == len(ids)
    with CacheReader(tmp_path / "copy.db") as copy:
        assert build_export(copy)["results"] == whole["results"]


def test_an_export_stopped_midway_leaves_the_earlier_file_whole(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "out"
    with CacheReader(cache) as reader:
        earlier = export_json(reader, folder).read_text(encoding="utf-8")
        monkeypatch.setattr(export, "PROGRESS_EVERY", 10)

        def stopped(done: int, _total: int) -> None:
            if done >= 50:
                raise KeyboardInterrupt  # Ctrl+C halfway through

        with pytest.raises(KeyboardInterrupt):
            export_json(reader, folder, stopped)
    assert (folder / EXPORT_FILE_NAME).read_text(encoding="utf-8") == earlier
    assert [p.name for p in folder.iterdir()] == [EXPORT_FILE_NAME]  # no half file beside it


def test_an_item_names_its_tags_without_counting_every_tag(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with CacheReader(cache) as reader:
        entities = (reader.entity(entity_id) for entity_id in reader.all_ids())
        tagged = next(entity for entity in entities if entity is not None and entity.tag_ids)

        def counted(*_args: object, **_kwargs: object) -> None:
            pytest.fail("every tag was counted to name one")

        monkeypatch.setattr(reader, "tags", counted)
        text = render_for_cli(tagged, reader, "text")
        names = reader.tag_names(tagged.tag_ids or [])
    assert names
    assert all(name in text for name in names.values())
