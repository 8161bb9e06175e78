"""Pictures in the reader: loaded on request from a real emulator over loopback, shown again
with the emulator stopped, the choice kept across a restart, and every failure said in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument
from support.emulator import EmulatorFactory, http_client
from support.images import SVG_WITH_SCRIPT, png_bomb, png_bytes
from support.window import seeded_cache

from memex_desktop import paths
from memex_desktop.emulator import RunningEmulator
from memex_desktop.render.image_cache import ImageCache, ImageSource
from memex_desktop.render.image_check import check_image
from memex_desktop.render.remote_images import ImagePolicy, origin_of
from memex_desktop.store import StoreWriter
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

PICTURE = png_bytes(40, 30, (200, 60, 60))


@pytest.fixture
def media(tmp_path: Path) -> Path:
    """A media folder: a picture, an SVG with script, a decompression bomb."""
    folder = tmp_path / "media" / "pics.example.org"
    folder.mkdir(parents=True)
    (folder / "photo.png").write_bytes(PICTURE)
    (folder / "slow.png").write_bytes(png_bytes(50, 50))
    (folder / "drawing.svg").write_bytes(SVG_WITH_SCRIPT)
    (folder / "bomb.png").write_bytes(png_bomb())
    return tmp_path / "media"


@pytest.fixture
def server(media: Path, emulator_factory: EmulatorFactory) -> RunningEmulator:
    return emulator_factory(media_dir=media)


def _cache_with(tmp_path: Path, pictures: dict[str, list[str]]) -> Path:
    """A real cache.db whose items (id -> picture addresses) show those pictures."""
    path = tmp_path / "data" / "cache.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = StoreWriter(path)
    items = [
        {
            "id": entity_id,
            "type": "web",
            "title": f"Item {entity_id}",
            "url": f"https://blog.example.org/{entity_id}",
            "created_at": 1_700_000_000_000 + number,
            "html": "<p>Words before.</p>"
            + "".join(f'<p><img src="{url}" alt="picture"></p>' for url in urls),
        }
        for number, (entity_id, urls) in enumerate(pictures.items())
    ]
    try:
        writer.ingest_json(items).result(timeout=30)
    finally:
        writer.close()
    return path


def _source(cache: Path, server: RunningEmulator) -> ImageSource:
    """The app's picture source for this data folder, trusting the emulator as the demo does."""
    policy = ImagePolicy(trusted_origins=frozenset({origin_of(server.base_url)}))
    return ImageSource.limited(paths.image_cache_path(cache.parent), 50, policy)


def _pane(qtbot: Any, cache: Path, runner: TaskRunner, source: ImageSource) -> ReaderPane:
    pane = ReaderPane(cache, runner, images=source)
    qtbot.addWidget(pane)
    pane.resize(600, 500)
    pane.show()
    return pane


def _open(qtbot: Any, pane: ReaderPane, entity_id: str) -> None:
    pane.show_entity(entity_id)
    qtbot.waitUntil(
        lambda: not pane.rendering and not pane.loading_more
        and pane.current_entity_id == entity_id and pane.current_document is not None,
        timeout=30_000,
    )  # fmt: skip


def _load(qtbot: Any, pane: ReaderPane) -> None:
    """Press "Load remote images" and wait for the render that follows."""
    assert pane.images_button.isEnabled()
    pane.images_button.click()
    qtbot.waitUntil(lambda: not pane.rendering and not pane.loading_more, timeout=30_000)


def _shown(pane: ReaderPane, url: str) -> QImage | None:
    """The picture the document shows at ``url``, if any."""
    document = pane.current_document
    assert document is not None
    found = document.resource(QTextDocument.ResourceType.ImageResource.value, QUrl(url))
    return found if isinstance(found, QImage) and not found.isNull() else None


def test_a_picture_loaded_once_is_shown_with_the_emulator_stopped(
    qtbot: Any, tmp_path: Path, runner: TaskRunner, server: RunningEmulator
) -> None:
    url = f"{server.base_url}/media/pics.example.org/photo.png"
    cache = _cache_with(tmp_path, {"pictured": [url]})
    first = _pane(qtbot, cache, runner, _source(cache, server))
    _open(qtbot, first, "pictured")
    assert _shown(first, url) is None  # nothing loads before the person asks
    assert "[image: picture" in first.browser.toPlainText()
    said: list[str] = []
    first.message.connect(said.append)
    _load(qtbot, first)
    assert said == ["Loading this item's pictures from the web…", "Pictures loaded."]
    picture = _shown(first, url)
    assert picture is not None
    assert (picture.width(), picture.height()) == (40, 30)
    assert not first.images_notice.isVisible()
    assert not first.images_button.isVisible()

    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(url, timeout=5)
    # A new reader on the same data folder, as after a restart: no click, no network.
    second = _pane(qtbot, cache, runner, _source(cache, server))
    _open(qtbot, second, "pictured")
    offline = _shown(second, url)
    assert offline is not None
    assert offline.pixelColor(5, 5).red() == 200
    assert not second.images_notice.isVisible()


