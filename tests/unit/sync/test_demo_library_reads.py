"""Every item of the bundled demo library reads as meant: no bookkeeping, no raw epochs, no
markdown syntax, tag names in the header, a highlight's note beside it.

The demo (resources/demo/library.json) is what a new person sees first; it holds every type
the app lays out, imported into a real cache and rendered as the command line shows it.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.sync.export import import_json, render_for_cli

DEMO = Path(__file__).resolve().parents[3] / "resources" / "demo" / "library.json"
EPOCH_MS = re.compile(r"(?<!\d)1\d{12}(?!\d)")
BOOKKEEPING = ("user_id", "tag_ids", "demo-user", "selector_type", "_selector", "mime_type")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("demo") / "cache.db"
    writer = StoreWriter(path)
    import_json(writer, DEMO)
    reader = CacheReader(path)
    yield reader
    reader.close()
    writer.close()


def test_the_demo_has_every_type_the_reader_lays_out(demo: CacheReader) -> None:
    kinds = Counter(demo.counts_by_type())
    assert {"pdf", "book", "audioRecording", "selector", "image", "chatThread"} <= set(kinds)


def test_no_demo_item_shows_bookkeeping_raw_epochs_or_markdown_syntax(demo: CacheReader) -> None:
    problems: dict[str, list[str]] = {}
    for entity_id in demo.all_ids():
        entity = demo.entity(entity_id)
        assert entity is not None
        text = render_for_cli(entity, demo, "text")
        found = [word for word in BOOKKEEPING if word in text]
        found += EPOCH_MS.findall(text)
        found += [line for line in text.splitlines() if line.lstrip().startswith("#")]
        found += re.findall(r"\btag-[a-z-]+", text)
        if found:
            problems[entity_id] = found
    assert not problems


def test_every_tagged_demo_item_names_its_tags(demo: CacheReader) -> None:
    names = {tag.id: tag.name for tag in demo.tags()}
    for entity_id in demo.all_ids():
        entity = demo.entity(entity_id)
        assert entity is not None
        if entity.tag_ids:
            text = render_for_cli(entity, demo, "text")
            # Two tags of one name (the demo has two "favourites") are named once.
            shown = dict.fromkeys(names[tag] for tag in entity.tag_ids)
            assert "Tags: " + ", ".join(shown) in text


def test_the_demo_types_read_as_their_kind(demo: CacheReader) -> None:
    def shown(entity_id: str) -> str:
        entity = demo.entity(entity_id)
        assert entity is not None
        return render_for_cli(entity, demo, "text")

    pdf = shown("pdf-urban-soil")
    assert "PDF · by K. Asante, R. Delgado · 22 pages · published 20 Jan 2025" in pdf
    assert "\nKey results\n" in pdf
    assert "Audio recording · 6 min 52 s" in shown("audioRecording-garden-meeting")
    assert "ISBN 9780000000017" in shown("book-patient-gardener")
    video = shown("selector-network-optimisation")
    assert (
        "From The Network Is an Optimisation: Building Local-First Apps [Video] at 03:37–03:43"
        in video
    )
    quote = shown("selector-effort-is-learning")
    assert "Note\n\nThis line goes on the study-group poster." in quote
    image = shown("image-worm-harvest")
    assert "Other fields" not in image
