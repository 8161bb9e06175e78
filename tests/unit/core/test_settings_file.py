"""Settings load and save atomically, fall back to defaults, and honour the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memex_desktop import paths
from memex_desktop.settings import (
    CONNECTION_ENV_VARS,
    DEFAULT_API_URL,
    Settings,
    setting_descriptions,
)


def test_defaults_when_no_file(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path)
    assert settings.api_url == DEFAULT_API_URL
    assert settings.page_size == 100


def test_round_trip(tmp_path: Path) -> None:
    Settings(api_url="http://example.test/api", page_size=50, sync_interval_minutes=0).save(
        tmp_path
    )
    loaded = Settings.load(tmp_path)
    assert loaded.api_url == "http://example.test/api"
    assert loaded.page_size == 50
    assert loaded.sync_interval_minutes == 0
    assert not list(tmp_path.glob(".settings-*"))  # no temporary file left behind


def test_default_location_is_the_config_dir() -> None:
    path = Settings().save()
    assert path.parent == paths.config_dir()
    assert Settings.load().api_url == DEFAULT_API_URL


def test_corrupt_file_gives_defaults(tmp_path: Path) -> None:
    Settings.path(tmp_path).write_text("{not json", encoding="utf-8")
    assert Settings.load(tmp_path) == Settings()


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", ""])
def test_a_settings_file_that_cannot_be_read_is_kept_aside_when_settings_are_saved(
    tmp_path: Path, text: str
) -> None:
    path = Settings.path(tmp_path)
    path.write_text(text, encoding="utf-8")
    Settings.load(tmp_path).model_copy(update={"page_size": 40}).save(tmp_path)
    [kept] = tmp_path.glob("settings.json.damaged-*")
    assert kept.read_text(encoding="utf-8") == text  # what the person wrote stays readable
    assert Settings.load(tmp_path).page_size == 40
    Settings.load(tmp_path).save(tmp_path)  # a readable file is simply replaced
    assert len(list(tmp_path.glob("settings.json.damaged-*"))) == 1


def test_invalid_value_is_dropped_and_the_rest_kept(tmp_path: Path) -> None:
    Settings.path(tmp_path).write_text(
        json.dumps({"page_size": -4, "api_url": "http://kept.test", "unknown": 1}),
        encoding="utf-8",
    )
    loaded = Settings.load(tmp_path)
    assert loaded.page_size == 100
    assert loaded.api_url == "http://kept.test"


def test_environment_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CONNECTION_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    settings = Settings(api_url="http://from-settings.test/", data_dir=tmp_path / "s")
    assert settings.effective_api_url() == "http://from-settings.test"
    assert settings.effective_data_dir() == tmp_path / "s"
    monkeypatch.setenv("MEMEX_API_URL", "http://from-env.test")
    monkeypatch.setenv("MEMEX_DATA_DIR", str(tmp_path / "env"))
    assert settings.effective_api_url() == "http://from-env.test"
    assert settings.effective_data_dir() == tmp_path / "env"
    assert settings.effective_api_url("http://flag.test") == "http://flag.test"
    assert settings.effective_data_dir(tmp_path / "flag") == tmp_path / "flag"


def test_every_setting_is_described() -> None:
    descriptions = setting_descriptions()
    assert "api_url" in descriptions
    assert all(text for text in descriptions.values())
    assert not any("key" in name for name in descriptions)  # the API key is not a setting


def test_the_url_and_user_id_settings_name_what_overrides_them() -> None:
    descriptions = setting_descriptions()
    for name in ("--api-url", "MEMEX_API_BASE_URL", "MEMEX_API_URL", "MEMEX_MCP_URL"):
        assert name in descriptions["api_url"]
    assert "MEMEX_USER_ID" in descriptions["user_id"]


def test_saving_never_writes_an_environment_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEX_BEARER_TOKEN", "t-from-the-environment")
    monkeypatch.setenv("MEMEX_API_KEY", "k-from-the-environment")
    monkeypatch.setenv("MEMEX_USER_ID", "u-from-the-environment")
    settings = Settings.load(tmp_path)
    assert settings.effective_user_id() == "u-from-the-environment"
    text = settings.save(tmp_path).read_text(encoding="utf-8")
    assert "from-the-environment" not in text
