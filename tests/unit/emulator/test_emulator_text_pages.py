"""Raw pages are spliced from stored JSON text: same content as serializing decoded objects.

The reference below builds each raw page the straightforward way (decode every stored
entity, nest notes and references as dicts, ``json.dumps`` the whole page) and the test
compares it, parsed, with the spliced text the emulator sends, page by page over a generated
library, with and without ``includeNotes``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.emulator import make_config

from memex_desktop.emulator.database import EntityRow
from memex_desktop.emulator.search import _Graph, find_rows, parse_search_request, run_search
from memex_desktop.emulator.state import EmulatorState
from memex_desktop.emulator.synthetic import generate_library

PAGE = 40


@pytest.fixture(scope="module")
def state() -> Iterator[EmulatorState]:
    library = generate_library(360, seed=11, words_per_entity=30)
    emulator_state = EmulatorState(make_config(library, balance_micros=10**12))
    yield emulator_state
    emulator_state.close()


def _strict_loads(text: str) -> Any:
    """Parse JSON refusing duplicate keys and non-standard constants (NaN, Infinity)."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        assert len(keys) == len(set(keys)), f"duplicate keys in {keys}"
        return dict(pairs)

    def no_constants(name: str) -> Any:
        raise AssertionError(f"non-standard JSON constant {name}")

    return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constants)


def _reference_page(state: EmulatorState, body: dict[str, Any]) -> dict[str, Any]:
    """The page built from decoded objects and serialized with ``json.dumps`` in one go."""
    request = parse_search_request(body, state)
    with state.lock:
        rows = find_rows(state, request)
        graph = _Graph(state, rows, request.include_notes)
    lookup = graph.lookup

    def referenced(row: EntityRow, nest: bool) -> dict[str, Any]:
        data = row.data()
        if nest and row.type == "annotation":
            data["references"] = [
                lookup[t].data() for t in row.targets if t in lookup and t != row.id
            ]
        return data

    def note(row: EntityRow) -> dict[str, Any]:
        direct = [lookup[t] for t in graph.mentioned(row) if t in lookup]
        data = row.data()
        data["resolvedReferences"] = [item.data() for item in direct]
        data["references"] = [referenced(item, True) for item in direct]
        return data

    results: list[dict[str, Any]] = []
    references: dict[str, Any] = {}
    outside: dict[str, dict[str, Any]] = {}
    nested: set[str] = set()
    for row in rows:
        notes = graph.notes.get(row.id, [])
        data = row.data()
        if request.include_notes:
            data["annotations"] = [note(item) for item in notes]
        if row.type in ("annotation", "chatThread"):
            data["references"] = [referenced(lookup[t], True) for t in row.targets if t in lookup]
        results.append(data)
        entry = json.loads(row.refs)
        if notes:
            listed = entry.setdefault("contentEntityIds", [])
            listed += [item.id for item in notes if item.id not in listed]
        references[row.id] = entry
        for target in row.targets:
            if target not in graph.page_ids and target in lookup:
                outside.setdefault(target, lookup[target].data())
        nested.update(item.id for item in notes)
        for item in notes:
            references.setdefault(item.id, json.loads(item.refs))
            for target in graph.mentioned(item):
                found = lookup.get(target)
                if found is not None and found.type == "annotation":
                    references.setdefault(found.id, json.loads(found.refs))
    page = {
        "results": results,
        "extraEntities": [],
        "referencesByResultId": references,
        "referencedEntities": [data for key, data in outside.items() if key not in nested],
    }
    parsed: dict[str, Any] = json.loads(json.dumps(page, ensure_ascii=False))
    return parsed


@pytest.mark.parametrize("include_notes", [True, False])
def test_spliced_pages_equal_serialized_objects(state: EmulatorState, include_notes: bool) -> None:
    total = len(state.entity_ids())
    nested_notes = 0
    for offset in range(0, total + PAGE, PAGE):
        body = {
            "query": "",
            "raw": True,
            "includeNotes": include_notes,
            "sortBy": "date-desc",
            "limit": PAGE,
            "offset": offset,
        }
        text = run_search(state, parse_search_request(body, state))
        sent = _strict_loads(text)
        expected = _reference_page(state, body)
        for key in ("results", "extraEntities", "referencesByResultId", "referencedEntities"):
            assert sent[key] == expected[key], f"{key} differs at offset {offset}"
        assert sent["meta"]["returnedCount"] == len(expected["results"])
        nested_notes += sum(len(result.get("annotations", [])) for result in sent["results"])
    # The library has notes, so the splicing of nested annotations was exercised.
    assert (nested_notes > 0) is include_notes
