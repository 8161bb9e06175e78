"""Pydantic models of the Memex API contract (the official "Response shape" page).

Every model keeps fields it does not declare (``extra="allow"``), so whatever the server adds
survives into the cache. Content entities are parsed by :func:`parse_content_entity`, which
picks the model for ``type`` and falls back to :class:`OtherContentEntity` for types this client
does not know (``pdf``, ``chatThread``, ``selector``, ...) or for data that does not fit the typed
model: nothing the server sent is dropped, and every entity keeps its raw JSON in ``raw``.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PlainSerializer,
    PlainValidator,
    PrivateAttr,
    ValidationError,
    WrapValidator,
    model_validator,
)

from memex_desktop.api.identity import canonical_id, canonicalize, resolve_references

_log = logging.getLogger(__name__)

JsonObject = dict[str, Any]

# Timestamps are documented as numbers (epoch milliseconds), but older payloads and the
# compact shape carry ISO strings; accept both rather than reject a whole page.
Timestamp = int | float | str | None


class MemexModel(BaseModel):
    """Base of every API model: unknown keys are kept, field names are the wire names."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())

    def to_json_dict(self) -> JsonObject:
        """The model as the JSON object it was parsed from (declared, extra and nested keys)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


# --------------------------------------------------------------------------- content entities


class ContentEntityBase(MemexModel):
    """Fields every saved item has (``ContentEntityBase`` in the contract).

    ``annotations``, ``references`` and ``resolvedReferences`` appear on search results
    (``SearchResultEntity``, ``SearchResultAnnotation``, ``SearchResultReferencedEntity``);
    they are declared here so nested graphs parse at any depth.
    """

    id: str
    type: str
    created_at: Timestamp = None
    updated_at: Timestamp = None
    user_id: str | None = None
    external_id: str | None = None
    url: str | None = None
    tag_ids: list[str] | None = None
    reference_content_ids: list[str] | None = None
    metadata: JsonObject | None = None
    annotations: EntityList | None = None
    references: EntityList | None = None
    resolved_references: EntityList | None = Field(default=None, alias="resolvedReferences")

    _raw: JsonObject = PrivateAttr(default_factory=dict)

    @property
    def raw(self) -> JsonObject:
        """The JSON object this entity was parsed from, untouched."""
        return self._raw

    @property
    def processing_status(self) -> str | None:
        """``metadata.status`` (``pending`` ... ``indexing-done``) when the server sent one."""
        status = (self.metadata or {}).get("status")
        return status if isinstance(status, str) else None

    def text_fields(self) -> dict[str, str]:
        """Every top-level string field with content, declared or extra, by wire name."""
        data = self.to_json_dict()
        return {key: value for key, value in data.items() if isinstance(value, str) and value}


class WebContentEntity(ContentEntityBase):
    type: Literal["web"] = "web"
    title: str | None = None
    normalized_url: str | None = None
    canonical_url: str | None = None
    favicon_url: str | None = None
    description: str | None = None
    keywords: str | None = None
    author: str | None = None
    date: str | None = None
    html: str | None = None
    full_text: str | None = None


class TweetVideoVariant(MemexModel):
    content_type: str | None = None
    url: str | None = None
    bitrate: int | float | None = None


class TweetVideo(MemexModel):
    variants: list[TweetVideoVariant] = Field(default_factory=list)
    duration: int | float | None = None
    preview_url: str | None = None


class ImageAnalysis(MemexModel):
    description: str | None = None


class TweetContentEntity(ContentEntityBase):
    type: Literal["twitter"] = "twitter"
    author_name: str | None = None
    author_handle: str | None = None
    title: str | None = None
    text: str | None = None
    published_at: int | float | None = None
    save_type: str | None = None
    videos: list[TweetVideo] | None = None
    images: list[str] | None = None
    image_analysis: dict[str, ImageAnalysis] | None = None


class TranscriptSegment(MemexModel):
    offset: str | int | float = 0
    text: str = ""
    duration: int | float | None = None


class YoutubeContentEntity(ContentEntityBase):
    type: Literal["youtube"] = "youtube"
    title: str | None = None
    description: str | None = None
    thumbnail_url: str | None = None
    published_at: int | float | None = None
    transcript: dict[str, list[TranscriptSegment]] | None = None
    summary: dict[str, str] | None = None


class ImageContentEntity(ContentEntityBase):
    type: Literal["image"] = "image"
    description: str | None = None
    original_url: str | None = None
    is_reference: bool | None = None
    source_url: str | None = None
    source_title: str | None = None


class RedditVideo(MemexModel):
    url: str | None = None
    preview_url: str | None = None


class RedditContentEntity(ContentEntityBase):
    type: Literal["reddit"] = "reddit"
    title: str | None = None
    text: str | None = None
    author_name: str | None = None
    author_handle: str | None = None
    author_favicon_url: str | None = None
    subreddit_favicon_url: str | None = None
    media_urls: list[str] | None = None
    videos: list[RedditVideo] | None = None
    permalink: str | None = None
    subreddit_id: str | None = None
    subreddit_name: str | None = None
    image_analysis: dict[str, ImageAnalysis] | None = None


class AnnotationContentEntity(ContentEntityBase):
    """A note: rich-text ``content`` (ProseMirror JSON) plus the compiled plain ``text``."""

    type: Literal["annotation"] = "annotation"
    text: str | None = None
    content: JsonObject | None = None
    private: bool | None = None
    title: str | None = None


class OtherContentEntity(ContentEntityBase):
    """Any type without a model of its own (``pdf``, ``chatThread``, ``selector``, ...).

    Also the fallback when a known type's fields have unexpected shapes, so the item is kept.
    """


ENTITY_MODELS: dict[str, type[ContentEntityBase]] = {
    "web": WebContentEntity,
    "twitter": TweetContentEntity,
    "youtube": YoutubeContentEntity,
    "image": ImageContentEntity,
    "reddit": RedditContentEntity,
    "annotation": AnnotationContentEntity,
}


def parse_content_entity(data: Any) -> ContentEntityBase:
    """Parse one content entity, choosing the model by ``type``.

    Args:
        data: a decoded JSON value, or an already parsed entity.

    Returns:
        The typed entity; :class:`OtherContentEntity` when the type is unknown or the typed
        model rejects the data (declared fields that do not fit are moved, unchanged, into an
        ``invalid_fields`` extra). ``raw`` holds ``data`` itself, which callers must not mutate.

    Raises:
        ValueError: (a pydantic ``ValidationError``) when ``data`` is not an object with a
            string ``id`` and ``type``.
    """
    if isinstance(data, ContentEntityBase):
        return data
    if not isinstance(data, dict):
        raise ValueError(f"a content entity must be a JSON object, not {type(data).__name__}")
    if _needs_canonical_id(data):
        # The caller's object stays as it was; the entity is keyed by its canonical id.
        data = canonicalize(copy.deepcopy(data))
    entity_type = data.get("type")
    # A non-string type goes to the fallback model, whose validation names the problem.
    model = (
        ENTITY_MODELS.get(entity_type, OtherContentEntity)
        if isinstance(entity_type, str)
        else OtherContentEntity
    )
    entity: ContentEntityBase
    try:
        entity = model.model_validate(data)
    except ValidationError:
        entity = _parse_as_other(data)
    entity._raw = data
    return entity


def _needs_canonical_id(data: JsonObject) -> bool:
    """Whether the entity's ``id`` is not its canonical id (see :mod:`api.identity`)."""
    canonical = canonical_id(data)
    if canonical is not None and canonical != data.get("id"):
        return True
    return any(
        isinstance(nested, list)
        and any(isinstance(item, dict) and _needs_canonical_id(item) for item in nested)
        for nested in (data.get(key) for key in ("annotations", "references", "resolvedReferences"))
    )


