"""The response-shape models: verbatim examples, every content type, lossless round trips."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memex_desktop.api.identity import canonical_id
from memex_desktop.api.models import (
    AnnotationContentEntity,
    AvailablePlansOutput,
    ContentEntityBase,
    OtherContentEntity,
    RedditContentEntity,
    SaveContentByUrlResponse,
    SaveContentEntityReceiptResponse,
    SaveContentEntityResponse,
    SearchLlmReadyResponse,
    SearchMeta,
    SearchRawResponse,
    TweetContentEntity,
    WebContentEntity,
    YoutubeContentEntity,
    parse_content_entity,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _load(name: str) -> dict[str, Any]:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


# ---------------------------------------------------------------------- the documented examples


def test_compact_example_parses_and_round_trips() -> None:
    data = _load("compact_example.json")
    response = SearchLlmReadyResponse.model_validate(data)
    result = response.results[0]
    assert result.title == "Example article"
    assert result.user_notes is not None
    note = result.user_notes[0]
    assert note.type == "annotation"
    assert note.references is not None
    video = note.references["https://www.youtube.com/watch?v=abc123"]
    assert video.media is not None
    assert video.media[0].transcript_chunks == ["Transcript chunk 1"]
    assert response.meta.remaining_balance_micros == 9_000_000
    assert response.to_json_dict() == data


def test_raw_example_parses_and_round_trips() -> None:
    data = _load("raw_example.json")
    response = SearchRawResponse.model_validate(data)
    page = response.results[0]
    assert isinstance(page, WebContentEntity)
    assert page.annotations is not None
    note = page.annotations[0]
    assert isinstance(note, AnnotationContentEntity)
    assert note.resolved_references is not None
    assert note.resolved_references[0].id == "annotation-ref-1"
    assert note.references is not None
    nested = note.references[0].references
    assert nested is not None
    assert nested[0].id == "page-2"
    assert response.references_by_result_id["note-1"].targets() == [
        ("page-1", None),
        ("annotation-ref-1", None),
    ]
    assert response.meta.rerank_applied is False
    assert response.to_json_dict() == data
    assert page.raw is data["results"][0]


# ---------------------------------------------------------------------- content types

TYPED_SAMPLES: list[tuple[dict[str, Any], type[ContentEntityBase]]] = [
    (
        {"id": "w", "type": "web", "title": "T", "url": "https://a", "normalized_url": "a",
         "html": "<p>x</p>", "full_text": "x", "favicon_url": "https://a/f.ico", "lang": "en"},
        WebContentEntity,
    ),
    (
        {"id": "t", "type": "twitter", "author_name": "A", "author_handle": "a", "text": "hi",
         "save_type": "like", "videos": [{"variants": [{"url": "https://v", "bitrate": 1}]}],
         "images": ["https://i"], "image_analysis": {"https://i": {"description": "cat"}}},
        TweetContentEntity,
    ),
    (
        {"id": "y", "type": "youtube", "title": "V", "description": "d", "thumbnail_url": "u",
         "published_at": 1, "channel_title": "C",
         "transcript": {"en": [{"offset": "1.5", "text": "a", "duration": 2},
                               {"offset": 3, "text": "b", "duration": 1}]},
         "summary": {"en": "s"}},
        YoutubeContentEntity,
    ),
    (
        {"id": "r", "type": "reddit", "text": "t", "author_name": "a", "author_handle": "h",
         "videos": [{"url": "https://v"}], "subreddit_name": "python", "score": 12},
        RedditContentEntity,
    ),
    (
        {"id": "n", "type": "annotation", "text": "note", "private": True,
         "content": {"type": "doc", "content": [{"type": "paragraph", "content": [
             {"type": "text", "text": "see "},
             {"type": "memex-reference", "attrs": {"content_id": "w"}}]}]},
         "reference_content_ids": ["w"]},
        AnnotationContentEntity,
    ),
]  # fmt: skip

OTHER_SAMPLES: list[dict[str, Any]] = [
    {"id": "p", "type": "pdf", "title": "Paper", "authors": ["A", "B"], "page_count": 12,
     "abstract": "…", "source_urls": ["https://p.pdf"]},
    {"id": "c", "type": "chatThread", "title": "Chat", "model_name": "m",
     "messages": [{"role": "user", "content": {"type": "doc"},
                   "llmMessage": {"content": "see {{content:w}}"}}],
     "reference_content_ids": ["w"]},
    {"id": "s", "type": "selector", "target_id": "w", "selector_type": "text_selector",
     "start_time": 12.5, "target_entity": {"title": "T"}},
    {"id": "i", "type": "image", "description": 42, "original_url": "https://i"},
    {"id": "o", "type": "other"},
    {"id": "u", "type": "audiobook", "narrator": None, "chapters": [[1, 2], {"x": []}]},
    {"id": "z", "type": "", "created_at": "2026-04-09T08:31:42.786Z"},
]  # fmt: skip


@pytest.mark.parametrize(("data", "model"), TYPED_SAMPLES, ids=lambda v: getattr(v, "__name__", ""))
def test_known_types_parse_into_their_model_and_keep_extras(
    data: dict[str, Any], model: type[ContentEntityBase]
) -> None:
    data = {"created_at": 1_700_000_000_000, "updated_at": 1_700_000_000_001, **data}
    entity = parse_content_entity(data)
    assert type(entity) is model
    assert entity.raw is data
    assert entity.to_json_dict() == data


@pytest.mark.parametrize("data", OTHER_SAMPLES, ids=lambda d: d["type"] or "empty")
def test_unknown_types_parse_losslessly(data: dict[str, Any]) -> None:
    original = copy.deepcopy(data)
    entity = parse_content_entity(data)
    assert entity.id == data["id"]
    assert entity.type == data["type"]
    assert entity.raw == original
    dump = entity.to_json_dict()
    if "invalid_fields" in dump:  # a known type whose fields do not fit: kept aside
        assert isinstance(entity, OtherContentEntity)
        assert {**{k: v for k, v in dump.items() if k != "invalid_fields"},
                **dump["invalid_fields"]} == original  # fmt: skip
    else:
        assert dump == original


@pytest.mark.parametrize(
    "data", [None, [], "web", 3, {"type": "web"}, {"id": "x"}, {"id": 1, "type": "web"}]
)
def test_non_entities_raise_value_error(data: Any) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - ValidationError is a ValueError
        parse_content_entity(data)


# ---------------------------------------------------------------------- meta, references, saves


def test_both_meta_generations_parse() -> None:
    new = SearchMeta.model_validate(
        {"offset": 0, "limit": 10, "returnedCount": 3, "rerankApplied": False,
         "usageMicrosCharged": 1500,
         "remainingUsageBalance": {"usageBalancePaygMicros": 1, "usageBalanceSubscriptionMicros": 2,
                                   "total": 3}}
    )  # fmt: skip
    assert new.usage_micros_charged == 1500
    assert new.remaining_balance_micros == 3.0
    old_data = {
        "offset": 20, "limit": 20, "returnedCount": 0, "rerankApplied": True, "creditsCharged": 1,
        "remainingCredits": {"creditsPAYG": 4, "creditsSubscription": 5, "total": 9},
        "someFutureKey": {"a": 1},
    }  # fmt: skip
    old = SearchMeta.model_validate(old_data)
    assert old.credits_charged == 1
    assert old.remaining_credits is not None
    assert old.remaining_credits.credits_payg == 4
    assert old.remaining_balance_micros is None
    assert old.to_json_dict() == old_data


def test_references_by_result_id_accept_strings_and_objects() -> None:
    data = {
        "results": [],
        "referencesByResultId": {
            "reply-1": {"contentEntityIds": [{"id": "note-1", "type": "reply"}, "page-2",
                                             {"id": "page-3"}], "tagIds": ["t1"]},
            "empty": {},
        },
    }  # fmt: skip
    response = SearchRawResponse.model_validate(data)
    refs = response.references_by_result_id
    assert refs["reply-1"].targets() == [("note-1", "reply"), ("page-2", None), ("page-3", None)]
    assert refs["reply-1"].tag_ids == ["t1"]
    assert refs["empty"].targets() == []
    assert response.to_json_dict() == data


def test_save_responses_normal_and_receipt() -> None:
    entity = {"id": "e", "type": "web", "url": "https://a", "metadata": {"status": "pending"}}
    tag = {"id": "t", "name": "reading", "created_at": 1}
    by_url = {"entity": entity, "tags": [tag], "isNew": True}
    parsed = SaveContentByUrlResponse.model_validate(by_url)
    assert parsed.entity.processing_status == "pending"
    assert parsed.tags[0].name == "reading"
    assert parsed.to_json_dict() == by_url
    full = {"entity": entity, "entities": [entity, {"id": "s", "type": "selector"}], "isNew": False}
    parsed_full = SaveContentEntityResponse.model_validate(full)
    assert [e.type for e in parsed_full.entities] == ["web", "selector"]
    assert parsed_full.to_json_dict() == full
    receipt = {"ok": True, "processingRequestId": "req-9"}
    parsed_receipt = SaveContentEntityReceiptResponse.model_validate(receipt)
    assert parsed_receipt.processing_request_id == "req-9"
    assert parsed_receipt.to_json_dict() == receipt


def test_available_plans_output_parses_every_documented_field() -> None:
    data = {
        "environment": "production", "isProduction": True, "defaultPlanId": "p1",
        "plans": [{"id": "p1", "tierId": "starter", "planName": "Starter", "pricingMode": "payg",
                   "billingPeriod": "one_time", "variantId": "v-1", "currency": "USD",
                   "amount": 5, "usageBalanceMicrosIncluded": 5_000_000, "isSubscription": False,
                   "productId": 77},
                  {"id": "p2", "tierId": "unlimited", "planName": "Unlimited",
                   "pricingMode": "subscription", "billingPeriod": "monthly", "variantId": 8,
                   "currency": "USD", "amount": 20, "usageBalanceMicrosIncluded": 0,
                   "isSubscription": True}],
        "recoveryHint": "Buy usage balance.",
    }  # fmt: skip
    plans = AvailablePlansOutput.model_validate(data)
    assert plans.plans[0].product_id == 77
    assert plans.plans[1].is_subscription is True
    assert plans.plans[1].variant_id == 8
    assert plans.to_json_dict() == data


def test_error_fields_parse_on_search_responses() -> None:
    data = {"results": [], "meta": {}, "error": "no balance", "errorCode": "INSUFFICIENT_CREDITS",
            "upgradeOptions": {"plans": [], "recoveryHint": "buy"}}  # fmt: skip
    response = SearchLlmReadyResponse.model_validate(data)
    assert response.error_code == "INSUFFICIENT_CREDITS"
    assert response.upgrade_options is not None
    assert response.upgrade_options.recovery_hint == "buy"


@pytest.mark.parametrize("bad_type", [[], {}, ["web"]])
def test_unhashable_type_is_a_value_error(bad_type: Any) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - ValidationError is a ValueError
        parse_content_entity({"id": "a", "type": bad_type})


def test_non_object_items_in_a_page_are_skipped() -> None:
    response = SearchRawResponse.model_validate({"results": [None, {"id": "a", "type": "web"}]})
    assert [entity.id for entity in response.results] == ["a"]


# ---------------------------------------------------------------------- property tests

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
KNOWN_TYPES = ["web", "twitter", "youtube", "image", "reddit", "annotation"]
SOME_UNKNOWN_TYPES = ["pdf", "chatThread", "selector", "other", "audiobook", "rssFeed", ""]
ENTITY_TYPES = st.sampled_from(KNOWN_TYPES + SOME_UNKNOWN_TYPES) | st.text(max_size=10)
DECLARED_FIELDS = [
    "created_at", "updated_at", "user_id", "external_id", "url", "tag_ids",
    "reference_content_ids", "metadata", "title", "text", "description", "videos", "images",
    "transcript", "summary", "content", "private", "published_at", "image_analysis",
    "is_reference", "media_urls",
]  # fmt: skip
FIELD_NAMES = st.sampled_from(DECLARED_FIELDS) | st.text(max_size=10)


def _entities(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """Mutated entity objects: any type, any value in any field, nested entity lists."""
    nested: st.SearchStrategy[Any] = (
        st.just(None) if depth == 0 else st.lists(_entities(depth - 1) | JSON, max_size=2) | JSON
    )
    return st.builds(
        lambda base, fields, graph: {**fields, **base, **graph},
        st.fixed_dictionaries({"id": st.text(max_size=8), "type": ENTITY_TYPES}),
        st.dictionaries(FIELD_NAMES, JSON, max_size=6),
        st.dictionaries(st.sampled_from(["annotations", "references", "resolvedReferences"]),
                        nested, max_size=2),
    )  # fmt: skip


ENTITIES = _entities(3)
MAYBE_ENTITIES = ENTITIES | JSON | st.dictionaries(FIELD_NAMES, JSON, max_size=4)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(MAYBE_ENTITIES)
def test_parse_content_entity_never_crashes_and_keeps_everything(data: Any) -> None:
    original = copy.deepcopy(data)
    try:
        entity = parse_content_entity(data)
    except pydantic.ValidationError:
        assert not (isinstance(data, dict) and isinstance(data.get("id"), str)
                    and isinstance(data.get("type"), str))  # fmt: skip
        return
    except ValueError:
        assert not isinstance(data, dict)
        return
    assert data == original, "parsing must not mutate its input"
    if canonical_id(data) in (None, data["id"]):
        assert entity.raw is data
        assert entity.id == data["id"]
    else:  # keyed by its content id, the library row id kept (test_identity.py)
        assert entity.id == canonical_id(data)
        assert entity.raw["userLibraryId"] == data["id"]
        return
    assert entity.type == data["type"]
    dump = entity.to_json_dict()
    json.dumps(dump)  # serialisable as JSON
    kept = set(dump) | set(dump.get("invalid_fields", {}))
    assert set(data) <= kept
    if data["type"] not in KNOWN_TYPES and "invalid_fields" not in dump:
        for key, value in data.items():
            if key not in ("annotations", "references", "resolvedReferences"):
                assert dump[key] == value, key


@settings(max_examples=150)
@given(
    st.fixed_dictionaries(
        {"id": st.text(max_size=8), "type": st.sampled_from(SOME_UNKNOWN_TYPES) | st.text()},
        optional={
            "created_at": st.integers(min_value=0, max_value=253_402_300_799_999),  # to 9999
            "tag_ids": st.lists(st.text(max_size=5), max_size=3),
            "metadata": st.dictionaries(st.text(max_size=5), JSON, max_size=3),
            "url": st.text(max_size=20),
        },
    ).flatmap(
        lambda base: st.dictionaries(
            st.text(max_size=10).filter(lambda k: k not in [*DECLARED_FIELDS, "id", "type"]),
            JSON,
            max_size=5,
        ).map(lambda extra: {**extra, **base})
    )
)
def test_unknown_types_round_trip_exactly(data: dict[str, Any]) -> None:
    if data["type"] in KNOWN_TYPES:
        return
    entity = parse_content_entity(data)
    assert isinstance(entity, OtherContentEntity)
    assert entity.raw == data
    assert entity.to_json_dict() == data


RESPONSE_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "results": st.lists(MAYBE_ENTITIES, max_size=3) | JSON,
        "extraEntities": st.lists(ENTITIES, max_size=2) | JSON,
        "referencedEntities": st.lists(ENTITIES, max_size=2),
        "referencedTags": st.lists(
            st.fixed_dictionaries({"id": st.text(max_size=4), "name": st.text(max_size=4)})
            | JSON, max_size=2),
        "referencesByResultId": st.dictionaries(
            st.text(max_size=4),
            st.fixed_dictionaries({}, optional={
                "contentEntityIds": st.lists(
                    st.text(max_size=4)
                    | st.fixed_dictionaries({"id": st.text(max_size=4)},
                                            optional={"type": st.just("reply") | JSON})
                    | JSON, max_size=3),
                "tagIds": st.lists(st.text(max_size=4), max_size=2) | JSON,
            }) | JSON,
            max_size=3),
        "meta": st.dictionaries(
            st.sampled_from(["offset", "limit", "returnedCount", "usageMicrosCharged",
                             "remainingUsageBalance", "remainingCredits", "creditsCharged"]),
            JSON, max_size=4) | JSON,
        "entity": ENTITIES | JSON,
        "entities": st.lists(ENTITIES, max_size=2) | JSON,
        "tags": st.lists(JSON, max_size=2),
        "isNew": JSON,
        "ok": JSON,
        "processingRequestId": JSON,
        "error": JSON,
        "errorCode": JSON,
        "upgradeOptions": JSON,
        "plans": st.lists(JSON, max_size=2),
    },
)  # fmt: skip
RESPONSE_MODELS = st.sampled_from(
    [SearchRawResponse, SearchLlmReadyResponse, SaveContentEntityResponse,
     SaveContentEntityReceiptResponse, SaveContentByUrlResponse, AvailablePlansOutput, SearchMeta]
)  # fmt: skip


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(RESPONSE_MODELS, RESPONSE_BODIES)
def test_response_models_fail_only_with_validation_errors(
    model: type[pydantic.BaseModel], body: dict[str, Any]
) -> None:
    original = copy.deepcopy(body)
    try:
        parsed = model.model_validate(body)
    except pydantic.ValidationError:
        return
    assert body == original
    dump = parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)
    json.dumps(dump)
    # A field that does not fit is dropped from the model and kept aside as it was sent.
    assert set(body) <= set(dump) | set(dump.get("invalid_fields", {}))


def test_deeply_nested_annotation_threads_parse() -> None:
    data: dict[str, Any] = {"id": "leaf", "type": "selector", "target_id": "w"}
    for depth in range(60):
        data = {"id": f"n{depth}", "type": "annotation", "text": "reply", "annotations": [data]}
    entity = parse_content_entity(data)
    for _ in range(60):
        assert entity.annotations is not None
        entity = entity.annotations[0]
    assert entity.type == "selector"
    assert entity.to_json_dict() == {"id": "leaf", "type": "selector", "target_id": "w"}