def test_the_choice_is_kept_in_the_data_folder(
    qtbot: Any, tmp_path: Path, runner: TaskRunner, server: RunningEmulator
) -> None:
    url = f"{server.base_url}/media/pics.example.org/photo.png"
    cache = _cache_with(tmp_path, {"pictured": [url], "other": [url]})
    pane = _pane(qtbot, cache, runner, _source(cache, server))
    _open(qtbot, pane, "pictured")
    _load(qtbot, pane)
    store = ImageCache(paths.image_cache_path(cache.parent), 50_000_000)
    qtbot.waitUntil(lambda: store.item_allowed("pictured"), timeout=10_000)
    assert not store.item_allowed("other")
    # Another item with the same picture still asks first.
    _open(qtbot, pane, "other")
    assert _shown(pane, url) is None
    assert pane.images_button.isVisible()


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/media/pics.example.org/missing.png", "answered with an error (HTTP 404)"),
        ("/media/pics.example.org/drawing.svg", "an SVG drawing, which the reader never loads"),
        ("/media/pics.example.org/bomb.png", "a picture larger than the reader loads"),
    ],
)
def test_a_failed_picture_says_why_in_the_reader(
    qtbot: Any,
    tmp_path: Path,
    runner: TaskRunner,
    server: RunningEmulator,
    path: str,
    words: str,
) -> None:
    good = f"{server.base_url}/media/pics.example.org/photo.png"
    bad = server.base_url + path
    cache = _cache_with(tmp_path, {"mixed": [good, bad]})
    pane = _pane(qtbot, cache, runner, _source(cache, server))
    _open(qtbot, pane, "mixed")
    _load(qtbot, pane)
    assert _shown(pane, good) is not None
    assert _shown(pane, bad) is None
    assert pane.images_notice.isVisible()
    text = pane.images_notice.label.text()
    assert text.startswith("1 of 2 pictures were not loaded.")
    assert words in text


def test_an_unreachable_site_is_named_and_can_be_tried_again(
    qtbot: Any, tmp_path: Path, runner: TaskRunner, server: RunningEmulator
) -> None:
    url = f"{server.base_url}/media/pics.example.org/photo.png"
    cache = _cache_with(tmp_path, {"pictured": [url]})
    pane = _pane(qtbot, cache, runner, _source(cache, server))
    server.stop()
    _open(qtbot, pane, "pictured")
    said: list[str] = []
    pane.message.connect(said.append)
    _load(qtbot, pane)
    assert pane.images_notice.isVisible()
    why = (
        "The picture was not loaded. 127.0.0.1 could not be reached (no connection, or no "
        "such site). Check the connection, then try again."
    )
    assert pane.images_notice.label.text() == why
    # The status bar no longer says they are loading: its last word is how it ended.
    assert said == [
        "Loading this item's pictures from the web…",
        "The picture was not loaded. Check the connection, then try again.",
    ]
    server.start()  # the connection is back: "Try again" loads it
    pane.images_notice.retry_button.click()
    qtbot.waitUntil(lambda: not pane.rendering and _shown(pane, url) is not None, timeout=30_000)
    assert not pane.images_notice.isVisible()


def test_the_text_shows_while_pictures_are_still_on_their_way(
    qtbot: Any, tmp_path: Path, runner: TaskRunner, server: RunningEmulator
) -> None:
    """A slow site delays its picture, never the item: kept pictures show with the text."""
    kept = f"{server.base_url}/media/pics.example.org/photo.png"
    slow = f"{server.base_url}/media/pics.example.org/slow.png"
    cache = _cache_with(tmp_path, {"pictured": [kept, slow], "plain": []})
    source = _source(cache, server)
    store = ImageCache(paths.image_cache_path(cache.parent), source.max_bytes)
    store.keep({kept: check_image(PICTURE)})
    store.allow_item("pictured")
    server.faults.drip(1, 0.5, paths={"/media/pics.example.org/slow.png"})
    pane = _pane(qtbot, cache, runner, source)
    pane.show_entity("pictured")
    qtbot.waitUntil(
        lambda: pane.current_document is not None and _shown(pane, kept) is not None,
        timeout=10_000,
    )
    assert pane.loading_more
    assert "Words before." in pane.browser.toPlainText()
    assert pane.images_notice.label.text() == "Loading the pictures from the web…"
    assert not pane.images_notice.retry_button.isVisible()
    _open(qtbot, pane, "plain")  # moving on gives up the slow picture
    assert not pane.images_notice.isVisible()