def _parse_as_other(data: JsonObject) -> ContentEntityBase:
    """Keep an entity whose declared fields have unexpected shapes instead of losing it."""
    try:
        return OtherContentEntity.model_validate(data)
    except ValidationError as exc:
        bad_keys = {str(error["loc"][0]) for error in exc.errors() if error["loc"]}
        if not bad_keys or bad_keys & {"id", "type"}:
            raise
        kept = {key: value for key, value in data.items() if key not in bad_keys}
        kept["invalid_fields"] = {key: data[key] for key in bad_keys if key in data}
        return OtherContentEntity.model_validate(kept)


def _validate_entity(value: Any, handler: Callable[[Any], Any]) -> ContentEntityBase:
    del handler  # the union is resolved by type, not by pydantic's default validation
    return parse_content_entity(value)


def _serialize_entity(entity: ContentEntityBase) -> JsonObject:
    return entity.to_json_dict()


ContentEntity = Annotated[
    ContentEntityBase,
    WrapValidator(_validate_entity),
    PlainSerializer(_serialize_entity, return_type=dict),
]


def _validate_entity_list(value: Any, handler: Callable[[Any], Any]) -> list[ContentEntityBase]:
    """Parse a list of entities, skipping items that are not entities at all.

    One broken item must not make a whole page of results unreadable; a skipped item is
    logged (truncated) so the contract drift can be diagnosed.
    """
    del handler
    if not isinstance(value, list):
        raise ValueError("expected a list of content entities")
    entities = []
    for item in value:
        try:
            entities.append(parse_content_entity(item))
        except ValueError:  # includes pydantic's ValidationError
            _log.warning("skipped an item that is not a content entity: %.200r", item)
    return entities


