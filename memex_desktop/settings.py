"""The person's settings: declared once, with descriptions, saved as JSON (never the API key).

The file lives in :func:`memex_desktop.paths.config_dir` and is replaced atomically (write a
temporary file, fsync, rename) so a crash never leaves half a settings file. The API key is not
a setting: it lives in the keyring (:mod:`memex_desktop.secrets`), and :meth:`Settings.save`
refuses to write anything that looks like one.

The environment variables of the official Memex plugins are honoured too, in their order
(:func:`api_url_from_environment`, :func:`given_credential`); the window and the command line
both reach them through :func:`memex_desktop.services.connect` only.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from memex_desktop import paths

_log = logging.getLogger(__name__)

SETTINGS_FILE_NAME = "settings.json"
# The official plugins' names: the REST base, the older name of it, and the MCP endpoint (the
# REST base is its URL without "/mcp"). Consulted in this order, after --api-url.
API_BASE_URL_ENV = "MEMEX_API_BASE_URL"
API_URL_ENV = "MEMEX_API_URL"
MCP_URL_ENV = "MEMEX_MCP_URL"
# A bearer token wins over an API key, as in the plugins; both lose to --api-key.
BEARER_TOKEN_ENV = "MEMEX_BEARER_TOKEN"
API_KEY_ENV = "MEMEX_API_KEY"
USER_ID_ENV = "MEMEX_USER_ID"
# Every variable that says where to connect and as whom (tests clear them all).
CONNECTION_ENV_VARS = (
    API_BASE_URL_ENV,
    API_URL_ENV,
    MCP_URL_ENV,
    BEARER_TOKEN_ENV,
    API_KEY_ENV,
    USER_ID_ENV,
)
DEFAULT_API_URL = "https://memex.garden/api"
DEFAULT_READER_ITEM_TEXT_MB = 8.0
# The reader's picture cache; the same number as render.image_cache (settings imports paths only).
DEFAULT_IMAGE_CACHE_MB = 200.0

RemoteSearchMode = Literal["off", "on_demand", "as_you_type"]
ThemeSetting = Literal["system", "light", "dark"]

# Keys that must never reach the settings file, whatever a caller passes as extra data.
_FORBIDDEN_KEYS = frozenset({"api_key", "apikey", "x-api-key", "bearer_token", "token", "password"})


class Settings(BaseModel):
    """Every setting of memex-desktop; the README lists each one (a test checks it)."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    api_url: str = Field(
        default=DEFAULT_API_URL,
        description=(
            "Base URL of the Memex API (--api-url, MEMEX_API_BASE_URL, MEMEX_API_URL and "
            "MEMEX_MCP_URL override it)."
        ),
    )
    user_id: str | None = Field(
        default=None,
        description=(
            "Optional Memex user id sent as x-user-id with an API key (MEMEX_USER_ID overrides it)."
        ),
    )
    data_dir: Path | None = Field(
        default=None,
        description=(
            "Folder of the local cache and the outbox; empty means the platform's user data "
            "folder (MEMEX_DATA_DIR and --data-dir override it)."
        ),
    )
    sync_interval_minutes: int = Field(
        default=15,
        ge=0,
        le=24 * 60,
        description="Minutes between background syncs while the window is open; 0 turns them off.",
    )
    reconcile_interval_hours: int = Field(
        default=24,
        ge=1,
        le=24 * 30,
        description=(
            "Hours between complete id passes that find items deleted on the server "
            "(`sync --full` runs one at once)."
        ),
    )
    page_size: int = Field(
        default=100,
        ge=1,
        le=1000,
        description="Items asked for per search page while syncing (servers may cap it lower).",
    )
    sync_max_in_flight: int = Field(
        default=16,
        ge=1,
        le=64,
        description=(
            "Most page requests a full sync keeps under way while the server answers as fast "
            "with more of them; 1 asks for one page at a time."
        ),
    )
    remote_search_mode: RemoteSearchMode = Field(
        default="on_demand",
        description=(
            "When the search bar also asks the server: off, on_demand (Enter or --remote), "
            "or as_you_type."
        ),
    )
    request_timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="Overall deadline of one API request in seconds.",
    )
    outbox_max_backoff_s: float = Field(
        default=300.0,
        gt=0,
        le=24 * 3600,
        description="Longest wait between two attempts to send a queued save.",
    )
    allow_remote_images: bool = Field(
        default=False,
        description="Load remote images in the reader for every item (off: per item on request).",
    )
    image_cache_mb: float = Field(
        default=DEFAULT_IMAGE_CACHE_MB,
        ge=0,
        le=100_000,
        description=(
            "Most space the pictures loaded on request take in the data folder (images.db), "
            "in MB; past it the pictures shown longest ago are dropped. 0 keeps none."
        ),
    )
    reader_text_size_percent: int = Field(
        default=100,
        ge=50,
        le=300,
        description=(
            "Size of the reader's text, in percent of its own (Ctrl+= and Ctrl+- change it "
            "and keep it here)."
        ),
    )
    theme: ThemeSetting = Field(
        default="system",
        description=(
            "Colours of the window, the reader, the results list and the graph: system "
            "(follow the desktop's light or dark scheme), light or dark."
        ),
    )
    reader_item_text_mb: float = Field(
        default=DEFAULT_READER_ITEM_TEXT_MB,
        gt=0,
        le=1024,
        description=(
            "Most text of one item the reader shows at once, in MB (millions of characters); "
            "a bigger item opens cut there, clearly marked, with an action to show the rest."
        ),
    )
    transcript_language: str | None = Field(
        default=None,
        description="Preferred transcript language code (e.g. en); empty means the first one.",
    )

    @classmethod
    def path(cls, config_dir: Path | None = None) -> Path:
        """Where the settings file lives."""
        return (config_dir or paths.config_dir()) / SETTINGS_FILE_NAME

    @classmethod
    def load(cls, config_dir: Path | None = None) -> Settings:
        """Read the settings file; defaults when it is missing or unreadable (logged, kept)."""
        path = cls.path(config_dir)
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:
            _log.warning("settings file %s unreadable, using defaults: %s", path, exc)
            return cls()
        if not isinstance(data, dict):
            _log.warning("settings file %s is not a JSON object, using defaults", path)
            return cls()
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            _log.warning("settings file %s has invalid values, using defaults: %s", path, exc)
            valid = {}
            for key, value in data.items():
                try:
                    cls.model_validate({key: value})
                except ValidationError:
                    continue
                valid[key] = value
            return cls.model_validate(valid)

    def save(self, config_dir: Path | None = None) -> Path:
        """Write the settings atomically (temp file, fsync, rename); returns the file's path."""
        data = self.model_dump(mode="json")
        leaked = _FORBIDDEN_KEYS & {key.lower() for key in data}
        if leaked:  # pragma: no cover - the model declares no such field
            raise ValueError(f"refusing to write secrets to the settings file: {sorted(leaked)}")
        path = self.path(config_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        _keep_unreadable(path)
        text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        paths.write_text_atomically(path, text)
        return path

    def effective_api_url(
        self, override: str | None = None, environ: Mapping[str, str] | None = None
    ) -> str:
        """The API URL to use: an explicit override (--api-url), else the environment
        (:func:`api_url_from_environment`), else the setting."""
        url = (override or "").strip() or api_url_from_environment(environ) or self.api_url
        return url.rstrip("/")

    def effective_user_id(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The ``x-user-id`` sent with an API key: MEMEX_USER_ID, else the setting."""
        env = os.environ if environ is None else environ
        return env.get(USER_ID_ENV, "").strip() or self.user_id or None

    def effective_data_dir(self, override: Path | str | None = None) -> Path:
        """The data folder: an explicit override, else MEMEX_DATA_DIR, else the setting."""
        if override:
            return Path(override).expanduser()
        if os.environ.get(paths.DATA_DIR_ENV):
            return paths.default_data_dir()
        if self.data_dir is not None:
            return self.data_dir.expanduser()
        return paths.default_data_dir()


def api_url_from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The API URL the environment names, in the plugins' order: MEMEX_API_BASE_URL, else
    MEMEX_API_URL, else MEMEX_MCP_URL without its trailing ``/mcp``; None when none is set."""
    env = os.environ if environ is None else environ
    for name in (API_BASE_URL_ENV, API_URL_ENV):
        value = env.get(name, "").strip()
        if value:
            return value
    mcp = env.get(MCP_URL_ENV, "").strip().rstrip("/")
    if mcp.endswith("/mcp"):
        mcp = mcp[: -len("/mcp")]
    return mcp or None


CredentialKind = Literal["api-key", "bearer"]


@dataclass(frozen=True)
class GivenCredential:
    """A credential given for this run (a flag or the environment); kept in memory only.

    ``source`` names where it came from (``--api-key``, ``MEMEX_BEARER_TOKEN`` or
    ``MEMEX_API_KEY``), for messages; the secret's ``repr`` is masked.
    """

    kind: CredentialKind
    secret: SecretStr
    source: str


def given_credential(
    flag: str | None, environ: Mapping[str, str] | None = None
) -> GivenCredential | None:
    """The credential given for this run: --api-key, else MEMEX_BEARER_TOKEN (bearer; it wins
    over a key, as in the plugins), else MEMEX_API_KEY; None means "use the stored one"."""
    if flag and flag.strip():
        return GivenCredential("api-key", SecretStr(flag.strip()), "--api-key")
    env = os.environ if environ is None else environ
    token = env.get(BEARER_TOKEN_ENV, "").strip()
    if token:
        return GivenCredential("bearer", SecretStr(token), BEARER_TOKEN_ENV)
    key = env.get(API_KEY_ENV, "").strip()
    if key:
        return GivenCredential("api-key", SecretStr(key), API_KEY_ENV)
    return None


def setting_descriptions() -> dict[str, str]:
    """Each setting's name and description (for the README check and a settings dialog)."""
    return {name: field.description or "" for name, field in Settings.model_fields.items()}


def _keep_unreadable(path: Path) -> None:
    """Move a settings file that is not a JSON object aside before it is overwritten: the
    start used defaults for it (see Settings.load), and what the person wrote in it by hand
    stays readable in ``settings.json.damaged-…``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict):
        return
    aside = paths.aside_path(path, "damaged")
    try:
        path.replace(aside)
    except OSError as exc:
        _log.warning("settings file %s unreadable and not kept aside: %s", path, exc)
        return
    _log.warning("settings file %s unreadable: kept as %s, new settings written", path, aside)
