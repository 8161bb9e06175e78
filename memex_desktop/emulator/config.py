"""Configuration of the Memex emulator (what library it serves and how it behaves).

Every behaviour switch defaults to what the client assumes about the service. A profile
(:func:`profile_settings`) turns on, together, the switches that behave as first-party evidence
suggests the real service may (``shared/research/memex-api-evidence.md``), so the client's
fallbacks can be tested.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_desktop.emulator.oauth import OAuthConfig

PROFILES = ("default", "first-party")
COLLECTION_KEY_STYLES = ("default", "items", "data", "bare")


@dataclass
class EmulatorConfig:
    """Everything the emulator needs to start; every field has a usable default.

    ``library_path`` (a JSON file) or ``library`` (the same object already decoded) gives the
    content, both in the library-file shape (the raw search response shape plus ``views``,
    ``feeds`` and ``plans``). Neither means an empty library.

    The fields from ``profile`` on are behaviour switches; their defaults agree with the client.
    """

    library_path: Path | None = None
    library: dict[str, Any] | None = None
    # Pictures the library's items show, by site and path (see emulator/media.py).
    media_dir: Path | None = None
    api_key: str = "demo-key"
    # When set, a request that sends ``x-user-id`` must send this value.
    user_id: str | None = None
    # Bearer tokens accepted in ``Authorization: Bearer``; more can be added while running.
    bearer_tokens: frozenset[str] = field(default_factory=frozenset)
    # The OAuth authorization server ("Sign in with Memex"); None turns it off.
    oauth: OAuthConfig | None = field(default_factory=OAuthConfig)
    balance_micros: int = 10_000_000
    subscription_balance_micros: int = 0
    max_page_size: int = 100
    default_page_size: int = 30
    processing_delay_s: float = 2.0
    save_cost_micros: int = 1_000
    rerank_cost_micros: int = 2_000
    # The documented raw example lists a result's notes in its referencesByResultId entry.
    list_notes_in_references: bool = True

    # The network between client and emulator: a latency added to every request (ms), and a
    # link of this many kilobits per second that every response crosses (0: unlimited).
    latency_ms: float = 0.0
    bandwidth_kbps: float = 0.0

    # Informational: the name of the profile these switches came from.
    profile: str = "default"
    # meta.limit echoes the limit asked for (or the default page size); the cap stays silent.
    echo_requested_limit: bool = False
    # N > 0: after LIMIT/OFFSET a search drops the rows whose seq (load/save order, from 1)
    # is a multiple of N, as if their payload could not be built: short pages mid-listing.
    unlisted_every: int = 0
    # > 0: created_at is stored, served, filtered and ordered rounded down to this many ms.
    created_at_resolution_ms: int = 0
    # Equal created_at values are ordered by a hash salted with the request's offset and limit.
    unstable_ties: bool = False
    # Entities are served with id = a per-user library-row id and content_id = the content id.
    distinct_library_ids: bool = False
    # Annotations in search payloads carry no reference_content_ids.
    strip_annotation_references: bool = False
    # /save-content-entity links notes from relatedContentIds only (first-party shared save).
    note_links_from_related_ids: bool = False
    # Highlights are saved as first-party code sends them: the item from sourceContentId, and
    # data fields beyond the known selector fields refused (emulator.saves).
    strict_selectors: bool = False
    # False: saving a note with a known data.external_id creates another note.
    dedupe_notes_by_external_id: bool = True
    # Fields of /save-content-entity and /search refused with 400 "Unknown field: <name>".
    rejected_fields: frozenset[str] = field(default_factory=frozenset)
    # Response key of /list-views, /list-feeds, /get-available-tag-names (COLLECTION_KEY_STYLES).
    collection_keys: str = "default"
    # Types an empty query does not list at top level (still nested and referenced).
    unlisted_types: frozenset[str] = field(default_factory=frozenset)
    # /search pages from 0 whatever offset says (meta.offset still echoes the request).
    ignore_offset: bool = False
    # /search accepts any sortBy and ignores it: an empty query is ordered by a hash of the id.
    ignore_sort_by: bool = False
    # /search accepts viewIds and ignores them: a search asked within a saved view answers
    # from the whole library (the client narrows the answer to the view itself).
    ignore_view_ids: bool = False
    # Set: every request answers 301 with Location = moved_to + the request's path.
    moved_to: str | None = None
    # /find-content-by-url answers the entity saved under a URL (its normalized form). The
    # service names an "exact-URL lookup" only among its MCP actions; that REST serves it
    # is INFERRED, so it is off (404, like any unknown path) unless switched on.
    exact_url_lookup: bool = False

    def __post_init__(self) -> None:
        if self.collection_keys not in COLLECTION_KEY_STYLES:
            raise ValueError(
                f"collection_keys must be one of {', '.join(COLLECTION_KEY_STYLES)},"
                f" not {self.collection_keys!r}"
            )
        for name in ("unlisted_every", "created_at_resolution_ms", "latency_ms", "bandwidth_kbps"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if self.max_page_size < 1 or self.default_page_size < 1:
            raise ValueError("page sizes must be at least 1")


def profile_settings(name: str) -> dict[str, Any]:
    """The :class:`EmulatorConfig` fields a named profile sets (apply overrides after them).

    ``"default"`` agrees with every assumption the client makes. ``"first-party"`` behaves as
    first-party code suggests the real service may (memex-api-evidence.md §2, §4):

    - pages are capped at 40 without saying so, and ``meta.limit`` echoes the request (§2.1);
    - every 7th stored row cannot be listed, so pages come back short mid-listing (§2.1);
    - ``created_at`` has minute resolution and ties are ordered differently per request, as
      ``ORDER BY created_at`` alone does in Postgres (§2.2);
    - ``id`` is the user-library row, ``content_id`` the content (§2.5);
    - annotations in search lose ``reference_content_ids`` (§4.6);
    - note saves take links from ``relatedContentIds`` only, require a source for a note with
      text, and are idempotent only by ``data.id`` (§2.4);
    - highlight saves need ``sourceContentId`` and refuse fields beyond the known selector
      fields (the context of a quote is inferred: §5.2);
    - view, feed and tag lists come under ``items`` (§2.9);
    - selectors are not listed at top level by an empty query (§2.11).

    ``ignore_offset``, ``ignore_sort_by`` and ``moved_to`` are separate variants, not part of
    a profile: each leaves offset paging (or any request) unable to work, which a client should
    detect and report rather than cope with. ``ignore_view_ids`` is one too: a server that
    searches the whole library when asked within a view. ``ValueError`` on an unknown name.
    """
    default: dict[str, Any] = {
        "profile": "default",
        "echo_requested_limit": False,
        "max_page_size": 100,
        "unlisted_every": 0,
        "created_at_resolution_ms": 0,
        "unstable_ties": False,
        "distinct_library_ids": False,
        "strip_annotation_references": False,
        "note_links_from_related_ids": False,
        "strict_selectors": False,
        "dedupe_notes_by_external_id": True,
        "collection_keys": "default",
        "unlisted_types": frozenset(),
    }
    if name == "default":
        return default
    if name == "first-party":
        return {
            **default,
            "profile": "first-party",
            "echo_requested_limit": True,
            "max_page_size": 40,
            "unlisted_every": 7,
            "created_at_resolution_ms": 60_000,
            "unstable_ties": True,
            "distinct_library_ids": True,
            "strip_annotation_references": True,
            "note_links_from_related_ids": True,
            "strict_selectors": True,
            "dedupe_notes_by_external_id": False,
            "collection_keys": "items",
            "unlisted_types": frozenset({"selector"}),
        }
    raise ValueError(f"unknown emulator profile {name!r}; known: {', '.join(PROFILES)}")
