"""The person's settings: declared once, with descriptions, saved as JSON (never the API key).

The file lives in :func:`memex_desktop.paths.config_dir` and is replaced atomically (write a
temporary file, fsync, rename) so a crash never leaves half a settings file. The API key is not
a setting: it lives in the keyring (:mod:`memex_desktop.secrets`), and :meth:`Settings.save`
refuses to write anything that looks like one.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memex_desktop import paths

_log = logging.getLogger(__name__)

SETTINGS_FILE_NAME = "settings.json"
API_URL_ENV = "MEMEX_API_URL"
API_KEY_ENV = "MEMEX_API_KEY"
DEFAULT_API_URL = "https://memex.garden/api"

RemoteSearchMode = Literal["off", "on_demand", "as_you_type"]

# Keys that must never reach the settings file, whatever a caller passes as extra data.
_FORBIDDEN_KEYS = frozenset({"api_key", "apikey", "x-api-key", "bearer_token", "token", "password"})


class Settings(BaseModel):
    """Every setting of memex-desktop; the README lists each one (a test checks it)."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    api_url: str = Field(
        default=DEFAULT_API_URL,
        description="Base URL of the Memex API (MEMEX_API_URL and --api-url override it).",
    )
    user_id: str | None = Field(
        default=None,
        description="Optional Memex user id sent as x-user-id with an API key.",
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
        text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        paths.write_text_atomically(path, text)
        return path

    def effective_api_url(self, override: str | None = None) -> str:
        """The API URL to use: an explicit override, else MEMEX_API_URL, else the setting."""
        url = override or os.environ.get(API_URL_ENV) or self.api_url
        return url.rstrip("/")

    def effective_data_dir(self, override: Path | str | None = None) -> Path:
        """The data folder: an explicit override, else MEMEX_DATA_DIR, else the setting."""
        if override:
            return Path(override).expanduser()
        if os.environ.get(paths.DATA_DIR_ENV):
            return paths.default_data_dir()
        if self.data_dir is not None:
            return self.data_dir.expanduser()
        return paths.default_data_dir()


def setting_descriptions() -> dict[str, str]:
    """Each setting's name and description (for the README check and a settings dialog)."""
    return {name: field.description or "" for name, field in Settings.model_fields.items()}
