"""Deterministic realistic articles (markdown and HTML variants) for the reader's tests.

Each article is built from a template and word lists with a seeded random generator, and comes
with the plain words of every paragraph so tests can check that no words are lost.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass

NOUNS = [
    "garden",
    "river",
    "lantern",
    "harbour",
    "orchard",
    "library",
    "compass",
    "meadow",
    "engine",
    "kettle",
    "ledger",
    "bridge",
    "notebook",
    "pattern",
    "signal",
    "archive",
    "window",
    "theory",
    "market",
    "canal",
    "furnace",
    "glacier",
    "pigeon",
    "teacher",
    "village",
    "telescope",
    "recipe",
    "harvest",
    "journal",
    "mountain",
    "workshop",
    "circuit",
    "ferry",
    "chapter",
    "beacon",
]
VERBS = [
    "gathers",
    "measures",
    "repairs",
    "explains",
    "follows",
    "carries",
    "invites",
    "predicts",
    "remembers",
    "balances",
    "sketches",
    "unlocks",
    "records",
    "shelters",
    "borrows",
    "questions",
    "polishes",
    "returns",
    "weaves",
    "tracks",
]
ADJECTIVES = [
    "quiet",
    "careful",
    "early",
    "brittle",
    "generous",
    "narrow",
    "patient",
    "curious",
    "northern",
    "wooden",
    "restless",
    "luminous",
    "modest",
    "ancient",
    "practical",
    "tidy",
    "stubborn",
    "hollow",
    "distant",
    "mellow",
]
ADVERBS = ["slowly", "gently", "rarely", "often", "carefully", "boldly", "plainly", "quietly"]
TOPICS = (
    "Tide tables and the people who keep them",
    "Why the orchard ledger matters",
    "Notes on building a canal lock",
    "A field guide to northern lanterns",
    "How the village library learned to lend tools",
    "Repairing a brittle telescope",
    "Pigeon post in the age of signals",
    "The patient art of glacier surveying",
)


@dataclass(frozen=True)
class Article:
    """One generated article: its title, sources, and the words of each paragraph."""

    title: str
    markdown: str
    html: str
    paragraphs: tuple[tuple[str, ...], ...]


def _sentence(rng: random.Random) -> list[str]:
    """A short sentence as a list of words (first word capitalised, full stop attached)."""
    words = [
        rng.choice(("The", "A", "Every", "One")),
        rng.choice(ADJECTIVES),
        rng.choice(NOUNS),
        rng.choice(ADVERBS),
        rng.choice(VERBS),
        rng.choice(("the", "a", "each")),
        rng.choice(ADJECTIVES),
        rng.choice(NOUNS),
    ]
    if rng.random() < 0.5:
        words += ["near", "the", rng.choice(NOUNS)]
    words[-1] += "."
    return words


class _Builder:
    """Collects markdown, HTML and paragraph words in step."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.md: list[str] = []
        self.html: list[str] = []
        self.paragraphs: list[tuple[str, ...]] = []

    def paragraph(self) -> None:
        """A paragraph with emphasis, a link and inline code in some sentences."""
        md_parts: list[str] = []
        html_parts: list[str] = []
        words: list[str] = []
        for _ in range(self.rng.randint(3, 6)):
            sentence = _sentence(self.rng)
            words += sentence
            style = self.rng.random()
            if style < 0.15:
                md_parts.append(f"**{sentence[0]} {sentence[1]}** " + " ".join(sentence[2:]))
                html_parts.append(
                    f"<strong>{sentence[0]} {sentence[1]}</strong> " + " ".join(sentence[2:])
                )
            elif style < 0.3:
                slug = sentence[2].lower()
                md_parts.append(
                    " ".join(sentence[:2])
                    + f" [{sentence[2]}](https://example.org/{slug}) "
                    + " ".join(sentence[3:])
                )
                html_parts.append(
                    " ".join(sentence[:2])
                    + f' <a href="https://example.org/{slug}">{sentence[2]}</a> '
                    + " ".join(sentence[3:])
                )
            elif style < 0.4:
                md_parts.append(
                    " ".join(sentence[:3]) + f" `{sentence[3]}` " + " ".join(sentence[4:])
                )
                html_parts.append(
                    " ".join(sentence[:3])
                    + f" <code>{sentence[3]}</code> "
                    + " ".join(sentence[4:])
                )
            elif style < 0.5:
                md_parts.append(
                    " ".join(sentence[:4]) + f" *{sentence[4]}* " + " ".join(sentence[5:])
                )
                html_parts.append(
                    " ".join(sentence[:4]) + f" <em>{sentence[4]}</em> " + " ".join(sentence[5:])
                )
            else:
                md_parts.append(" ".join(sentence))
                html_parts.append(" ".join(sentence))
        self.md.append(" ".join(md_parts) + "\n")
        self.html.append("<p>" + " ".join(html_parts) + "</p>")
        self.paragraphs.append(tuple(words))

    def heading(self, level: int) -> None:
        """A section heading."""
        words = [self.rng.choice(ADJECTIVES).capitalize(), self.rng.choice(NOUNS), "and", "the"]
        words.append(self.rng.choice(NOUNS))
        text = " ".join(words)
        self.md.append("#" * level + " " + text + "\n")
        self.html.append(f"<h{level}>{html.escape(text)}</h{level}>")
        self.paragraphs.append(tuple(words))

    def bullet_list(self, ordered: bool = False) -> None:
        """A list of short items (each item counts as a paragraph)."""
        items = [_sentence(self.rng) for _ in range(self.rng.randint(3, 5))]
        tag = "ol" if ordered else "ul"
        for number, item in enumerate(items, 1):
            marker = f"{number}." if ordered else "-"
            self.md.append(f"{marker} {' '.join(item)}")
            self.paragraphs.append(tuple(item))
        self.md.append("")
        self.html.append(
            f"<{tag}>" + "".join(f"<li>{' '.join(item)}</li>" for item in items) + f"</{tag}>"
        )

    def quote(self) -> None:
        """A blockquote of one sentence."""
        sentence = _sentence(self.rng)
        self.md.append("> " + " ".join(sentence) + "\n")
        self.html.append("<blockquote><p>" + " ".join(sentence) + "</p></blockquote>")
        self.paragraphs.append(tuple(sentence))

    def code_block(self) -> None:
        """A fenced code block."""
        name = self.rng.choice(NOUNS)
        lines = [f"def measure_{name}(value):", f"    return value * {self.rng.randint(2, 9)}"]
        self.md.append("```python\n" + "\n".join(lines) + "\n```\n")
        self.html.append("<pre><code>" + html.escape("\n".join(lines)) + "</code></pre>")
        self.paragraphs.append(("measure_" + name + "(value):", "return", "value"))

    def table(self) -> None:
        """A small table of nouns and numbers."""
        rows = [(self.rng.choice(NOUNS), str(self.rng.randint(1, 999))) for _ in range(3)]
        self.md.append("| Item | Count |\n| --- | ---: |")
        self.md.append("\n".join(f"| {a} | {b} |" for a, b in rows) + "\n")
        self.html.append(
            "<table><thead><tr><th>Item</th><th>Count</th></tr></thead><tbody>"
            + "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
            + "</tbody></table>"
        )
        self.paragraphs.append(("Item", "Count", *(word for row in rows for word in row)))


