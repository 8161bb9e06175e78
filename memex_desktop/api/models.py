"""Pydantic models of the Memex API contract (the official "Response shape" page).

Every model keeps fields it does not declare (``extra="allow"``), so whatever the server adds
survives into the cache. Content entities are parsed by :func:`parse_content_entity`, which
picks the model for ``type`` and falls back to :class:`OtherContentEntity` for types this client
does not know (``pdf``, ``chatThread``, ``selector``, ...) or for data that does not fit the typed
model: nothing the server sent is dropped, and every entity keeps its raw JSON in ``raw``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PlainSerializer,
    PlainValidator,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    WrapValidator,
    model_validator,
)

from memex_desktop.api.content import epoch_ms, finite_number, is_timestamp
from memex_desktop.api.identity import (
    NESTED_ENTITY_KEYS,
    canonical_id,
    canonicalize,
    resolve_references,
)

_log = logging.getLogger(__name__)

JsonObject = dict[str, Any]


def _sane_timestamp(value: Any) -> Any:
    """A wire timestamp as given when it reads as one (up to the year 9999).

    Raises:
        ValueError: it is not one; the model drops the field (see :class:`MemexModel`).
    """
    if value is None or epoch_ms(value) is not None:
        return value
    raise ValueError(f"not a timestamp: {value!r:.100}")


# Timestamps are documented as numbers (epoch milliseconds), but older payloads and the
# compact shape carry ISO strings; accept both rather than reject a whole page. Anything
# epoch_ms cannot read (NaN, 2**70, a list) is no time at all: SQLite could not even store it.
Timestamp = Annotated[int | float | str | None, BeforeValidator(_sane_timestamp)]


def _finite(value: int | float) -> int | float:
    """A number that a float can hold (pydantic refuses NaN and infinities already).

    Raises:
        ValueError: an integer past float's range (10**400); the model drops the field.
    """
    if not finite_number(value):
        raise ValueError("a number too large for a float")
    return value


# A JSON number every layer can do arithmetic and formatting with.
Number = Annotated[int | float, AfterValidator(_finite)]

# The extra field holding, as sent, the fields a model dropped.
INVALID_FIELDS_KEY = "invalid_fields"
# A validation context key: fail instead of dropping fields (to try another model first).
_EXACT_FIELDS = "exact_fields"
# How many times a model drops the fields that did not fit before it gives up (a second
# round catches a container whose pruned item was not the only problem).
_PRUNING_ROUNDS = 2


class MemexModel(BaseModel):
    """Base of every API model: unknown keys are kept, field names are the wire names.

    Parsing is total per field: a declared field whose value does not fit (a number where a
    list belongs, NaN, an infinity) is dropped with a logged warning and the rest of the
    object kept; a bad item of a list or a dict field costs that item only. Only an object
    that lacks a required field after that (an entity without an id) is refused.
    """

    # defer_build: each model's validator is built on its first use, not at import: the
    # window's first frame validates nothing, and importing this module took 91 ms with the
    # validators built, 48 ms without (pydantic's search for plugins, part of the difference,
    # then comes with the settings' model). Thread-safe from pydantic 2.14: the first uses
    # of a model on two threads build it once, under pydantic's lock.
    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        protected_namespaces=(),
        allow_inf_nan=False,
        defer_build=True,
    )
    # Wire keys whose wrong shape makes the whole object unreadable rather than the field
    # absent (a page whose ``results`` is not a list is not an empty page).
    whole_or_nothing: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="wrap")
    @classmethod
    def _total(
        cls, data: Any, handler: ModelWrapValidatorHandler[Any], info: ValidationInfo
    ) -> Any:
        try:
            return handler(data)
        except ValidationError as exc:
            if not isinstance(data, dict) or (info.context or {}).get(_EXACT_FIELDS):
                raise
            error = exc
        for _round in range(_PRUNING_ROUNDS):
            pruned = _pruned(cls, data, error)
            if pruned is None:
                raise error
            data = pruned
            try:
                return handler(data)
            except ValidationError as exc:
                error = exc
        raise error

    def to_json_dict(self) -> JsonObject:
        """The model as the JSON object it was parsed from (declared, extra and nested keys)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _pruned(model: type[BaseModel], data: JsonObject, error: ValidationError) -> JsonObject | None:
    """``data`` without what ``error`` names (a key, or items of a list or dict field), or
    None when nothing can be dropped (a required field is missing, the object is not one)."""
    whole: set[str] = set()
    items: dict[str, set[int | str]] = {}
    for problem in error.errors():
        loc = problem["loc"]
        key = _wire_key(model, data, loc[0]) if loc else None
        if key is None:
            continue
        value = data[key]
        inner = loc[1] if len(loc) > 1 else None
        if (isinstance(value, list) and isinstance(inner, int) and 0 <= inner < len(value)) or (
            isinstance(value, dict) and isinstance(inner, str) and inner in value
        ):
            items.setdefault(key, set()).add(inner)
        else:
            whole.add(key)
    if (not whole and not items) or whole & getattr(model, "whole_or_nothing", frozenset()):
        return None
    kept = {key: value for key, value in data.items() if key not in whole}
    # Kept aside, unchanged, so that nothing the server sent is lost from the model.
    aside = kept.get(INVALID_FIELDS_KEY)
    kept[INVALID_FIELDS_KEY] = {
        **(aside if isinstance(aside, dict) else {}),
        **{key: data[key] for key in (*whole, *items)},
    }
    for key, bad in items.items():
        value = kept.get(key)
        if isinstance(value, list):
            kept[key] = [item for index, item in enumerate(value) if index not in bad]
        elif isinstance(value, dict):
            kept[key] = {name: item for name, item in value.items() if name not in bad}
    dropped = sorted(whole) + [f"{key}[{item!r}]" for key, bad in items.items() for item in bad]
    _log.warning(
        "%s: dropped fields that do not fit the contract: %.300s",
        model.__name__,
        ", ".join(dropped),
    )
    return kept


