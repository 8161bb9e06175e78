"""Reader benchmark: rendering a 1 MB markdown article and a 1 MB HTML article (target 150 ms).

Each figure is the median of several full ``render_entity`` calls (HTML, plain text and remote
resources), measured with ``time.perf_counter``. ``render_1mb_ms_floor`` is the median of as
many ``markdown.markdown`` calls on the same article: what the markdown library costs alone.
"""

from __future__ import annotations

import html
import pathlib
import random
import statistics
import time

import markdown

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, render_entity

TARGET_CHARS = 1_000_000
RUNS = 7
_WORDS = [
    "the",
    "a",
    "of",
    "harbour",
    "lantern",
    "orchard",
    "canal",
    "ledger",
    "quietly",
    "measures",
    "repairs",
    "survey",
    "tide",
    "gate",
    "keeper",
    "notebook",
    "engine",
    "bridge",
    "river",
    "northern",
    "careful",
    "brittle",
    "generous",
    "signal",
    "archive",
]


def _sentence(rng: random.Random) -> str:
    """One sentence of 8 to 16 words."""
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 16))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random) -> tuple[str, str]:
    """A paragraph as (markdown, html), with a link, emphasis and code in it."""
    sentences = [_sentence(rng) for _ in range(rng.randint(3, 6))]
    word = rng.choice(_WORDS)
    md = " ".join(sentences) + f" See [{word}](https://example.org/{word}), *{word}* and `{word}`."
    markup = (
        html.escape(" ".join(sentences))
        + f' See <a href="https://example.org/{word}">{word}</a>, <em>{word}</em>'
        + f" and <code>{word}</code>."
    )
    return md, f"<p>{markup}</p>"


def build_articles(target_chars: int = TARGET_CHARS, seed: int = 1) -> tuple[str, str]:
    """A markdown article and an HTML article of about ``target_chars`` each."""
    rng = random.Random(seed)
    md_parts: list[str] = []
    html_parts: list[str] = []
    size = 0
    section = 0
    while size < target_chars:
        section += 1
        md_parts.append(f"## Section {section}\n")
        html_parts.append(f"<h2>Section {section}</h2>")
        for _ in range(4):
            md, markup = _paragraph(rng)
            md_parts.append(md + "\n")
            html_parts.append(markup)
            size += len(md) + 1
        items = [_sentence(rng) for _ in range(3)]
        md_parts.append("\n".join(f"- {item}" for item in items) + "\n")
        html_parts.append("<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>")
        md_parts.append(f"> {_sentence(rng)}\n")
        html_parts.append(f"<blockquote><p>{_sentence(rng)}</p></blockquote>")
        md_parts.append(f"![figure {section}](https://img.example/{section}.png)\n")
        html_parts.append(f'<p><img src="https://img.example/{section}.png" alt="figure"></p>')
        size += sum(len(item) for item in items) + 200
    return "\n".join(md_parts), "\n".join(html_parts)


def _median_ms(entity_json: dict[str, object]) -> tuple[float, float]:
    """Median wall time and median CPU time of rendering the entity, in milliseconds.

    CPU time is reported too because wall time on a busy machine includes waiting for a core.
    """
    entity = parse_content_entity(entity_json)
    context = RenderContext()
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(RUNS):
        start, start_cpu = time.perf_counter(), time.process_time()
        doc = render_entity(entity, context)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        if not doc.text:
            raise RuntimeError("the benchmark article rendered to no text")
    return statistics.median(wall), statistics.median(cpu)


def _markdown_floor_ms(source: str) -> float:
    """Median wall time of ``markdown.markdown`` alone on ``source``, in milliseconds."""
    wall: list[float] = []
    for _ in range(RUNS):
        start = time.perf_counter()
        markdown.markdown(source)
        wall.append((time.perf_counter() - start) * 1000)
    return statistics.median(wall)


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Render the two 1 MB articles several times; ``entities`` does not apply here."""
    del workdir, entities
    markdown_source, html_source = build_articles()
    base = {"type": "web", "title": "A long field report", "url": "https://example.org/report"}
    md_wall, md_cpu = _median_ms({**base, "id": "bench-md", "full_text": markdown_source})
    html_wall, html_cpu = _median_ms({**base, "id": "bench-html", "html": html_source})
    return {
        "render_1mb_ms": md_wall,
        "render_1mb_ms_floor": _markdown_floor_ms(markdown_source),
        "render_1mb_html_ms": html_wall,
        "render_1mb_cpu_ms": md_cpu,
        "render_1mb_html_cpu_ms": html_cpu,
    }


if __name__ == "__main__":
    print(run(pathlib.Path("."), 0))