EntityList = Annotated[
    list[ContentEntityBase],
    WrapValidator(_validate_entity_list),
    PlainSerializer(lambda items: [_serialize_entity(e) for e in items], return_type=list),
]

ContentEntityBase.model_rebuild()
_ALL_ENTITY_MODELS: list[type[ContentEntityBase]] = [*ENTITY_MODELS.values(), OtherContentEntity]
for _entity_model in _ALL_ENTITY_MODELS:
    _entity_model.model_rebuild()


# --------------------------------------------------------------------------- tags, plans, meta


class TagEntity(MemexModel):
    id: str
    name: str
    created_at: Timestamp = None
    updated_at: Timestamp = None


class AvailablePlan(MemexModel):
    id: str
    tier_id: str | None = Field(default=None, alias="tierId")
    plan_name: str | None = Field(default=None, alias="planName")
    pricing_mode: str | None = Field(default=None, alias="pricingMode")
    billing_period: str | None = Field(default=None, alias="billingPeriod")
    variant_id: str | int | None = Field(default=None, alias="variantId")
    currency: str | None = None
    amount: int | float | None = None
    usage_balance_micros_included: int | None = Field(
        default=None, alias="usageBalanceMicrosIncluded"
    )
    is_subscription: bool | None = Field(default=None, alias="isSubscription")
    product_id: int | None = Field(default=None, alias="productId")


class AvailablePlansOutput(MemexModel):
    environment: str | None = None
    is_production: bool | None = Field(default=None, alias="isProduction")
    default_plan_id: str | None = Field(default=None, alias="defaultPlanId")
    plans: list[AvailablePlan] = Field(default_factory=list)
    recovery_hint: str | None = Field(default=None, alias="recoveryHint")


class RemainingUsageBalance(MemexModel):
    usage_balance_payg_micros: int | float | None = Field(
        default=None, alias="usageBalancePaygMicros"
    )
    usage_balance_subscription_micros: int | float | None = Field(
        default=None, alias="usageBalanceSubscriptionMicros"
    )
    total: int | float | None = None


class RemainingCredits(MemexModel):
    """The older billing generation (``creditsPAYG`` / ``creditsSubscription``)."""

    credits_payg: int | float | None = Field(default=None, alias="creditsPAYG")
    credits_subscription: int | float | None = Field(default=None, alias="creditsSubscription")
    total: int | float | None = None