def _wire_key(model: type[BaseModel], data: JsonObject, name: object) -> str | None:
    """The key of ``data`` that an error location names (by alias or by field name)."""
    if not isinstance(name, str):
        return None
    if name in data:
        return name
    field = model.model_fields.get(name)
    if field is not None and field.alias in data:
        return field.alias
    return next(
        (key for key, info in model.model_fields.items() if info.alias == name and key in data),
        None,
    )


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
    bitrate: Number | None = None


class TweetVideo(MemexModel):
    variants: list[TweetVideoVariant] = Field(default_factory=list)
    duration: Number | None = None
    preview_url: str | None = None


class ImageAnalysis(MemexModel):
    description: str | None = None


class TweetContentEntity(ContentEntityBase):
    type: Literal["twitter"] = "twitter"
    author_name: str | None = None
    author_handle: str | None = None
    title: str | None = None
    text: str | None = None
    published_at: Number | None = None
    save_type: str | None = None
    videos: list[TweetVideo] | None = None
    images: list[str] | None = None
    image_analysis: dict[str, ImageAnalysis] | None = None


class TranscriptSegment(MemexModel):
    offset: str | Number = 0
    text: str = ""
    duration: Number | None = None


class YoutubeContentEntity(ContentEntityBase):
    type: Literal["youtube"] = "youtube"
    title: str | None = None
    description: str | None = None
    thumbnail_url: str | None = None
    published_at: Number | None = None
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
        The typed entity; :class:`OtherContentEntity` when the type is unknown. Declared
        fields that do not fit are moved, unchanged, into an ``invalid_fields`` extra (see
        :class:`MemexModel`). ``raw`` holds ``data`` itself, which callers must not mutate.

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
        entity = model.model_validate(data, context={_EXACT_FIELDS: True})
    except ValidationError:
        # A known type whose fields do not fit is shown field by field, nothing hidden.
        entity = OtherContentEntity.model_validate(data)
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


# --------------------------------------------------------------------------- tags, plans, meta


class TagEntity(MemexModel):
    id: str
    name: str | None = None  # without one the tag is named by its id, not lost
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
    amount: Number | None = None
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
    usage_balance_payg_micros: Number | None = Field(default=None, alias="usageBalancePaygMicros")
    usage_balance_subscription_micros: Number | None = Field(
        default=None, alias="usageBalanceSubscriptionMicros"
    )
    total: Number | None = None


class RemainingCredits(MemexModel):
    """The older billing generation (``creditsPAYG`` / ``creditsSubscription``)."""

    credits_payg: Number | None = Field(default=None, alias="creditsPAYG")
    credits_subscription: Number | None = Field(default=None, alias="creditsSubscription")
    total: Number | None = None


class SearchMeta(MemexModel):
    """Paging and billing information of one search; both billing generations parse."""

    offset: int | None = None
    limit: int | None = None
    returned_count: int | None = Field(default=None, alias="returnedCount")
    rerank_applied: bool | None = Field(default=None, alias="rerankApplied")
    usage_micros_charged: Number | None = Field(default=None, alias="usageMicrosCharged")
    remaining_usage_balance: RemainingUsageBalance | None = Field(
        default=None, alias="remainingUsageBalance"
    )
    credits_charged: Number | None = Field(default=None, alias="creditsCharged")
    remaining_credits: RemainingCredits | None = Field(default=None, alias="remainingCredits")

    @property
    def remaining_balance_micros(self) -> float | None:
        """The remaining usage balance in micros (newer generation) when reported."""
        balance = self.remaining_usage_balance
        total = None if balance is None else balance.total
        return float(total) if total is not None and finite_number(total) else None


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
    """An object with a non-empty string ``id`` and a string ``type``: what a page's entity
    lists must hold."""
    if not isinstance(item, dict):
        return False
    entity_id = item.get("id")
    return isinstance(entity_id, str) and bool(entity_id) and isinstance(item.get("type"), str)


