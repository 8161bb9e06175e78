"""The live state of one emulator: library, tags, views, feeds, links, balance, request log.

Every public method takes the state's lock, so tests may inspect or change the state (delete an
entity, top up the balance, add a bearer token) from their own thread while the server runs.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from memex_desktop.api.models import AvailablePlansOutput
from memex_desktop.emulator.config import EmulatorConfig
from memex_desktop.emulator.database import EntityDatabase, dumps
from memex_desktop.emulator.library import (
    SEARCH_DECORATIONS,
    JsonObject,
    derive_references,
    is_library_lines,
    load_library_file,
    now_ms,
    read_library_lines,
    url_host,
)
from memex_desktop.emulator.oauth import OAuthServer
from memex_desktop.emulator.served import Presenter

DEFAULT_PLANS: JsonObject = {
    "environment": "development",
    "isProduction": False,
    "defaultPlanId": "plan-starter-10",
    "plans": [
        {
            "id": "plan-starter-10",
            "tierId": "starter",
            "planName": "Starter usage pack",
            "pricingMode": "payg",
            "billingPeriod": "one_time",
            "variantId": "variant-starter-10",
            "currency": "USD",
            "amount": 10,
            "usageBalanceMicrosIncluded": 10_000_000,
            "isSubscription": False,
        },
        {
            "id": "plan-unlimited-monthly",
            "tierId": "unlimited",
            "planName": "Unlimited",
            "pricingMode": "subscription",
            "billingPeriod": "monthly",
            "variantId": 42,
            "currency": "USD",
            "amount": 12,
            "usageBalanceMicrosIncluded": 50_000_000,
            "isSubscription": True,
        },
    ],
    "recoveryHint": "Buy a usage pack or subscribe at https://memex.garden/pricing.",
}


@dataclass(frozen=True)
class RequestRecord:
    """One request as the emulator saw it (which credentials came, never their values)."""

    method: str
    path: str
    has_api_key: bool
    has_bearer: bool
    has_user_id: bool


class EmulatorState:
    """Library, account and bookkeeping of a running emulator (thread-safe)."""

    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.lock = threading.RLock()
        self.presenter = Presenter(config)
        self.db = EntityDatabase(
            created_at_resolution_ms=config.created_at_resolution_ms,
            library_id=self.presenter.library_id if config.distinct_library_ids else None,
        )
        self.tags: dict[str, JsonObject] = {}
        self.views: dict[str, JsonObject] = {}
        self.feeds: list[JsonObject] = []
        self.plans: JsonObject = DEFAULT_PLANS
        self.links: dict[str, JsonObject] = {}
        self.bearer_tokens: set[str] = set(config.bearer_tokens)
        self.oauth = OAuthServer(config.oauth) if config.oauth is not None else None
        self.balance_payg_micros = config.balance_micros
        self.balance_subscription_micros = config.subscription_balance_micros
        self.processing_delay_s = config.processing_delay_s
        self.requests: list[RequestRecord] = []
        self.processing_requests: dict[str, str] = {}
        path = config.library_path if config.library is None else None
        if path is not None and is_library_lines(path):
            extras, pairs = read_library_lines(path)
            self._load_extras(extras)
            self._load_entities(pairs)
        else:
            library = load_library_file(path) if path is not None else config.library
            self._load_library(library or {})

    # ----------------------------------------------------------------------------- loading

    def _load_library(self, library: JsonObject) -> None:
        """Fill the store from a library object (raw search shape plus views/feeds/plans)."""
        self._load_extras(library)
        entities = _flatten_entities(library)
        given_refs = library.get("referencesByResultId")
        given_refs = given_refs if isinstance(given_refs, dict) else {}
        self._load_entities(
            ((entity, given_refs.get(entity["id"])) for entity in entities),
            {str(entity["id"]): str(entity["type"]) for entity in entities},
        )

    def _load_extras(self, library: JsonObject) -> None:
        """Take a library's tags, feeds, views and plans (everything but its entities)."""
        for tag in library.get("referencedTags") or []:
            if isinstance(tag, dict) and isinstance(tag.get("id"), str):
                self.tags[tag["id"]] = tag
        for feed in library.get("feeds") or []:
            if isinstance(feed, dict) and isinstance(feed.get("id"), str):
                self.feeds.append(feed)
                # Matching by host only makes sense for a site's own feed, not a platform's.
                host = url_host(feed.get("site_url"))
                if host and feed.get("source_platform") in (None, "rss", "web", "substack"):
                    self.db.feeds_by_host.setdefault(host, feed["id"])
        for view in library.get("views") or []:
            if isinstance(view, dict) and isinstance(view.get("id"), str):
                self.views[view["id"]] = view
        plans = library.get("plans")
        if isinstance(plans, dict):
            AvailablePlansOutput.model_validate(plans)
            self.plans = plans

    def _load_entities(
        self, given: Iterable[tuple[JsonObject, Any]], all_types: dict[str, str] | None = None
    ) -> None:
        """Store ``(entity, references entry or None)`` pairs, the first of an id winning.

        An entity without a references entry has one derived, which tells a reply by the type
        of its parent: from ``all_types`` (every entity's type by id) when given, else from
        the entities stored before it, as in a streamed library that lists a note after what
        it answers.
        """
        types: dict[str, str] = {}
        known = types if all_types is None else all_types

        def pairs() -> Iterator[tuple[JsonObject, JsonObject]]:
            for entity, refs in given:
                entity_id, kind = entity.get("id"), entity.get("type")
                if not isinstance(entity_id, str) or not isinstance(kind, str):
                    continue
                if entity_id in types:
                    continue
                types[entity_id] = kind
                entity = _storable(entity)
                yield entity, refs if isinstance(refs, dict) else derive_references(entity, known)

        with self.lock:
            self.db.bulk_load(pairs())

    # ----------------------------------------------------------------------------- entities

    def promote_due(self) -> None:
        """Finish processing of saves whose delay has passed (pending -> indexing-done)."""
        with self.lock:
            for row in self.db.due_for_indexing(time.monotonic()):
                entity = row.data()
                metadata = dict(entity.get("metadata") or {})
                metadata["status"] = "indexing-done"
                entity["metadata"] = metadata
                entity["updated_at"] = now_ms()
                self.db.put(entity, _loads_object(row.refs), ready=True)

    def entity(self, entity_id: str) -> JsonObject | None:
        """An entity as stored (pending ones too; by content or library-row id), or ``None``."""
        with self.lock:
            self.promote_due()
            content_id = self.db.resolve(entity_id)
            row = None if content_id is None else self.db.get(content_id)
            return None if row is None else row.data()

    def entity_ids(self) -> list[str]:
        """Every entity's (content) id, pending ones included."""
        with self.lock:
            return self.db.ids()

    def content_id_of(self, entity_id: str) -> str | None:
        """The content id of an existing entity named by either of its ids, else ``None``."""
        with self.lock:
            return self.db.resolve(entity_id)

    def served_id(self, content_id: str) -> str:
        """The ``id`` responses carry for an entity: its library-row id under
        ``distinct_library_ids``, else the content id itself."""
        return self.presenter.served_id(content_id)

    def unlisted_ids(self) -> set[str]:
        """Content ids no top-level listing (empty query) can ever return.

        The rows ``unlisted_every`` drops and the entities of ``unlisted_types``; every other
        entity is listed once it is processed. Both kinds may still arrive nested under their
        parents (``includeNotes``) or in ``referencedEntities``.
        """
        with self.lock:
            return self.db.unlisted(self.config.unlisted_every, self.config.unlisted_types)

    def put_entity(self, entity: JsonObject, *, refs: JsonObject | None = None) -> None:
        """Add or replace an entity server-side, immediately searchable (for tests)."""
        with self.lock:
            if refs is None:
                known = self.db.get_many(
                    [str(item) for item in entity.get("reference_content_ids") or []]
                )
                refs = derive_references(entity, {key: row.type for key, row in known.items()})
            self.db.put(entity, refs, ready=True)

    def delete_entity(self, entity_id: str) -> bool:
        """Delete an entity server-side (as if removed in another app); ``False`` if absent."""
        with self.lock:
            content_id = self.db.resolve(entity_id)
            if content_id is None:
                return False
            self.links.pop(content_id, None)
            return self.db.delete(content_id)

    # ----------------------------------------------------------------------------- account

    def add_bearer_token(self, token: str) -> None:
        """Accept a bearer token from now on (an OAuth flow issues these)."""
        with self.lock:
            self.bearer_tokens.add(token)

    def revoke_bearer_token(self, token: str) -> None:
        """Stop accepting a bearer token (expired or revoked)."""
        with self.lock:
            self.bearer_tokens.discard(token)

    def set_balance(self, payg_micros: int, subscription_micros: int = 0) -> None:
        """Set the usage balance (tests drive 402 paths with this)."""
        with self.lock:
            self.balance_payg_micros = payg_micros
            self.balance_subscription_micros = subscription_micros

    @property
    def balance_micros(self) -> int:
        """The total remaining usage balance in micros."""
        with self.lock:
            return self.balance_payg_micros + self.balance_subscription_micros

    def try_charge(self, micros: int) -> bool:
        """Deduct ``micros`` (subscription first); ``False`` and no change if not covered."""
        with self.lock:
            if micros <= 0:
                return True
            if micros > self.balance_micros:
                return False
            from_subscription = min(micros, self.balance_subscription_micros)
            self.balance_subscription_micros -= from_subscription
            self.balance_payg_micros -= micros - from_subscription
            return True

    def remaining_balance(self) -> JsonObject:
        """``remainingUsageBalance`` of search meta."""
        with self.lock:
            return {
                "usageBalancePaygMicros": self.balance_payg_micros,
                "usageBalanceSubscriptionMicros": self.balance_subscription_micros,
                "total": self.balance_micros,
            }

    def set_processing_delay(self, seconds: float) -> None:
        """Change how long new saves stay ``pending`` (applies to later saves)."""
        with self.lock:
            self.processing_delay_s = seconds

    def record_request(self, record: RequestRecord) -> None:
        """Remember a request (kept for tests that check which headers arrived)."""
        with self.lock:
            self.requests.append(record)
            del self.requests[:-1000]

    def close(self) -> None:
        """Release the database (the state is unusable afterwards)."""
        with self.lock:
            self.db.close()

    def referenced_tags_json(self, tag_ids: list[str]) -> str:
        """The JSON array of the known tags among ``tag_ids`` (in that order, no repeats)."""
        with self.lock:
            tags = [self.tags[tag] for tag in dict.fromkeys(tag_ids) if tag in self.tags]
        return dumps(tags)


