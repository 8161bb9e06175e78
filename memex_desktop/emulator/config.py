"""Configuration of the Memex emulator (what library it serves and how it behaves)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_desktop.emulator.oauth import OAuthConfig


@dataclass
class EmulatorConfig:
    """Everything the emulator needs to start; every field has a usable default.

    ``library_path`` (a JSON file) or ``library`` (the same object already decoded) gives the
    content, both in the library-file shape (the raw search response shape plus ``views``,
    ``feeds`` and ``plans``). Neither means an empty library.
    """

    library_path: Path | None = None
    library: dict[str, Any] | None = None
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