def test_the_demo_shows_its_pictures(
    qtbot: Any,
    tmp_path: Path,
    runner: TaskRunner,
    emulator_factory: EmulatorFactory,
    demo_library: dict[str, Any],
) -> None:
    """The demo library through its emulator: "Load remote images" shows the picture."""
    demo = emulator_factory(library=demo_library, media_dir=paths.resource_path("demo", "media"))
    with http_client(demo) as client:
        answer = client.post("/search", json={"query": "", "raw": True, "limit": 100})
    answer.raise_for_status()
    cache = seeded_cache(tmp_path / "data", answer.json())
    pane = _pane(qtbot, cache, runner, _source(cache, demo))
    _open(qtbot, pane, "image-worm-harvest")
    _load(qtbot, pane)
    url = f"{demo.base_url}/media/media.example.com/images/worm-compost.jpg"
    picture = _shown(pane, url)
    assert picture is not None
    # The 640 x 420 photo, scaled down to the reader's width in its own shape.
    assert picture.width() <= pane.browser.viewport().width() < 640
    assert abs(picture.height() - picture.width() * 420 / 640) <= 1
    assert not pane.images_notice.isVisible()


def test_the_app_keeps_pictures_in_the_data_folder_within_the_setting(tmp_path: Path) -> None:
    from memex_desktop.app import reader_images
    from memex_desktop.settings import Settings

    source = reader_images(tmp_path, Settings(image_cache_mb=3), None)
    assert source.path == tmp_path / "images.db"
    assert source.max_bytes == 3_000_000
    assert source.policy.trusted_origins == frozenset()


def test_the_demo_serves_its_pictures_and_the_reader_trusts_only_its_emulator() -> None:
    from memex_desktop.app import reader_images, start_demo
    from memex_desktop.settings import Settings

    demo = start_demo()
    try:
        source = reader_images(demo.data_dir, Settings(), demo.emulator.base_url)
        assert source.policy.trusted_origins == {origin_of(demo.emulator.base_url)}
        with http_client(demo.emulator, headers={"x-api-key": demo.emulator.api_key}) as client:
            listed = client.post("/search", json={"query": "worm compost", "raw": True})
        picture = f"{demo.emulator.base_url}/media/media.example.com/images/worm-compost.jpg"
        assert picture in listed.text
        assert httpx.get(picture, timeout=10).headers["content-type"] == "image/jpeg"
    finally:
        demo.close()


WIDE = "https://pics.example.org/wide.png"
SMALL = "https://pics.example.org/small.png"


def _kept(tmp_path: Path, items: list[dict[str, Any]], pictures: dict[str, bytes]) -> Any:
    """A real cache.db of ``items`` and a picture source that kept ``pictures`` (address ->
    PNG) from an earlier visit, every item's pictures asked for."""
    cache = tmp_path / "data" / "cache.db"
    cache.parent.mkdir(parents=True, exist_ok=True)
    writer = StoreWriter(cache)
    try:
        writer.ingest_json(items).result(timeout=30)
    finally:
        writer.close()
    source = ImageSource.limited(paths.image_cache_path(cache.parent), 50)
    kept = source.cache()
    assert kept is not None
    kept.keep({url: check_image(body) for url, body in pictures.items()})
    for item in items:
        kept.allow_item(item["id"])
    return cache, source


def _sizes(pane: ReaderPane) -> list[tuple[str, float, float]]:
    """Each picture of the document on screen: its address and the size it is shown at."""
    sizes = []
    block = pane.browser.document().begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            shown = fragments.fragment().charFormat()
            if shown.isImageFormat():
                image = shown.toImageFormat()
                sizes.append((image.name(), image.width(), image.height()))
            fragments += 1
        block = block.next()
    return sizes


def _fits(pane: ReaderPane) -> bool:
    """Whether the reader shows its pictures without a sideways scroll bar."""
    return pane.browser.horizontalScrollBar().maximum() == 0