def _loads_object(text: str) -> JsonObject:
    """Decode a stored JSON object."""
    value = json.loads(text)
    return value if isinstance(value, dict) else {}


def _flatten_entities(library: JsonObject) -> list[JsonObject]:
    """Every entity of a library, without search decorations, first occurrence winning.

    Top-level lists come first (they hold complete entities); entities nested under
    ``annotations``/``references`` (a library dumped from a raw search with notes) follow.
    """
    seen: set[str] = set()
    flat: list[JsonObject] = []
    level: list[Any] = []
    for key in ("results", "extraEntities", "referencedEntities"):
        items = library.get(key)
        if isinstance(items, list):
            level.extend(items)
    while level:
        deeper: list[Any] = []
        for entity in level:
            if not isinstance(entity, dict):
                continue
            entity_id, kind = entity.get("id"), entity.get("type")
            if not isinstance(entity_id, str) or not isinstance(kind, str):
                continue
            for key in SEARCH_DECORATIONS:
                items = entity.get(key)
                if isinstance(items, list):
                    deeper.extend(items)
            if entity_id in seen:
                continue
            seen.add(entity_id)
            flat.append(_storable(entity))
        level = deeper
    return flat


def _storable(entity: JsonObject) -> JsonObject:
    """The entity without search decorations and with ``metadata`` (copied only if needed)."""
    if not any(key in entity for key in SEARCH_DECORATIONS) and isinstance(
        entity.get("metadata"), dict
    ):
        return entity
    stored = {key: value for key, value in entity.items() if key not in SEARCH_DECORATIONS}
    if not isinstance(stored.get("metadata"), dict):
        stored["metadata"] = {"status": "indexing-done"}
    return stored
