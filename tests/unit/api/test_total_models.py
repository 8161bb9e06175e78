"""The models are total per field: a value of the wrong kind costs that field, not the object.

Every value here is one a hostile or buggy server can send as JSON (pydantic_core decodes NaN,
Infinity, 1e400 and integers of up to 4,300 digits).
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memex_desktop.api.content import epoch_ms
from memex_desktop.api.models import (
    INVALID_FIELDS_KEY,
    SearchMeta,
    SearchRawPage,
    TagEntity,
    parse_content_entity,
)

HOSTILE = st.sampled_from(
    [None, 7, 2**63, 2**70, -(2**63) - 1, 10**400, 2.5, math.nan, math.inf, -math.inf, "text",
     [1, "two"], {"id": 3}, True, False, "", [], {}]
)  # fmt: skip
META_KEYS = ["offset", "limit", "returnedCount", "rerankApplied", "usageMicrosCharged",
             "creditsCharged", "remainingUsageBalance", "remainingCredits"]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(META_KEYS),
        HOSTILE
        | st.dictionaries(
            st.sampled_from(["total", "usageBalancePaygMicros", "creditsPAYG"]), HOSTILE
        ),
    )
)
def test_meta_always_parses_and_its_balance_is_a_finite_number(body: dict[str, Any]) -> None:
    meta = SearchMeta.model_validate(body)
    balance = meta.remaining_balance_micros
    assert balance is None or math.isfinite(balance)
    for number in (meta.usage_micros_charged, meta.credits_charged):
        assert number is None or math.isfinite(float(number))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["name", "created_at", "updated_at", "color"]), HOSTILE)
def test_a_tag_keeps_its_id_whatever_else_it_holds(key: str, value: Any) -> None:
    tag = TagEntity.model_validate({"id": "t", "name": "research", key: value})
    assert tag.id == "t"
    for moment in (tag.created_at, tag.updated_at):
        assert moment is None or epoch_ms(moment) is not None


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["title", "created_at", "updated_at", "tag_ids", "reference_content_ids",
                     "annotations", "references", "resolvedReferences", "metadata", "url",
                     "html", "full_text", "user_id"]),
    HOSTILE,
    st.sampled_from(["web", "twitter", "youtube", "image", "reddit", "annotation", "pdf"]),
)  # fmt: skip
def test_an_entity_keeps_every_field_that_fits(key: str, value: Any, kind: str) -> None:
    data = {"id": "e", "type": kind, "url": "https://example.org/a", key: value}
    entity = parse_content_entity(data)
    assert (entity.id, entity.type) == ("e", kind)
    dump = entity.to_json_dict()
    aside = dump.get(INVALID_FIELDS_KEY, {})
    assert key in dump or key in aside, "a field is kept, or kept aside"
    for moment in (entity.created_at, entity.updated_at):
        assert moment is None or epoch_ms(moment) is not None
    json.dumps(dump)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["extraEntities", "referencesByResultId", "referencedEntities",
                     "referencedTags", "meta", "error"]),
    HOSTILE,
)  # fmt: skip
def test_a_page_keeps_its_results_whatever_else_it_holds(key: str, value: Any) -> None:
    results = [{"id": "a", "type": "web"}, {"id": "b", "type": "annotation", "annotations": 5}]
    page = SearchRawPage.model_validate({"results": results, key: value})
    assert [entity["id"] for entity in page.results] == ["a", "b"]
    assert "annotations" not in page.results[1]  # not a list: not something to walk
    assert page.parse.sent == 2


def test_a_page_whose_results_are_no_list_is_refused_not_empty() -> None:
    for results in (5, "x", {"id": "a"}, math.nan):
        try:
            SearchRawPage.model_validate({"results": results})
        except ValueError:
            continue
        raise AssertionError(f"results={results!r} read as a page")
