"""An entity read within a text budget: small ones whole, huge ones cut short and fast."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.bounded import (
    KEEP_WHOLE_CHARS,
    OVERDRAFT_CHARS,
    _BoundedParser,
    text_within,
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=6)
    ),
    max_leaves=40,
)


def _strings(value: Any) -> list[str]:
    """Every string of a JSON value (keys excluded), in document order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


def _is_cut_from(read: Any, original: Any) -> bool:
    """Whether ``read`` is ``original`` with strings shortened and arrays ended early."""
    if isinstance(original, str):
        return isinstance(read, str) and original.startswith(read)
    if isinstance(original, list):
        return (
            isinstance(read, list)
            and len(read) <= len(original)
            and all(map(_is_cut_from, read, original))
        )
    if isinstance(original, dict):
        return (
            isinstance(read, dict)
            and read.keys() == original.keys()
            and all(_is_cut_from(read[key], original[key]) for key in original)
        )
    return bool(read == original)


@given(json_values, st.booleans())
def test_a_generous_budget_reads_exactly_what_json_reads(value: Any, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    parser = _BoundedParser(raw, len(raw) + 1)
    assert parser.parse() == json.loads(raw)
    assert not parser.budget.cut


@given(
    st.lists(st.text(min_size=1, max_size=3000), min_size=1, max_size=8),
    st.integers(0, 5000),
    st.booleans(),
)
def test_a_tight_budget_keeps_prefixes_within_the_budget(
    texts: list[str], budget: int, ascii_only: bool
) -> None:
    value = {"type": "web", "texts": texts, "last": texts[-1]}
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    parser = _BoundedParser(raw, budget)
    read = parser.parse()
    assert read["type"] == "web"
    kept = _strings(read)
    assert sum(map(len, kept)) <= budget + KEEP_WHOLE_CHARS + OVERDRAFT_CHARS
    assert _is_cut_from(read, value)
    # The in-memory cut (of a value already read) keeps to the same rules.
    standard, _ = text_within(value, budget)
    assert standard["type"] == "web"
    assert _is_cut_from(standard, value)


@pytest.mark.parametrize("cut", range(1, 40))
def test_a_cut_never_splits_an_escape_or_a_character(cut: int) -> None:
    text = 'a\\"b\n\t\u00e9\u20ac\U0001f600\\\\x' * 4 + "z" * 3000
    raw = json.dumps({"t": text}, ensure_ascii=cut % 2 == 0).encode()
    read = _BoundedParser(raw, cut).parse()
    assert text.startswith(read["t"])
    assert not any("\ud800" <= char <= "\udfff" for char in read["t"])


def _cache_with(tmp_path: Path, items: list[dict[str, Any]]) -> Path:
    path = tmp_path / "cache.db"
    writer = StoreWriter(path)
    try:
        writer.ingest_json(items).result()
    finally:
        writer.close()
    return path


def test_a_small_item_is_read_whole(tmp_path: Path) -> None:
    item = {"id": "s", "type": "web", "title": "Small", "full_text": "words " * 100}
    with CacheReader(_cache_with(tmp_path, [item])) as reader:
        found = reader.entity_within("s", 10_000)
        assert found is not None
        assert not found.truncated
        assert found.entity() == reader.entity("s")
        assert reader.entity_within("missing", 10_000) is None


def test_a_huge_item_is_cut_to_the_budget_with_its_fields_after_the_text(tmp_path: Path) -> None:
    """Fields stored after a huge text (its type, its date) still come through."""
    body = "# Heading\n\n" + "A line of the article.\n" * 500_000
    raw = {"id": "h", "full_text": body, "type": "web", "title": "Huge", "created_at": 1}
    with CacheReader(_cache_with(tmp_path, [raw])) as reader:
        started = time.perf_counter()
        found = reader.entity_within("h", 100_000)
        elapsed = time.perf_counter() - started
        assert found is not None
        assert found.truncated
        assert found.stored_bytes > len(body)
        entity = found.entity()
        assert entity.type == "web"
        assert entity.title == "Huge"
        assert body.startswith(entity.full_text or "")  # type: ignore[attr-defined]
        assert 99_000 <= len(entity.full_text or "") <= 100_000  # type: ignore[attr-defined]
        assert len(found.entity(1_000).full_text or "") <= 1_000  # type: ignore[attr-defined]
    assert elapsed < 2.0