# --------------------------------------------------------------------------- entity objects
# Entities mirrored into the cache stay decoded JSON (no typed model is built): these make
# the fields every layer walks (nested entities, id lists, times) safe to walk.

UNREADABLE_TYPE = "unreadable"
UNREADABLE_TITLE = "This item could not be read"
# The key of a stand-in entity holding the item exactly as the server sent it.
UNREADABLE_VALUE_KEY = "unreadable"
_ID_LIST_KEYS = ("tag_ids", "reference_content_ids")
_TIME_KEYS = ("created_at", "updated_at")
# Notes of notes of ...: deeper nesting than this is hostile, not a thread.
_MAX_NESTED_DEPTH = 32


def readable_entity(item: Any, depth: int = 0) -> JsonObject | None:
    """``item`` as an entity object every reader can walk, or None when it is not one.

    A nested-entity field that is not a list and an id list that is not one are dropped, a
    time that is no time (NaN, 2**70) becomes null (with a logged warning); nested items that
    are not entities are left out. The rest of the item is kept as sent: an item needing none
    of this is returned itself, a repaired one as a copy. (A NaN elsewhere is stored as null
    and refused by the typed model of the reader, field by field.)
    """
    if not _is_entity_object(item):
        return None
    return item if _walkable(item, depth) else _repaired_entity(item, depth)


def _walkable(item: JsonObject, depth: int) -> bool:
    """Whether :func:`readable_entity` has nothing to repair (a fast test: every item of
    every synced page takes it)."""
    for key in _ID_LIST_KEYS:
        value = item.get(key)
        if value is not None and not isinstance(value, list):
            return False
    for key in _TIME_KEYS:
        value = item.get(key)
        if value is not None and not is_timestamp(value):
            return False
    for key in NESTED_ENTITY_KEYS:
        nested = item.get(key)
        if nested is None:
            continue
        if not isinstance(nested, list) or depth >= _MAX_NESTED_DEPTH:
            return False
        for inner in nested:
            if not _is_entity_object(inner) or not _walkable(inner, depth + 1):
                return False
    return True


def _repaired_entity(item: JsonObject, depth: int) -> JsonObject:
    """A copy of an entity object without what :func:`readable_entity` drops."""
    fixed = dict(item)
    dropped: list[str] = []
    for key in _ID_LIST_KEYS:
        if fixed.get(key) is not None and not isinstance(fixed[key], list):
            del fixed[key]
            dropped.append(key)
    for key in _TIME_KEYS:
        if fixed.get(key) is not None and not is_timestamp(fixed[key]):
            fixed[key] = None
            dropped.append(key)
    for key in NESTED_ENTITY_KEYS:
        nested = fixed.get(key)
        if nested is None:
            continue
        if not isinstance(nested, list) or depth >= _MAX_NESTED_DEPTH:
            del fixed[key]
            dropped.append(key)
            continue
        readable = [found for found in (readable_entity(n, depth + 1) for n in nested) if found]
        fixed[key] = readable
        if len(readable) != len(nested):
            dropped.append(f"{len(nested) - len(readable)} items of {key}")
    if dropped:
        _log.warning("entity %.80s: dropped what is not readable: %s", item["id"], dropped)
    return fixed


def unreadable_entity(value: Any) -> JsonObject:
    """A stand-in entity for an item that is not one: kept, with its raw JSON, and shown
    as unreadable instead of being lost.

    Its id is the item's own string id when it has one, else one made from its JSON (the
    same item sent again is the same stand-in).
    """
    own = value.get("id") if isinstance(value, dict) else None
    if isinstance(own, str) and own:
        entity_id = own
    else:
        entity_id = "unreadable-" + hashlib.blake2b(_json_text(value), digest_size=8).hexdigest()
    return {
        "id": entity_id,
        "type": UNREADABLE_TYPE,
        "title": f"{UNREADABLE_TITLE} (id {entity_id})",
        UNREADABLE_VALUE_KEY: value,
    }


def _json_text(value: Any) -> bytes:
    """A stable serialization of any decoded JSON value (for naming it)."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)
    except (ValueError, TypeError, RecursionError):
        text = f"{type(value).__name__}:{len(value) if isinstance(value, list | dict) else ''}"
    return text.encode()


class PageParse(BaseModel, defer_build=True):
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

    whole_or_nothing: ClassVar[frozenset[str]] = frozenset({"results"})

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
    """The items of a page's entity list as readable entity objects (see
    :func:`readable_entity`); an item that is not one is kept as :func:`unreadable_entity`."""
    if not isinstance(value, list):
        raise ValueError("expected a list of content entities")
    entities = []
    for item in value:
        readable = readable_entity(item)
        if readable is None:
            _log.warning("kept an item that is not a content entity as unreadable: %.200r", item)
            readable = unreadable_entity(item)
        entities.append(readable)
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
