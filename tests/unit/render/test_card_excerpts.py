"""A card's excerpt never repeats its title: an untitled note is called by its first words."""

from __future__ import annotations

from typing import Any

import pytest

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, render_entity
from memex_desktop.render.document import after_title, excerpt_under_title

LONG_NOTE = (
    "Good summary. Double-checked every citation: all of them point at things I actually "
    "saved, and the one about sleep spindles is the paper I wanted to find again. The rest "
    "of the answer is fine as well."
)


@pytest.mark.parametrize(
    ("title", "text", "rest"),
    [
        # A title of its own: the text is something else to say.
        ("A realistic daily study routine", "Builds a ten-minute routine.", None),
        # The text is the title and nothing more.
        ("Print this for the group.", "Print this for the group.", ""),
        ("Print this for the group", "print  this for the GROUP!", ""),
        ("A long title of which the text is only the start", "A long title", ""),
        # The title is the start of the text, as markup and citations leave it.
        ("saved.Sleep and Memory…", "saved.[Sleep and Memory Consolidation: What We Know]",
         "Consolidation: What We Know]"),
        # Cut in the middle of a word.
        ("The network is an optim", "The network is an optimisation, not a requirement.",
         "not a requirement."),
        # A highlight's snippet ends in its start and end times: no more words.
        ("That's the whole experience we want.",
         "That's the whole experience we want. 217.6 223.2", ""),
        ("Words that differ", "Words that do differ", None),
        ("", "Any text", None),
    ],
)  # fmt: skip
def test_what_a_text_says_after_its_title(title: str, text: str, rest: str | None) -> None:
    assert after_title(title, text) == rest


def test_an_excerpt_under_a_title_says_what_the_title_does_not() -> None:
    assert excerpt_under_title("Own title", "Something else.", 140) == "Something else."
    assert excerpt_under_title("Just this", "Just this.", 140) is None
    assert excerpt_under_title("Own title", "   ", 140) is None
    title = LONG_NOTE[:119] + "…"
    excerpt = excerpt_under_title(title, LONG_NOTE, 40)
    assert excerpt is not None
    assert excerpt.startswith("…")
    assert len(excerpt) <= 40
    assert excerpt[1:].rstrip("…") in LONG_NOTE[110:]
    assert "Good summary" not in excerpt


def _note(note_id: str, text: str, on: str) -> dict[str, Any]:
    return {"id": note_id, "type": "annotation", "text": text, "reference_content_ids": [on]}


def _render(entity: dict[str, Any], library: list[dict[str, Any]]) -> str:
    """The plain text of ``entity`` rendered with ``library`` in the cache."""
    items = {item["id"]: parse_content_entity(item) for item in library}

    def notes_on(entity_id: str) -> list[str]:
        notes = [item for item in library if item["type"] == "annotation"]
        return [note["id"] for note in notes if entity_id in note["reference_content_ids"]]

    context = RenderContext(lookup=items.get, notes_on=notes_on)
    return render_entity(parse_content_entity(entity), context).text


def test_a_note_card_says_the_note_once() -> None:
    highlight = {
        "id": "hl",
        "type": "selector",
        "text": "Spindles during sleep predict recall.",
        "target_id": "page",
    }
    page = {"id": "page", "type": "web", "title": "Sleep and memory", "url": "https://e.org/s"}
    short = _note("n-short", "Print this for the study group.", "hl")
    long = _note("n-long", LONG_NOTE, "hl")
    text = _render(highlight, [page, short, long])
    assert text.count("Print this for the study group") == 1
    assert text.count("Good summary. Double-checked every citation") == 1
    # What the title leaves out is still there, once, after it.
    assert text.count("The rest of the answer is fine as well.") == 1
    assert "…" in text


def test_a_note_card_with_markup_says_the_note_once() -> None:
    """Link targets, tags and citations are no words of the note's title."""
    text = (
        "Compare [the keepers' page](https://tides.example.org/keepers?x=1) with the <b>old</b> "
        "tables {{content:page}} before the spring tides, and write down every difference you "
        "find, harbour by harbour. The winter ones matter most."
    )
    highlight = {"id": "hl", "type": "selector", "text": "High water at noon.", "target_id": "p"}
    text_shown = _render(highlight, [_note("n", text, "hl")])
    assert text_shown.count("Compare") == 1
    assert text_shown.count("spring tides") == 1
    assert text_shown.count("The winter ones matter most.") == 1


def test_a_quoted_tweet_without_a_title_is_quoted_once() -> None:
    quoted = {
        "id": "tw-quoted",
        "type": "twitter",
        "text": (
            "This is the demo every app should be able to give. If pulling the cable breaks "
            "your app, your users are the ones who find out, usually on a train."
        ),
    }
    tweet = {
        "id": "tw",
        "type": "twitter",
        "text": "Exactly this.",
        "quote_tweet": {"id": "tw-quoted"},
    }
    text = _render(tweet, [quoted])
    assert text.count("This is the demo every app should be able to give") == 1
    assert text.count("usually on a train") == 1