def build_article(seed: int, sections: int = 4) -> Article:
    """One deterministic article with every common construct."""
    rng = random.Random(seed)
    title = TOPICS[seed % len(TOPICS)] + f" ({seed})"
    builder = _Builder(rng)
    builder.paragraph()
    for index in range(sections):
        builder.heading(2 if index % 2 == 0 else 3)
        for _ in range(rng.randint(1, 3)):
            builder.paragraph()
        extra = index % 4
        if extra == 0:
            builder.bullet_list(ordered=rng.random() < 0.5)
        elif extra == 1:
            builder.quote()
        elif extra == 2:
            builder.code_block()
        else:
            builder.table()
        builder.paragraph()
    return Article(
        title=title,
        markdown="\n".join(builder.md),
        html="<article>" + "\n".join(builder.html) + "</article>",
        paragraphs=tuple(builder.paragraphs),
    )


def build_large_article(target_chars: int, seed: int = 7) -> Article:
    """An article of about ``target_chars`` characters (for the 1 MB benchmark)."""
    rng = random.Random(seed)
    builder = _Builder(rng)
    index = 0
    size = 0
    while size < target_chars:
        before = len(builder.md)
        builder.heading(2)
        for _ in range(3):
            builder.paragraph()
        (builder.bullet_list, builder.quote, builder.code_block, builder.table)[index % 4]()
        size += sum(len(part) + 1 for part in builder.md[before:])
        index += 1
    return Article(
        title="A very long field report",
        markdown="\n".join(builder.md),
        html="<article>" + "\n".join(builder.html) + "</article>",
        paragraphs=tuple(builder.paragraphs),
    )
