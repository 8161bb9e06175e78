"""One identity per item: ``contentEntityId ?? content_id ?? id``, the others kept."""

from __future__ import annotations

from memex_desktop.api.identity import canonical_id, canonicalize, other_ids
from memex_desktop.api.models import SearchRawPage, parse_content_entity


def test_canonical_id_prefers_content_entity_id_then_content_id() -> None:
    assert canonical_id({"id": "a"}) == "a"
    assert canonical_id({"id": "a", "content_id": "b"}) == "b"
    assert canonical_id({"id": "a", "content_id": "b", "contentEntityId": "c"}) == "c"
    assert canonical_id({"id": "a", "content_id": ""}) == "a"
    assert canonical_id({"id": None, "content_id": "b"}) == "b"
    assert canonical_id({"id": 5}) is None


def test_canonicalize_keeps_the_library_row_id_and_records_aliases() -> None:
    aliases: dict[str, str] = {}
    data = {"id": "ul-1", "content_id": "c-1", "annotations": [{"id": "ul-2", "content_id": "n"}]}
    canonicalize(data, aliases)
    assert data["id"] == "c-1"
    assert data["userLibraryId"] == "ul-1"
    assert data["annotations"][0]["id"] == "n"
    assert aliases == {"ul-1": "c-1", "ul-2": "n"}
    assert other_ids(data) == ["ul-1"]


def test_page_counts_what_the_server_sent_and_what_was_skipped() -> None:
    page = SearchRawPage.model_validate(
        {"results": [{"id": None, "type": "web"}, {"id": "a", "type": "web"}, 3]}
    )
    # What is not an entity is kept as an unreadable stand-in, still counted as skipped.
    assert [entity["type"] for entity in page.results] == ["unreadable", "web", "unreadable"]
    assert page.results[1]["id"] == "a"
    assert [entity["unreadable"] for entity in page.results[::2]] == [
        {"id": None, "type": "web"},
        3,
    ]
    assert page.parse.sent == 3
    assert page.parse.skipped == 2
    assert page.parse.problem is None
    assert SearchRawPage.model_validate({}).parse.problem == "the page has no results list"


def test_page_references_point_at_canonical_ids() -> None:
    page = SearchRawPage.model_validate(
        {
            "results": [
                {"id": "ul-1", "content_id": "c-1", "type": "web"},
                {
                    "id": "ul-2",
                    "content_id": "n-1",
                    "type": "annotation",
                    "reference_content_ids": ["ul-1"],
                },
            ],
            "referencesByResultId": {"ul-1": {"contentEntityIds": [{"id": "ul-2", "type": "x"}]}},
        }
    )
    assert page.results[1]["reference_content_ids"] == ["c-1"]
    assert page.references_by_result_id["c-1"].targets() == [("n-1", "x")]


def test_parsing_an_entity_does_not_touch_the_callers_object() -> None:
    data = {"id": "ul-1", "content_id": "c-1", "type": "web"}
    entity = parse_content_entity(data)
    assert entity.id == "c-1"
    assert data == {"id": "ul-1", "content_id": "c-1", "type": "web"}
