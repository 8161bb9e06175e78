"""Notes being written and not saved yet, kept in ``drafts.json`` in the data folder.

A note editor keeps its text here a moment after every change and when the window closes, so
quitting (or a crash) never costs the words typed: the next editor on the same item or note
starts from them, and the window reopens them at start-up. A draft is forgotten once its note
is committed to the outbox or the person discards it. The draft keeps the note's client id,
so a note committed just before a crash and saved again from its draft is still one note.

The file is small JSON, rewritten whole through a temporary file (``os.replace``), never half
written. A damaged file is moved aside (its words may still be read by hand) and the app goes
on; a file written by a newer memex-desktop is left untouched and nothing is written over it.
Drafts hold only what the person typed and where it belongs: no key, no secret.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from memex_desktop import paths

log = logging.getLogger(__name__)

DRAFTS_FILE = "drafts.json"
DRAFTS_FORMAT = 1


def drafts_path(data_dir: Path) -> Path:
    """Where the drafts of this data folder are kept."""
    return data_dir / DRAFTS_FILE


def draft_key(target_id: str, passage_quote: str = "") -> str:
    """What a draft is found by: the item or note it answers, and the passage it is on."""
    return f"{target_id}\n{passage_quote}" if passage_quote else target_id


@dataclass(frozen=True)
class DraftPassage:
    """The passage a note is written on (it is highlighted when the note is saved)."""

    quote: str
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class DraftReference:
    """An item the draft references: the marker's label, its id (None while only queued)."""

    entity_id: str | None
    label: str
    url: str | None = None


@dataclass(frozen=True)
class Draft:
    """A note not saved yet: its text, what it is on, and the client id its save will carry.

    ``item_id`` is the item whose notes were shown when it was begun (the target itself for a
    note on an item, the item of the thread for a reply); ``label`` says what it is on.
    """

    target_id: str
    text: str
    external_id: str
    item_id: str = ""
    is_reply: bool = False
    label: str = ""
    passage: DraftPassage | None = None
    references: tuple[DraftReference, ...] = ()
    saved_at: float = 0.0

    @property
    def key(self) -> str:
        """The key this draft is kept under."""
        return draft_key(self.target_id, self.passage.quote if self.passage else "")


class DraftsTooNewError(Exception):
    """The drafts file was written by a newer memex-desktop; it is left untouched."""


def _draft_from(value: Any) -> Draft | None:
    """A draft read from the file, or None when the entry is not one (it is skipped)."""
    if not isinstance(value, dict):
        return None
    target_id, text = value.get("target_id"), value.get("text")
    external_id = value.get("external_id")
    if not (isinstance(target_id, str) and isinstance(text, str) and isinstance(external_id, str)):
        return None
    if not target_id or not external_id:
        return None
    passage = value.get("passage")
    quote = passage.get("quote") if isinstance(passage, dict) else None
    saved_at = value.get("saved_at")
    return Draft(
        target_id=target_id,
        text=text,
        external_id=external_id,
        item_id=str(value.get("item_id") or ""),
        is_reply=value.get("is_reply") is True,
        label=str(value.get("label") or ""),
        passage=(
            DraftPassage(quote, str(passage.get("prefix") or ""), str(passage.get("suffix") or ""))
            if isinstance(passage, dict) and isinstance(quote, str) and quote
            else None
        ),
        references=tuple(_references_from(value.get("references"))),
        saved_at=float(saved_at) if isinstance(saved_at, int | float) else 0.0,
    )


def _references_from(value: Any) -> list[DraftReference]:
    """The references of a draft read from the file (entries that are not one are skipped)."""
    found = []
    for entry in value if isinstance(value, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("label"), str):
            continue
        entity_id, url = entry.get("entity_id"), entry.get("url")
        found.append(
            DraftReference(
                entity_id if isinstance(entity_id, str) else None,
                entry["label"],
                url if isinstance(url, str) else None,
            )
        )
    return found