def test_a_big_picture_is_scaled_down_to_the_readers_width_keeping_its_shape(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    item = {
        "id": "pic",
        "type": "image",
        "created_at": 1_700_000_000_000,
        "original_url": WIDE,
        "source_title": "A wide picture",
    }
    cache, source = _kept(tmp_path, [item], {WIDE: png_bytes(1600, 500)})
    pane = _pane(qtbot, cache, runner, source)
    _open(qtbot, pane, "pic")
    assert _shown(pane, WIDE) is not None
    assert _fits(pane)
    [(_, width, height)] = _sizes(pane)
    assert 500 < width <= pane.browser.viewport().width()
    assert abs(height - width * 500 / 1600) <= 1
    pane.resize(400, 500)
    qtbot.waitUntil(lambda: _sizes(pane)[0][1] < 400 and _fits(pane))
    [(_, narrow, narrow_height)] = _sizes(pane)
    assert abs(narrow_height - narrow * 500 / 1600) <= 1
    pane.resize(1000, 500)
    qtbot.waitUntil(lambda: _sizes(pane)[0][1] > 900)
    assert _fits(pane)
    picture = _shown(pane, WIDE)
    assert picture is not None  # scaled smoothly to the size it is shown at
    assert picture.width() == round(_sizes(pane)[0][1] * pane.browser.devicePixelRatioF())


def test_pictures_are_never_scaled_up_nor_out_of_shape(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    page = (
        f'<p>A small one: <img src="{SMALL}" alt="small"></p>'
        f'<p><img src="{WIDE}" width="1200" height="375" alt="sized by the page"></p>'
        f'<blockquote><p><img src="{WIDE}" alt="quoted"></p></blockquote>'
        f'<ul><li><img src="{WIDE}" height="500" alt="in a list"></li></ul>'
    )
    item = {
        "id": "page",
        "type": "web",
        "title": "Pictures",
        "url": "https://pics.example.org/page",
        "created_at": 1_700_000_000_000,
        "html": page,
    }
    pictures = {WIDE: png_bytes(1600, 500), SMALL: png_bytes(40, 30)}
    cache, source = _kept(tmp_path, [item], pictures)
    pane = _pane(qtbot, cache, runner, source)
    _open(qtbot, pane, "page")
    qtbot.waitUntil(lambda: _fits(pane))
    sizes = _sizes(pane)
    assert [name for name, _, _ in sizes] == [SMALL, WIDE, WIDE, WIDE]
    assert sizes[0][1:] == (40, 30)
    for _, width, height in sizes[1:]:
        assert width <= pane.browser.viewport().width()
        assert abs(height - width * 500 / 1600) <= 1
    assert sizes[2][1] < sizes[1][1]  # the quote's indent is room taken


def test_pictures_in_a_table_fit_their_cells(
    qtbot: Any, tmp_path: Path, runner: TaskRunner
) -> None:
    page = (
        f'<table border="1"><tr><td><img src="{WIDE}" alt="alone"></td></tr></table>'
        f'<table border="1" cellpadding="6"><tr><td>Before</td>'
        f'<td><img src="{WIDE}" alt="left"></td><td><img src="{WIDE}" alt="right"></td>'
        "</tr></table>"
    )
    item = {
        "id": "table",
        "type": "web",
        "title": "Pictures in a table",
        "url": "https://pics.example.org/table",
        "created_at": 1_700_000_000_000,
        "html": page,
    }
    cache, source = _kept(tmp_path, [item], {WIDE: png_bytes(1600, 500)})
    pane = _pane(qtbot, cache, runner, source)
    _open(qtbot, pane, "table")
    qtbot.waitUntil(lambda: len(_sizes(pane)) == 3 and _sizes(pane)[0][1] < 1600)
    qtbot.wait(100)  # any refit after the first layout
    document = pane.browser.document()
    tables = document.rootFrame().childFrames()
    assert len(tables) == 2
    for table in tables:  # nothing wider than the reader, even by a few pixels
        assert document.documentLayout().frameBoundingRect(table).right() <= document.textWidth()
    assert _fits(pane)
    sizes = _sizes(pane)
    assert sizes[0][1] > 0.8 * pane.browser.viewport().width()  # alone, nearly the width
    assert abs(sizes[1][1] - sizes[2][1]) <= 1  # two share the rest alike
    for _, width, height in sizes:
        assert abs(height - width * 500 / 1600) <= 1
