"""The light and dark palettes: readable text, and the only source of the stylesheets' colours."""

from __future__ import annotations

import re

import pytest

from memex_desktop.paths import resource_path
from memex_desktop.settings import Settings
from memex_desktop.ui.palette import (
    BODY_TEXT_CONTRAST,
    DARK,
    LIGHT,
    TEXT_PAIRS,
    THEMES,
    Palette,
    contrast_ratio,
    fill_colours,
    theme_for,
)

HEX = re.compile(r"#[0-9a-fA-F]{3,8}\b")
STYLESHEETS = ("style.qss", "reader.css")


def _without_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


@pytest.mark.parametrize("palette", THEMES.values(), ids=lambda palette: palette.name)
@pytest.mark.parametrize("pair", TEXT_PAIRS, ids="-on-".join)
def test_every_text_colour_meets_wcag_aa_on_its_background(
    palette: Palette, pair: tuple[str, str]
) -> None:
    foreground, background = (palette.colours()[name] for name in pair)
    assert contrast_ratio(foreground, background) >= BODY_TEXT_CONTRAST, pair


def test_the_contrast_ratio_is_the_wcag_one() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("#123456", "#123456") == pytest.approx(1.0)


def test_dark_is_light_text_on_dark_surfaces() -> None:
    for palette, dark in ((LIGHT, False), (DARK, True)):
        assert palette.is_dark is dark
        text = contrast_ratio(palette.text, "#000000")
        base = contrast_ratio(palette.base, "#000000")
        assert (text > base) is dark


@pytest.mark.parametrize("name", STYLESHEETS)
def test_the_stylesheets_take_every_colour_from_the_palette(name: str) -> None:
    template = resource_path(name).read_text(encoding="utf-8")
    assert HEX.findall(_without_comments(template)) == []
    light, dark = fill_colours(template, LIGHT), fill_colours(template, DARK)
    assert "$" not in _without_comments(light) + _without_comments(dark)
    assert LIGHT.text in light
    assert DARK.text in dark
    assert DARK.text not in light


def test_an_unknown_colour_name_is_refused() -> None:
    with pytest.raises(KeyError):
        fill_colours("a { color: $no_such_colour; }", LIGHT)


@pytest.mark.parametrize(
    ("setting", "system_dark", "expected"),
    [
        ("system", False, LIGHT),
        ("system", True, DARK),
        ("light", True, LIGHT),
        ("dark", False, DARK),
    ],
)
def test_the_setting_forces_a_theme_or_follows_the_system(
    setting: str, system_dark: bool, expected: Palette
) -> None:
    assert theme_for(setting, system_dark) is expected


def test_the_theme_setting_round_trips_through_settings_json(tmp_path) -> None:
    assert Settings().theme == "system"
    path = Settings(theme="dark").save(tmp_path)
    assert '"theme": "dark"' in path.read_text(encoding="utf-8")
    assert Settings.load(tmp_path).theme == "dark"
    path.write_text('{"theme": "sepia", "sync_interval_minutes": 5}', encoding="utf-8")
    kept = Settings.load(tmp_path)
    assert (kept.theme, kept.sync_interval_minutes) == ("system", 5)