class SearchMeta(MemexModel):
    """Paging and billing information of one search; both billing generations parse."""

    offset: int | None = None
    limit: int | None = None
    returned_count: int | None = Field(default=None, alias="returnedCount")
    rerank_applied: bool | None = Field(default=None, alias="rerankApplied")
    usage_micros_charged: int | float | None = Field(default=None, alias="usageMicrosCharged")
    remaining_usage_balance: RemainingUsageBalance | None = Field(
        default=None, alias="remainingUsageBalance"
    )
    credits_charged: int | float | None = Field(default=None, alias="creditsCharged")
    remaining_credits: RemainingCredits | None = Field(default=None, alias="remainingCredits")

    @property
    def remaining_balance_micros(self) -> float | None:
        """The remaining usage balance in micros (newer generation) when reported."""
        balance = self.remaining_usage_balance
        return None if balance is None or balance.total is None else float(balance.total)


class ErrorFields(MemexModel):
    """``error`` / ``errorCode`` / ``upgradeOptions``, which may come on any response."""

    error: str | None = None
    error_code: str | None = Field(default=None, alias="errorCode")
    upgrade_options: AvailablePlansOutput | None = Field(default=None, alias="upgradeOptions")


# --------------------------------------------------------------------------- search responses


class ReferenceId(MemexModel):
    """An item of ``contentEntityIds`` given as an object, e.g. ``{id, type: "reply"}``."""

    id: str
    type: str | None = None


def _validate_reference_id(value: Any, handler: Callable[[Any], Any]) -> str | ReferenceId:
    if isinstance(value, str):
        return value
    result = handler(value)
    assert isinstance(result, ReferenceId)
    return result


class ResultReferences(MemexModel):
    content_entity_ids: list[
        Annotated[str | ReferenceId, WrapValidator(_validate_reference_id)]
    ] = Field(default_factory=list, alias="contentEntityIds")
    tag_ids: list[str] = Field(default_factory=list, alias="tagIds")

    def targets(self) -> list[tuple[str, str | None]]:
        """``(entity id, reference type)`` pairs; the type is ``None`` for plain ids."""
        return [
            (item, None) if isinstance(item, str) else (item.id, item.type)
            for item in self.content_entity_ids
        ]


_PAGE_ENTITY_KEYS = ("results", "extraEntities", "referencedEntities")


def _is_entity_object(item: object) -> bool:
    """An object with a string ``id`` and ``type``: what a page's entity lists must hold."""
    return (
        isinstance(item, dict)
        and isinstance(item.get("id"), str)
        and isinstance(item.get("type"), str)
    )


class PageParse(BaseModel):
    """What parsing a search page found, beyond the entities: the server's own count.

    A page's length is judged by what the server sent, not by what could be read: a page
    whose items were skipped is not short, and a pass that skipped anything cannot prove
    what is missing from the library.
    """

    sent: int = 0  # items of ``results`` the server sent, readable or not
    skipped: int = 0  # items of the entity lists that are not entities
    problem: str | None = None  # why the page as a whole is not a listing page
    aliases: dict[str, str] = Field(default_factory=dict)  # other id -> canonical id


def _canonical_page(data: Any) -> PageParse:
    """Canonicalise a decoded page's entity ids in place and count what it holds."""
    parse = PageParse()
    if not isinstance(data, dict):
        return parse
    results = data.get("results")
    if results is None:
        parse.problem = "the page has no results list"
    elif isinstance(results, list):
        parse.sent = len(results)
    for key in _PAGE_ENTITY_KEYS:
        items = data.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, dict):
                canonicalize(item, parse.aliases)
            if not _is_entity_object(item):
                parse.skipped += 1
    if parse.aliases:
        resolve_references(_page_objects(data), parse.aliases)
        _resolve_reference_map(data, parse.aliases)
    return parse


