"""The emulator stands in for the sites of a library's pictures: it serves them and names them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from support.emulator import EmulatorFactory, http_client
from support.images import png_bytes

from memex_desktop import paths
from memex_desktop.emulator import RunningEmulator

PICTURE = png_bytes(8, 8)
ORIGINAL = "https://pics.example.org/photos/a.png"


def _library() -> dict[str, Any]:
    return {
        "results": [
            {
                "id": "pictured",
                "type": "web",
                "title": "Pictured",
                "url": "https://blog.example.org/post",
                "created_at": 1_700_000_000_000,
                "html": f'<p>Look</p><img src="{ORIGINAL}" alt="a">',
            },
            {
                "id": "photo",
                "type": "image",
                "created_at": 1_700_000_000_001,
                "url": ORIGINAL,
                "original_url": ORIGINAL,
            },
        ]
    }


@pytest.fixture
def running(tmp_path: Path, emulator_factory: EmulatorFactory) -> RunningEmulator:
    folder = tmp_path / "media" / "pics.example.org" / "photos"
    folder.mkdir(parents=True)
    (folder / "a.png").write_bytes(PICTURE)
    (tmp_path / "secret.txt").write_text("outside the media folder")
    return emulator_factory(library=_library(), media_dir=tmp_path / "media")


def _search(running: RunningEmulator) -> str:
    with http_client(running) as client:
        answer = client.post("/search", json={"query": "", "raw": True, "limit": 10})
    answer.raise_for_status()
    return answer.text


def test_a_picture_is_served_by_its_site_and_path_without_credentials(
    running: RunningEmulator,
) -> None:
    answer = httpx.get(f"{running.base_url}/media/pics.example.org/photos/a.png", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "image/png"
    assert answer.content == PICTURE


@pytest.mark.parametrize(
    "path", ["/media/../secret.txt", "/media/%2e%2e/secret.txt", "/media/pics.example.org/nope.png"]
)
def test_nothing_outside_the_media_folder_is_served(running: RunningEmulator, path: str) -> None:
    answer = httpx.get(running.base_url + path, timeout=10)
    assert answer.status_code == 404
    assert b"outside the media folder" not in answer.content


def test_answers_name_each_picture_at_the_emulators_address(running: RunningEmulator) -> None:
    text = _search(running)
    assert ORIGINAL not in text
    assert text.count(f"{running.base_url}/media/pics.example.org/photos/a.png") >= 3


def test_without_a_media_folder_answers_keep_the_library_addresses(
    emulator_factory: EmulatorFactory,
) -> None:
    plain = emulator_factory(library=_library())
    assert ORIGINAL in _search(plain)
    assert httpx.get(f"{plain.base_url}/media/x.png", timeout=10).status_code == 404


def test_the_demo_has_a_picture_for_every_picture_its_items_show() -> None:
    """Each remote picture of the demo library is in resources/demo/media under its address."""
    import json

    from memex_desktop.api.models import parse_content_entity
    from memex_desktop.render import render_entity
    from memex_desktop.render.image_check import check_image

    library = json.loads(paths.resource_path("demo", "library.json").read_text("utf-8"))
    media = paths.resource_path("demo", "media")
    shown = {
        url
        for entity in library["results"]
        for url in render_entity(parse_content_entity(entity)).remote_resources
    }
    assert len(shown) >= 10
    for url in shown:
        inside = url.removeprefix("https://")
        check_image((media / inside).read_bytes())
