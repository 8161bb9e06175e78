"""Items whose page URL is malformed (tests/fixtures/urls): ``show`` and both exports succeed,
and ``save`` refuses such a URL in one line. Each command runs in this process on one cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli

from memex_desktop import cli

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "urls" / "malformed_urls.json"
MALFORMED = {case["name"]: case["url"] for case in json.loads(FIXTURE.read_text())["urls"]}
LONG_URL = "https://long.example/" + "a" * 70_000
HTML = '<p>Before <a href="/relative">a relative link</a> <img src="pic.png" alt="pic"> after.</p>'
MARKDOWN = "Before [a relative link](/relative) and ![pic](pic.png) after."


def _library(urls: dict[str, str]) -> dict[str, Any]:
    """A library file with an HTML and a Markdown page for each URL."""
    results = []
    for number, (name, url) in enumerate(urls.items()):
        for kind, body in (("html", {"html": HTML}), ("md", {"full_text": MARKDOWN})):
            results.append(
                {
                    "id": f"bad-url-{name}-{kind}",
                    "type": "web",
                    "url": url,
                    "canonical_url": url,
                    "title": f"Malformed URL {name} ({kind})",
                    "created_at": 1767286800000 + number * 1000,
                    **body,
                }
            )
    return {
        "results": results,
        "extraEntities": [],
        "referencedEntities": [],
        "referencedTags": [],
        "referencesByResultId": {},
        "meta": {"offset": 0, "limit": len(results), "returnedCount": len(results)},
    }


@pytest.fixture
def seeded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Cli, dict[str, Any]]:
    """A cache holding the malformed-URL pages (and one of 70,000 characters)."""
    library = _library({**MALFORMED, "70k": LONG_URL})
    source = tmp_path / "library.json"
    source.write_text(json.dumps(library), encoding="utf-8")
    run = Cli(capsys, tmp_path / "data", "http://127.0.0.1:9", api_key=None)
    status, out, err = run("import", str(source))
    assert status == 0, err
    assert f"imported {len(library['results'])} items" in out
    return run, library


def test_show_renders_every_malformed_url(seeded: tuple[Cli, dict[str, Any]]) -> None:
    run, library = seeded
    for entity in library["results"]:
        for fmt in ("text", "html"):
            status, out, err = run("show", entity["id"], "--format", fmt)
            assert status == 0, (entity["id"], err)
            assert "Before" in out, entity["id"]
            assert "after." in out, entity["id"]


def test_both_exports_write_every_item(seeded: tuple[Cli, dict[str, Any]], tmp_path: Path) -> None:
    run, library = seeded
    status, _, err = run("export", str(tmp_path / "json"))
    assert status == 0, err
    exported = json.loads((tmp_path / "json" / "memex-export.json").read_text(encoding="utf-8"))
    assert {e["id"]: e["url"] for e in exported["results"]} == {
        e["id"]: e["url"] for e in library["results"]
    }
    status, _, err = run("export", str(tmp_path / "md"), "--format", "markdown")
    assert status == 0, err
    files = {
        path.name: path.read_text(encoding="utf-8")
        for path in (tmp_path / "md" / "memex-export").glob("*-bad-url-*.md")
    }
    assert len(files) == len(library["results"])
    for name, text in files.items():
        assert "Before" in text, name
        assert "after." in text, name
        front_matter = text.split("\n---\n", 1)[0]
        # Hidden characters of a saved address appear only as visible \u escapes.
        assert all(line.isascii() and line.isprintable() for line in front_matter.splitlines())
    refused = [text for name, text in files.items() if "right-to-left" in name]
    assert refused
    assert all("saved_url: " in text and "url_problem: " in text for text in refused)
    assert all("\nurl: " not in text for text in refused)
    deceptive = [text for name, text in files.items() if "userinfo" in name]
    assert deceptive
    assert all('url: "https://evil.example/login"' in text for text in deceptive)


def test_saving_a_malformed_url_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = Cli(capsys, tmp_path / "data", "http://127.0.0.1:9", api_key=None)
    refused = {name: url for name, url in MALFORMED.items() if name != "userinfo"}
    for url in refused.values():
        status, _, err = run("save", url)
        assert status == cli.EXIT_FAILURE
        assert len(err.strip().splitlines()) == 1, err
        assert "cannot save" in err
    status, out, _ = run("outbox", "list", "--json")
    assert status == 0
    assert json.loads(out) == []