class DraftStore:
    """The drafts of one data folder; every call reads and rewrites the file under one lock.

    Safe to use from the GUI thread and from a worker (a note's commit forgets its draft).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._told_too_new = False

    def all(self) -> list[Draft]:
        """Every draft kept, oldest first (none when the file is missing, damaged or newer)."""
        with self._lock:
            try:
                drafts = self._read()
            except DraftsTooNewError:
                return []
            except OSError as exc:
                log.error("the drafts in %s could not be read: %s", self.path, exc)
                return []
        return sorted(drafts.values(), key=lambda draft: (draft.saved_at, draft.key))

    def get(self, key: str) -> Draft | None:
        """The draft kept under ``key``, if any."""
        return next((draft for draft in self.all() if draft.key == key), None)

    def keep(self, draft: Draft) -> bool:
        """Keep ``draft``, stamped now, in place of the one under its key; False when the file
        was written by a newer version (nothing is written then).

        Raises:
            OSError: the file could not be written (disk full, no permission).
        """
        kept = replace(draft, saved_at=time.time())
        with self._lock:
            try:
                drafts = self._read()
            except DraftsTooNewError:
                return False
            drafts[kept.key] = kept
            self._write(drafts)
        return True

    def forget(self, key: str) -> None:
        """Forget the draft under ``key`` (its note is queued, or was discarded).

        Raises:
            OSError: the file could not be written.
        """
        with self._lock:
            try:
                drafts = self._read()
            except DraftsTooNewError:
                return
            if drafts.pop(key, None) is not None:
                self._write(drafts)

    def _read(self) -> dict[str, Draft]:
        """The drafts on disk by key; a damaged file is moved aside and counts as empty.

        Raises:
            DraftsTooNewError: a newer version wrote the file.
            OSError: the file is there but cannot be read.
        """
        try:
            content = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(content.decode("utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("drafts"), list):
                raise ValueError("not a drafts file")
            version = data.get("format")
            if not isinstance(version, int):
                raise ValueError("no format number")
        except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
            self._set_aside(exc)
            return {}
        if version > DRAFTS_FORMAT:
            if self._told_too_new:
                raise DraftsTooNewError(str(self.path))
            self._told_too_new = True
            log.error(
                "%s was written by a newer memex-desktop (format %d, this one reads %d): "
                "it is left untouched and no draft is kept until memex-desktop is updated",
                self.path,
                version,
                DRAFTS_FORMAT,
            )
            raise DraftsTooNewError(str(self.path))
        drafts = [_draft_from(value) for value in data["drafts"]]
        skipped = drafts.count(None)
        if skipped:
            log.warning("%s: %d unreadable draft(s) skipped", self.path, skipped)
        return {draft.key: draft for draft in drafts if draft is not None}

    def _set_aside(self, problem: Exception) -> None:
        """Move a damaged file aside (what it holds may still be read by hand) and say so."""
        aside = paths.aside_path(self.path, "damaged")
        try:
            self.path.replace(aside)
        except OSError as exc:
            log.error(
                "%s is damaged (%s) and could not be moved aside: %s", self.path, problem, exc
            )
            return
        log.error(
            "%s is damaged (%s): moved aside to %s; drafts start afresh", self.path, problem, aside
        )

    def _write(self, drafts: dict[str, Draft]) -> None:
        """Rewrite the file (or remove it when no draft is left)."""
        if not drafts:
            self.path.unlink(missing_ok=True)
            return
        ordered = sorted(drafts.values(), key=lambda draft: (draft.saved_at, draft.key))
        data = {"format": DRAFTS_FORMAT, "drafts": [_fields(draft) for draft in ordered]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        paths.write_text_atomically(self.path, json.dumps(data, ensure_ascii=False, indent=1))


def _fields(draft: Draft) -> dict[str, Any]:
    """A draft as the plain values the file holds."""
    return asdict(draft)