def _page_objects(data: JsonObject) -> list[JsonObject]:
    """The entity objects of a decoded page's entity lists."""
    return [
        item
        for key in _PAGE_ENTITY_KEYS
        if isinstance(data.get(key), list)
        for item in data[key]
        if isinstance(item, dict)
    ]


def _resolve_reference_map(data: JsonObject, aliases: dict[str, str]) -> None:
    """Key ``referencesByResultId`` by canonical ids and point its entries at them."""
    references = data.get("referencesByResultId")
    if not isinstance(references, dict):
        return
    resolved: JsonObject = {}
    for source, entry in references.items():
        canonical = aliases.get(source, source) if isinstance(source, str) else source
        if isinstance(entry, dict) and isinstance(entry.get("contentEntityIds"), list):
            entry = {
                **entry,
                "contentEntityIds": _resolve_targets(entry["contentEntityIds"], aliases),
            }
        if canonical in resolved and source != canonical:
            continue  # the canonical key's own entry wins over an alias's
        resolved[canonical] = entry
    data["referencesByResultId"] = resolved


def _resolve_targets(items: list[Any], aliases: dict[str, str]) -> list[Any]:
    """``contentEntityIds`` items (ids or ``{id, type}``) pointed at canonical ids."""
    resolved: list[Any] = []
    for item in items:
        if isinstance(item, str):
            resolved.append(aliases.get(item, item))
        elif isinstance(item, dict) and isinstance(item.get("id"), str):
            resolved.append({**item, "id": aliases.get(item["id"], item["id"])})
        else:
            resolved.append(item)
    return resolved


