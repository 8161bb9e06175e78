"""Importing a library in JSON Lines: one item per line, read as a stream.

The format is the one ``memex-desktop emulator --library`` serves: a first line with the
library's tags, views and feeds (``referencedTags``, ``views``, ``feeds``, optionally
``deletedUpstream``), then one ``{"entity": {...}, "references": {...}}`` per line. A line
may also be an item on its own (an object with an ``id``), and the first line may be an item
too. A library of a million items is gigabytes of JSON, so it is read a line at a time and
written a batch at a time: memory holds one batch. A line that cannot be read (not JSON, no
item in it, an item that does not fit) is skipped and named by its number; the rest is
imported.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from memex_desktop.api.models import Feed, SearchRawResponse, View
from memex_desktop.store import StoreWriter
from memex_desktop.sync.export import write_library_lists

# File names read as JSON Lines without looking inside.
LINES_SUFFIXES = (".jsonl", ".ndjson")
# Items written to the cache at a time.
IMPORT_BATCH = 500
# How much of a first line is read to tell JSON Lines from one JSON document.
_SNIFF_BYTES = 1 << 20
_BOM = b"\xef\xbb\xbf"
# Line numbers of unreadable lines kept for the message (the count is always exact).
_NAMED_LINES = 1000

# What a path that is neither a folder nor a regular file is, in words.
_SPECIAL_FILES: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)
# Told the number of items imported so far, now and then.
ImportProgress = Callable[[int], None]


@dataclass
class LinesImport:
    """What an import of JSON Lines did: items imported, and the lines it skipped."""

    imported: int = 0
    skipped: int = 0
    skipped_lines: list[int] = field(default_factory=list)  # the first _NAMED_LINES of them

    def skip(self, number: int) -> None:
        """Line ``number`` could not be read."""
        self.skipped += 1
        if len(self.skipped_lines) < _NAMED_LINES:
            self.skipped_lines.append(number)


def file_problem(path: Path) -> str | None:
    """What keeps ``path`` from being read as a library file, in words naming it (None when
    it is a regular file with something in it). A missing file is for the caller to say."""
    kind = path.stat().st_mode
    if stat.S_ISDIR(kind):
        return f"{path} is a folder, not a file"
    if not stat.S_ISREG(kind):
        what = next((name for test, name in _SPECIAL_FILES if test(kind)), "a special file")
        return f"{path} is {what}, not a library file"
    size = path.stat().st_size
    if size == 0:
        return f"{path} is empty (0 bytes)"
    if size <= _SNIFF_BYTES:
        with path.open("rb") as handle:
            if not handle.read().removeprefix(_BOM).strip():
                return f"{path} holds only blank lines"
    return None


def is_library_lines(path: Path) -> bool:
    """Whether ``path`` holds a library in JSON Lines: by its name (``.jsonl``, ``.ndjson``),
    or by its first line being a whole JSON object that is not a library of its own.

    A JSON library opens an object on its first line that closes lines later, or holds
    its ``results`` on that one line; a JSON Lines library's first line is complete.
    """
    if path.suffix.lower() in LINES_SUFFIXES:
        return True
    with path.open("rb") as handle:
        first = handle.readline(_SNIFF_BYTES)
        if len(first) == _SNIFF_BYTES and not first.endswith(b"\n"):
            return False  # longer than looked at: one JSON document written on one line
    try:
        value = json.loads(first.removeprefix(_BOM))
    except ValueError:
        return False
    return isinstance(value, dict) and "results" not in value


def import_library_lines(
    writer: StoreWriter, path: Path, progress: ImportProgress | None = None
) -> LinesImport:
    """Load a library in JSON Lines into the cache, a batch at a time.

    Raises:
        OSError: the file cannot be read.
    """
    report = LinesImport()
    batch: list[tuple[int, dict[str, Any], Any]] = []
    views: list[View] = []
    feeds: list[Feed] = []
    deleted: list[str] = []
    first = True
    with path.open("rb") as handle:  # bytes: a line that is not UTF-8 is one unreadable line
        for number, raw in enumerate(handle, start=1):
            line = raw.removeprefix(_BOM) if number == 1 else raw
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                report.skip(number)
                first = False
                continue
            if first and isinstance(record, dict) and _is_header(record):
                first = False
                if not _take_header(writer, record, views, feeds, deleted):
                    report.skip(number)
                continue
            first = False
            item = _item(record)
            if item is None:
                report.skip(number)
                continue
            batch.append((number, *item))
            if len(batch) >= IMPORT_BATCH:
                _ingest(writer, batch, report)
                batch = []
                if progress is not None:
                    progress(report.imported)
    if batch:
        _ingest(writer, batch, report)
    write_library_lists(writer, views, feeds, deleted)
    return report


def _is_header(record: dict[str, Any]) -> bool:
    """Whether a first line is the library's tags, views and feeds rather than an item."""
    return "entity" not in record and "id" not in record


def _take_header(
    writer: StoreWriter,
    record: dict[str, Any],
    views: list[View],
    feeds: list[Feed],
    deleted: list[str],
) -> bool:
    """Write the tags of a first line and keep its views, feeds and deleted ids for the end
    (so they can name the items); False when it cannot be read."""
    try:
        tags = SearchRawResponse.model_validate(
            {"referencedTags": _listed(record, "referencedTags")}
        )
        views.extend(View.model_validate(view) for view in _listed(record, "views"))
        feeds.extend(Feed.model_validate(feed) for feed in _listed(record, "feeds"))
        deleted.extend(str(item) for item in _listed(record, "deletedUpstream"))
    except (ValidationError, ValueError):
        return False
    if tags.referenced_tags:
        writer.ingest_search_page(tags).result()
    return True


def _listed(record: dict[str, Any], key: str) -> list[Any]:
    """``record[key]`` as a list (none: empty); ValueError when it is something else."""
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{key} is not a list")
    return value


def _item(record: Any) -> tuple[dict[str, Any], Any] | None:
    """The item of a line and its references (None when the line holds no item)."""
    if not isinstance(record, dict):
        return None
    if "entity" in record:
        entity, references = record["entity"], record.get("references")
    else:
        entity, references = record, None
    if not isinstance(entity, dict) or not isinstance(entity.get("id"), str) or not entity["id"]:
        return None
    return entity, references


def _page(items: list[tuple[int, dict[str, Any], Any]]) -> SearchRawResponse:
    """The items of a batch as one search page (ValidationError when one does not fit)."""
    return SearchRawResponse.model_validate(
        {
            "results": [entity for _number, entity, _refs in items],
            "referencesByResultId": {
                entity["id"]: refs for _number, entity, refs in items if refs is not None
            },
        }
    )


def _ingest(
    writer: StoreWriter, batch: list[tuple[int, dict[str, Any], Any]], report: LinesImport
) -> None:
    """Write a batch; when one of its lines does not fit, find it, skip it, write the rest."""
    try:
        page = _page(batch)
    except ValidationError:
        fitting = []
        for line in batch:
            try:
                _page([line])
            except ValidationError:
                report.skip(line[0])
            else:
                fitting.append(line)
        if not fitting:
            return
        page = _page(fitting)
    writer.ingest_search_page(page).result()
    report.imported += len(page.results)
