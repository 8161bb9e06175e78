"""The kept pictures: read back after a restart, bounded (shown longest ago go first), never
half a picture, and the per-item choice remembered (real SQLite files)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from support.emulator import EmulatorFactory
from support.images import png_bytes

from memex_desktop.render.image_cache import ImageCache, ImageSource
from memex_desktop.render.image_check import CheckedImage, check_image
from memex_desktop.render.remote_images import ImagePolicy, origin_of


def _picture(width: int) -> CheckedImage:
    return check_image(png_bytes(width, 10, (width % 256, 10, 10)))


def test_a_kept_picture_is_read_back_by_another_cache_on_the_same_file(tmp_path: Path) -> None:
    url = "https://pics.example.org/a.png"
    ImageCache(tmp_path / "images.db", 1_000_000).keep({url: _picture(40)})
    again = ImageCache(tmp_path / "images.db", 1_000_000).images([url, "https://other/b.png"])
    assert list(again) == [url]
    assert again[url].body == _picture(40).body


def test_the_choice_to_show_an_items_pictures_outlives_a_restart(tmp_path: Path) -> None:
    ImageCache(tmp_path / "images.db", 1_000_000).allow_item("item-1")
    reopened = ImageCache(tmp_path / "images.db", 1_000_000)
    assert reopened.item_allowed("item-1")
    assert not reopened.item_allowed("item-2")


def test_past_the_limit_the_pictures_shown_longest_ago_go_first(tmp_path: Path) -> None:
    pictures = {f"https://p.example/{n}.png": _picture(200 + n) for n in range(4)}
    one = max(len(picture.body) for picture in pictures.values())
    cache = ImageCache(tmp_path / "images.db", 3 * one)
    urls = list(pictures)
    cache.keep({url: pictures[url] for url in urls[:3]})
    cache.images([urls[0]])  # shown again: now the most recent of the three
    cache.keep({urls[3]: pictures[urls[3]]})
    assert set(cache.images(urls)) == {urls[0], urls[2], urls[3]}
    assert cache.total_bytes() <= 3 * one


def test_a_picture_bigger_than_the_whole_limit_is_not_kept(tmp_path: Path) -> None:
    cache = ImageCache(tmp_path / "images.db", 50)
    cache.keep({"https://p.example/big.png": _picture(300)})
    assert cache.images(["https://p.example/big.png"]) == {}


def test_a_damaged_row_is_dropped_not_shown(tmp_path: Path) -> None:
    path = tmp_path / "images.db"
    url = "https://p.example/a.png"
    ImageCache(path, 1_000_000).keep({url: _picture(30)})
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE images SET body = ? WHERE url = ?", (b"<svg/>", url))
    cache = ImageCache(path, 1_000_000)
    assert cache.images([url]) == {}
    assert cache.total_bytes() == 0


def test_an_unreadable_file_is_set_aside_and_started_anew(tmp_path: Path) -> None:
    path = tmp_path / "broken" / "images.db"
    path.parent.mkdir()
    path.write_bytes(b"this is not a database at all" * 100)
    cache = ImageCache(path, 1_000_000)
    cache.allow_item("item-1")
    assert cache.item_allowed("item-1")
    assert (path.parent / "images.db.damaged").read_bytes().startswith(b"this is not")


def test_a_process_killed_while_writing_leaves_no_half_picture(tmp_path: Path) -> None:
    """The writer dies in the middle of its transaction: the picture is not there at all."""
    path = tmp_path / "images.db"
    ImageCache(path, 1_000_000).keep({"https://p.example/old.png": _picture(20)})
    half = _picture(500).body[:100]
    script = textwrap.dedent(
        f"""
        import sqlite3, sys
        connection = sqlite3.connect({str(path)!r}, isolation_level=None)
        connection.execute("BEGIN")
        connection.execute(
            "INSERT INTO images VALUES ('https://p.example/new.png', 'png', 500, 10, 100, ?, 0, 0)",
            ({half!r},),
        )
        print("writing", flush=True)
        sys.stdin.read()
        """
    )
    with subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == b"writing\n"
        finally:
            child.kill()
            child.wait(10)
    cache = ImageCache(path, 1_000_000)
    kept = cache.images(["https://p.example/new.png", "https://p.example/old.png"])
    assert list(kept) == ["https://p.example/old.png"]


def test_a_source_reads_kept_pictures_with_the_server_stopped(
    tmp_path: Path, emulator_factory: EmulatorFactory
) -> None:
    """Fetched once from the emulator over loopback, then read with the emulator stopped."""
    media = tmp_path / "media" / "pics.example.org"
    media.mkdir(parents=True)
    (media / "a.png").write_bytes(png_bytes(12, 8))
    running = emulator_factory(media_dir=tmp_path / "media")
    url = f"{running.base_url}/media/pics.example.org/a.png"
    policy = ImagePolicy(trusted_origins=frozenset({origin_of(running.base_url)}))
    source = ImageSource.limited(tmp_path / "images.db", 10, policy)
    first = source.load([url], threading.Event())
    assert set(first.images) == {url}
    assert first.from_cache == set()
    running.stop()
    offline = source.load([url], threading.Event())
    assert set(offline.images) == {url}
    assert offline.from_cache == {url}
    assert offline.refused == {}


def test_a_source_without_a_file_keeps_nothing_and_remembers_nothing(tmp_path: Path) -> None:
    source = ImageSource(None, 1_000_000)
    source.allow_item("item-1")
    assert not source.item_allowed("item-1")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("megabytes", [0, 0.5, 200])
def test_the_limit_is_the_setting_in_bytes(tmp_path: Path, megabytes: float) -> None:
    source = ImageSource.limited(tmp_path / "images.db", megabytes)
    assert source.max_bytes == int(megabytes * 1_000_000)