class _ParsedPage(ErrorFields):
    """A search page whose entities are keyed by canonical ids, with :class:`PageParse`."""

    _parse: PageParse = PrivateAttr(default_factory=PageParse)

    @property
    def parse(self) -> PageParse:
        """What parsing found: the server's count, skipped items, aliases."""
        return self._parse

    @model_validator(mode="wrap")
    @classmethod
    def _canonical(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        parse = _canonical_page(data) if isinstance(data, dict) else None
        page = handler(data)
        if parse is not None:
            page._parse = parse
        return page


class SearchRawResponse(_ParsedPage):
    results: EntityList = Field(default_factory=list)
    extra_entities: EntityList = Field(default_factory=list, alias="extraEntities")
    references_by_result_id: dict[str, ResultReferences] = Field(
        default_factory=dict, alias="referencesByResultId"
    )
    referenced_entities: EntityList = Field(default_factory=list, alias="referencedEntities")
    referenced_tags: list[TagEntity] = Field(default_factory=list, alias="referencedTags")
    meta: SearchMeta = Field(default_factory=SearchMeta)


def _validate_entity_objects(value: Any) -> list[JsonObject]:
    """Keep the items that are entity objects (a string ``id`` and ``type``), as they are.

    Items that are not entities are skipped and logged, as :data:`EntityList` does; nested
    ``annotations`` and ``references`` are left for the reader of the objects to check.
    """
    if not isinstance(value, list):
        raise ValueError("expected a list of content entities")
    entities = []
    for item in value:
        if (
            isinstance(item, dict)
            and isinstance(item.get("id"), str)
            and isinstance(item.get("type"), str)
        ):
            entities.append(item)
            continue
        _log.warning("skipped an item that is not a content entity: %.200r", item)
    return entities


EntityObjectList = Annotated[list[JsonObject], PlainValidator(_validate_entity_objects)]


class SearchRawPage(_ParsedPage):
    """A raw search response whose entities stay decoded JSON objects.

    For mirroring the library: the cache stores entities as JSON, so building a typed model
    of every entity (and every transcript line) of every page would be work thrown away.
    Everything else is typed as in :class:`SearchRawResponse`.
    """

    results: EntityObjectList = Field(default_factory=list)
    extra_entities: EntityObjectList = Field(default_factory=list, alias="extraEntities")
    references_by_result_id: dict[str, ResultReferences] = Field(
        default_factory=dict, alias="referencesByResultId"
    )
    referenced_entities: EntityObjectList = Field(default_factory=list, alias="referencedEntities")
    referenced_tags: list[TagEntity] = Field(default_factory=list, alias="referencedTags")
    meta: SearchMeta = Field(default_factory=SearchMeta)


class SearchLlmReadyMedia(MemexModel):
    type: str | None = None
    image_description: str | None = Field(default=None, alias="imageDescription")
    transcript_chunks: list[str] | None = Field(default=None, alias="transcriptChunks")
    asset_urls: list[str] | None = Field(default=None, alias="assetUrls")


class SearchLlmReadyReference(MemexModel):
    type: str | None = None
    url: str | None = None
    created_at: str | None = Field(default=None, alias="createdAt")
    title: str | None = None
    text: str | None = None
    media: list[SearchLlmReadyMedia] | None = None
    references: dict[str, SearchLlmReadyReference] | None = None


class SearchLlmReadyNote(SearchLlmReadyReference):
    type: str | None = "annotation"


class SearchLlmReadyResult(SearchLlmReadyReference):
    user_notes: list[SearchLlmReadyNote] | None = None


class SearchLlmReadyResponse(ErrorFields):
    results: list[SearchLlmReadyResult] = Field(default_factory=list)
    meta: SearchMeta = Field(default_factory=SearchMeta)


# --------------------------------------------------------------------------- save responses


class SaveContentEntityResponse(ErrorFields):
    entity: ContentEntity
    entities: EntityList = Field(default_factory=list)
    tags: list[TagEntity] | None = None
    is_new: bool | None = Field(default=None, alias="isNew")


class SaveContentEntityReceiptResponse(ErrorFields):
    ok: bool
    processing_request_id: str = Field(alias="processingRequestId")


class SaveContentByUrlResponse(ErrorFields):
    entity: ContentEntity
    tags: list[TagEntity] = Field(default_factory=list)
    is_new: bool | None = Field(default=None, alias="isNew")


# --------------------------------------------------------------------------- other endpoints
# Their response shapes are not documented (memex-api.md §7, INFERRED); parse leniently.
# The listings' models name the key documented for them; MemexClient also reads their items
# from items/results/data or a bare array and skips an item that does not parse
# (api/client.py, LISTING_FALLBACK_KEYS): these models describe the documented shape only.


class View(MemexModel):
    id: str
    name: str | None = None
    title: str | None = None
    definition: JsonObject | None = None

    @property
    def display_name(self) -> str:
        """The view's name for a person: ``name``, else ``title``, else the id."""
        return self.name or self.title or self.id


class ListViewsResponse(ErrorFields):
    views: list[View] = Field(default_factory=list)


class CreateViewResponse(ErrorFields):
    view: View


class Feed(MemexModel):
    id: str
    title: str | None = None
    feed_url: str | None = None
    site_url: str | None = None
    source_platform: str | None = None


class ListFeedsResponse(ErrorFields):
    feeds: list[Feed] = Field(default_factory=list)


class TagNamesResponse(ErrorFields):
    tag_names: list[str] = Field(default_factory=list, alias="tagNames")


class SharedLink(MemexModel):
    shared_resource_id: str | None = Field(default=None, alias="sharedResourceId")
    access_mode: str | None = Field(default=None, alias="accessMode")
    access: str | None = None
    content_id: str | None = Field(default=None, alias="contentId")
    content_type: str | None = Field(default=None, alias="contentType")
    public_token: str | None = Field(default=None, alias="publicToken")
    url: str | None = None
    created_at: str | None = Field(default=None, alias="createdAt")


class EnsureSharedLinkResponse(ErrorFields):
    link: SharedLink


class ListSharedLinksResponse(ErrorFields):
    links: list[SharedLink] = Field(default_factory=list)


class GetAvailablePlansResponse(AvailablePlansOutput, ErrorFields):
    pass
