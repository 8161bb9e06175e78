"""Resource lookup in the three layouts: source tree, installed package, PyInstaller bundle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memex_desktop import paths


def _fake_package(root: Path) -> Path:
    package = root / "memex_desktop"
    package.mkdir(parents=True)
    return package


def test_source_tree_layout_finds_resources_beside_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _fake_package(tmp_path)
    (tmp_path / "resources" / "demo").mkdir(parents=True)
    monkeypatch.setattr(paths, "_PACKAGE_DIR", package)
    assert paths.resources_dir() == tmp_path / "resources"
    assert paths.resource_path("demo") == tmp_path / "resources" / "demo"


def test_installed_layout_prefers_resources_inside_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _fake_package(tmp_path / "site-packages")
    (package / "resources").mkdir()
    monkeypatch.setattr(paths, "_PACKAGE_DIR", package)
    assert paths.resources_dir() == package / "resources"


def test_bundle_layout_uses_meipass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "resources").mkdir(parents=True)
    monkeypatch.setattr(paths, "_PACKAGE_DIR", _fake_package(tmp_path / "elsewhere"))
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    assert paths.resources_dir() == bundle / "resources"


def test_missing_resources_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "_PACKAGE_DIR", _fake_package(tmp_path))
    with pytest.raises(FileNotFoundError, match="resources not found"):
        paths.resources_dir()


def test_real_checkout_resolves_resources() -> None:
    assert paths.resources_dir().is_dir()


def test_data_dir_honours_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.DATA_DIR_ENV, str(tmp_path / "data"))
    assert paths.default_data_dir() == tmp_path / "data"
    assert paths.cache_db_path(tmp_path) != paths.outbox_db_path(tmp_path)


def test_default_data_dir_is_per_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(paths.DATA_DIR_ENV, raising=False)
    assert paths.APP_NAME in str(paths.default_data_dir())
