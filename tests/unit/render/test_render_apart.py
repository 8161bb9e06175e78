"""The render process: big steps run there and give what they give in place; small steps, a
failure inside a step and a dead process behave as if there were no other process."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, document, render_entity
from memex_desktop.render.apart import (
    APART_ABOVE_CHARS,
    APART_NICENESS,
    run_apart,
    run_big_apart,
    shutdown,
    start,
)

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages" / "html"


def _ends_unless_in(pid: int) -> str:
    """Ends the process it runs in, unless that is ``pid``."""
    if os.getpid() != pid:
        os._exit(3)
    return "rendered here"


def test_a_big_step_runs_in_another_process_and_a_small_one_here() -> None:
    assert run_apart(os.getpid) != os.getpid()
    assert run_big_apart(APART_ABOVE_CHARS + 1, os.getpid) != os.getpid()
    assert run_big_apart(APART_ABOVE_CHARS, os.getpid) == os.getpid()


def test_what_a_step_raises_is_raised_to_the_caller() -> None:
    with pytest.raises(ValueError, match="invalid literal"):
        run_apart(int, "not a number")


def test_a_dead_render_process_leaves_the_step_to_this_one_and_is_replaced() -> None:
    assert run_apart(_ends_unless_in, os.getpid()) == "rendered here"
    assert run_apart(os.getpid) != os.getpid()


def test_after_shutdown_the_next_big_step_starts_a_new_process() -> None:
    first = run_apart(os.getpid)
    shutdown()
    assert run_apart(os.getpid) not in (first, os.getpid())


@pytest.mark.parametrize("whole_page", [False, True])
def test_a_big_page_renders_the_same_apart_as_in_place(
    whole_page: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (PAGES / "debian-reference-ch08.html").read_text(encoding="utf-8")
    head, _, body = page.partition("<body")
    body = "<body" + body
    # The same chapter several times over: an article view well past the size that moves.
    big = head + body.replace("</body>", "") * (3 * APART_ABOVE_CHARS // len(body) + 2) + "</body>"
    entity = parse_content_entity(
        {
            "type": "web",
            "id": "big",
            "created_at": 1_700_000_000_000,
            "url": "https://www.debian.org/doc/manuals/debian-reference/ch08.en.html",
            "html": big,
        }
    )
    here = render_entity(entity, RenderContext(whole_page=whole_page))
    moved: list[str] = []

    def recorded(size: int, function: Any, /, *args: Any, **kwargs: Any) -> Any:
        if size > APART_ABOVE_CHARS:
            moved.append(function.__name__)
        return run_big_apart(size, function, *args, **kwargs)

    monkeypatch.setattr(document, "run_big_apart", recorded)
    apart = render_entity(entity, RenderContext(whole_page=whole_page, big_steps_apart=True))
    assert moved == ["page_body", "html_to_text"]
    assert apart == here


def test_a_process_started_ahead_runs_the_next_big_step() -> None:
    shutdown()
    start()
    started = run_apart(os.getpid)
    assert started != os.getpid()
    assert run_apart(os.getpid) == started


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="niceness is set on Linux only")
def test_the_render_process_runs_at_the_workers_priority() -> None:
    assert run_apart(os.getpriority, os.PRIO_PROCESS, 0) == max(
        APART_NICENESS, os.getpriority(os.PRIO_PROCESS, 0)
    )
