"""Generated Memex libraries of any size, for tests and benchmarks.

:func:`generate_library` returns a library file (the raw search response shape with every entity
in ``results`` plus ``views``, ``feeds`` and ``plans``) holding every content type: web pages
(markdown ``full_text``, some with ``html`` only), tweets with images, videos and quote tweets,
YouTube videos with transcripts and summaries, Reddit posts, images, PDFs, chat threads citing
other items, highlights (``selector``), annotations in reply threads three levels deep that mention
other items, and two types this client has no model for.

Text is drawn from a Zipf distribution over ~20,000 pseudo-words, so searches meet both very
common and very rare words, as in real prose. Everything is deterministic for a seed, and the
generation is prefix-stable: the first ``M`` entities of a library of ``N > M`` entities (same
seed and ``words_per_entity``) are the entities of the library of ``M`` entities, apart from tag
assignments (the number of tags grows with the library). Titles, URLs, ids, types, timestamps and
references do not depend on ``words_per_entity`` either, which lets :func:`benchmark_queries` pick
exact titles and URLs from a small library that a large one also holds.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_desktop.emulator.library import LibraryLine, write_library_lines, written_atomically

JsonObject = dict[str, Any]

VOCABULARY_SIZE = 20_000
ZIPF_EXPONENT = 1.0
# 2**16 slots: words are drawn by indexing a table with random 16-bit numbers (C-speed).
_TABLE_SLOTS = 1 << 16
# One table keeps the lookups in the CPU cache; a slice of its tail is refreshed from a large
# pool on every draw, so over a library every rare word still turns up.
_TAIL_POOL = 1 << 18
_TAIL_REFRESH = 256
_YEAR_MS = 365 * 24 * 3600 * 1000
# The library's clock: fixed so a seed always gives the same timestamps.
LIBRARY_END_MS = 1_777_593_600_000  # 2026-05-01T00:00:00Z
LIBRARY_START_MS = LIBRARY_END_MS - 3 * _YEAR_MS
USER_ID = "user-synthetic"
KNOWN_TYPES = (
    "web",
    "twitter",
    "youtube",
    "reddit",
    "image",
    "pdf",
    "annotation",
    "chatThread",
    "selector",
)
UNKNOWN_TYPES = ("audioRecording", "book")
ALL_TYPES = KNOWN_TYPES + UNKNOWN_TYPES

# Share of each type after the opening entities (which hold one of each kind).
_TYPE_WEIGHTS: dict[str, float] = {
    "web": 30,
    "twitter": 14,
    "youtube": 9,
    "reddit": 8,
    "image": 5,
    "pdf": 5,
    "annotation": 19,
    "chatThread": 3,
    "selector": 5,
    "audioRecording": 1,
    "book": 1,
}
# The first entities: every type, a quote tweet and a reply chain three levels deep.
_OPENING = (
    "web",
    "web-html",
    "twitter",
    "twitter",
    "youtube",
    "reddit",
    "image",
    "pdf",
    "chatThread",
    "selector",
    "annotation-root",
    "annotation-reply",
    "annotation-reply",
    "annotation-reply",
    "audioRecording",
    "book",
)
HTML_ONLY_SHARE = 0.15
MAX_REPLY_DEPTH = 3

_ONSETS = (
    *"bcdfghjklmnprstvwz",
    *(
        "br",
        "cr",
        "dr",
        "fl",
        "gr",
        "kl",
        "pl",
        "pr",
        "sk",
        "sl",
        "sp",
        "st",
        "tr",
        "ch",
        "sh",
        "th",
    ),
)
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ee", "ia", "io", "oa", "ou", "y")
_CODAS = ("", "", "", "n", "r", "s", "l", "m", "t", "nd", "st", "rk", "x", "ng")
_SUBREDDITS = (
    "learnprogramming",
    "gardening",
    "AskHistorians",
    "productivity",
    "datasets",
    "selfhosted",
    "Cooking",
    "askscience",
    "photography",
    "urbanplanning",
)
_CHANNELS = (
    "Field Notes",
    "Slow Science",
    "The Workshop Hour",
    "Map & Territory",
    "Open Lectures",
    "Kitchen Physics",
    "Garden Diaries",
    "Byte Sized",
)
_MODELS = ("claude-sonnet-4", "gpt-4.1", "claude-opus-4")


# --------------------------------------------------------------------------- words


def build_vocabulary(seed: int = 0, size: int = VOCABULARY_SIZE) -> list[str]:
    """``size`` distinct pronounceable pseudo-words, most frequent first (shorter words lead)."""
    rng = random.Random(f"vocabulary:{seed}")
    seen: set[str] = set()
    scored: list[tuple[float, str]] = []
    while len(scored) < size:
        syllables = rng.choice((1, 1, 2, 2, 2, 3, 3, 4))
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
        )
        if word in seen or len(word) < 2:
            continue
        seen.add(word)
        # Frequent words are short in real languages; noise keeps the order from being strict.
        scored.append((len(word) + rng.gauss(0.0, 2.0), word))
    scored.sort()
    return [word for _, word in scored]


@dataclass
class WordSampler:
    """Draws words with Zipf frequencies from a vocabulary, fast.

    Each word of rank ``r`` gets ``floor(p_r * 65536)`` slots of a lookup table; the remaining
    slots hold words drawn from the leftover probability mass (a pool sampled once, copied into
    the table a slice at a time). Indexing the table with random 16-bit numbers then yields the
    Zipf probabilities in expectation, at the speed of ``map`` over bytes.
    """

    vocabulary: list[str]
    exponent: float = ZIPF_EXPONENT
    seed: int = 0
    _table: list[str] = field(default_factory=list, init=False, repr=False)
    _tail_pool: list[str] = field(default_factory=list, init=False, repr=False)
    _head_slots: int = field(default=0, init=False, repr=False)
    _cum_weights: list[float] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        """Build the cumulative weights, the tail pool and the lookup table once."""
        weights = [1.0 / (rank**self.exponent) for rank in range(1, len(self.vocabulary) + 1)]
        total = sum(weights)
        self._cum_weights = list(itertools.accumulate(weights))
        head: list[str] = []
        leftover: list[float] = []
        for word, weight in zip(self.vocabulary, weights, strict=True):
            share = weight / total * _TABLE_SLOTS
            slots = int(share)
            head.extend(itertools.repeat(word, slots))
            leftover.append(share - slots)
        self._head_slots = len(head)
        tail_slots = _TABLE_SLOTS - len(head)
        rng = random.Random(f"tail:{self.seed}")
        self._tail_pool = rng.choices(
            self.vocabulary, cum_weights=list(itertools.accumulate(leftover)), k=_TAIL_POOL
        )
        start = rng.randrange(_TAIL_POOL - tail_slots)
        self._table = head + self._tail_pool[start : start + tail_slots]

    def words(self, count: int, rng: random.Random) -> list[str]:
        """``count`` words drawn independently with Zipf frequencies."""
        if count <= 0:
            return []
        table = self._table
        tail_slots = _TABLE_SLOTS - self._head_slots
        if tail_slots > _TAIL_REFRESH:
            at = self._head_slots + rng.randrange(tail_slots - _TAIL_REFRESH)
            source = rng.randrange(_TAIL_POOL - _TAIL_REFRESH)
            table[at : at + _TAIL_REFRESH] = self._tail_pool[source : source + _TAIL_REFRESH]
        numbers = memoryview(rng.randbytes(2 * count)).cast("H")
        return list(map(table.__getitem__, numbers))

    def few(self, count: int, rng: random.Random) -> list[str]:
        """A handful of words (titles, names) drawn exactly, without the table."""
        return rng.choices(self.vocabulary, cum_weights=self._cum_weights, k=count)


def _sentence_case(text: str) -> str:
    """Capitalise the first letter (cheap: one slice)."""
    return text[:1].upper() + text[1:]


def _title(words: Iterable[str]) -> str:
    """Title Case from words."""
    return " ".join(word.capitalize() for word in words)


def _paragraphs(words: list[str], rng: random.Random, low: int = 40, high: int = 140) -> list[str]:
    """Split words into paragraphs of varied length, each a sentence-cased line ending in '.'."""
    paragraphs = []
    start = 0
    while start < len(words):
        end = start + rng.randint(low, high)
        paragraphs.append(_sentence_case(" ".join(words[start:end])) + ".")
        start = end
    return paragraphs


# --------------------------------------------------------------------------- library


@dataclass(slots=True)
class _Entity:
    """What later entities need to know about an earlier one."""

    id: str
    type: str
    created_at: int
    depth: int = 0  # reply depth for annotations (0 = a note on an item)


class _Generator:
    """Builds one library; see :func:`generate_library`."""

    def __init__(self, entities: int, seed: int, words_per_entity: int) -> None:
        self.count = entities
        self.seed = seed
        self.words_per_entity = words_per_entity
        self.vocabulary = build_vocabulary(seed)
        self.sampler = WordSampler(self.vocabulary, seed=seed)
        self.meta_rng = random.Random(f"meta:{seed}")
        self.text_rng = random.Random(f"text:{seed}")
        self.tag_rng = random.Random(f"tags:{seed}")
        # The references entry of the entity being built (taken by :meth:`entities`).
        self.references: dict[str, JsonObject] = {}
        self.known: list[_Entity] = []
        self.items: list[_Entity] = []  # content that notes and highlights attach to
        self.tweets: list[_Entity] = []
        self.notes: list[_Entity] = []
        self.domains = [
            f"{a}{b}.example"
            for a, b in zip(self.vocabulary[40:200], self.vocabulary[300:460], strict=True)
        ]
        names = self.vocabulary[500:900]
        self.authors = [
            f"{a.capitalize()} {b.capitalize()}"
            for a, b in zip(names[::2], names[1::2], strict=True)
        ]
        self.tags = self._make_tags()
        self._tag_cum = list(
            itertools.accumulate(1.0 / rank for rank in range(1, len(self.tags) + 1))
        )

    # ----------------------------------------------------------------- helpers

    def _make_tags(self) -> list[JsonObject]:
        """A few tags for small libraries, a few hundred for big ones."""
        count = max(10, min(300, self.count // 100))
        rng = random.Random(f"tag-names:{self.seed}")
        names: list[str] = []
        seen: set[str] = set()
        pool = self.vocabulary[:4000]
        while len(names) < count:
            name = rng.choice(pool) if rng.random() < 0.6 else "-".join(rng.sample(pool, 2))
            if name not in seen:
                seen.add(name)
                names.append(name)
        tags = []
        for index, name in enumerate(names):
            created = LIBRARY_START_MS + rng.randrange(3 * _YEAR_MS)
            tags.append(
                {
                    "id": f"tag-{index:04d}-{rng.getrandbits(32):08x}",
                    "name": name,
                    "created_at": created,
                    "updated_at": created,
                }
            )
        return tags

    def _new_id(self, index: int) -> str:
        """A uuid-shaped id, unique by construction (the index is its last group)."""
        bits = self.meta_rng.getrandbits(64)
        head = f"{bits >> 32:08x}-{(bits >> 16) & 0xFFFF:04x}-4{(bits >> 4) & 0xFFF:03x}"
        return f"{head}-a{(index >> 48) & 0xFFF:03x}-{index & 0xFFFFFFFFFFFF:012x}"

    def _timestamp(self) -> int:
        """A creation time somewhere in the three years of the library."""
        return LIBRARY_START_MS + self.meta_rng.randrange(3 * _YEAR_MS)

    def _after(self, earlier: int) -> int:
        """A time after ``earlier`` (minutes to two months), never past the library's end."""
        later = earlier + self.meta_rng.randrange(60_000, 60 * 24 * 3600 * 1000)
        if later >= LIBRARY_END_MS:
            later = earlier + max(1, (LIBRARY_END_MS - earlier) // 2)
        return later

    def _word_count(self) -> int:
        """Words in one item's long text: varied around ``words_per_entity``."""
        return max(1, int(self.words_per_entity * self.text_rng.uniform(0.5, 1.5)))

    def _body(self, count: int | None = None) -> list[str]:
        """Words for one long text field."""
        return self.sampler.words(self._word_count() if count is None else count, self.text_rng)

    def _slug(self, words: list[str], index: int) -> str:
        """A URL path segment made unique by the entity index."""
        return "-".join(words[:5]) + f"-{index:x}"

    def _tag_ids(self) -> list[str]:
        """Zero to three tags per entity, popular tags much more often."""
        count = self.tag_rng.choice((0, 0, 1, 1, 1, 2, 2, 3))
        if not count:
            return []
        picked = self.tag_rng.choices(self.tags, cum_weights=self._tag_cum, k=count)
        return list(dict.fromkeys(tag["id"] for tag in picked))

    def _base(self, index: int, type_: str, created_at: int) -> JsonObject:
        """The fields every entity has."""
        updated = created_at
        if self.meta_rng.random() < 0.4:
            updated += self.meta_rng.randrange(1000, 30 * 24 * 3600 * 1000)
        return {
            "id": self._new_id(index),
            "type": type_,
            "created_at": created_at,
            "updated_at": updated,
            "user_id": USER_ID,
            "metadata": {"status": "indexing-done"},
        }

    def _earlier(self, pool: list[_Entity]) -> _Entity:
        """An earlier entity, recent ones more likely (people annotate what they just saved)."""
        if self.meta_rng.random() < 0.5:
            return pool[-1 - self.meta_rng.randrange(min(len(pool), 50))]
        return pool[self.meta_rng.randrange(len(pool))]

    # ----------------------------------------------------------------- content types

    def _web(self, index: int, html_only: bool) -> JsonObject:
        """A web page: markdown ``full_text`` or, for some pages, only ``html``."""
        title_words = self.sampler.few(self.meta_rng.randint(3, 9), self.meta_rng)
        title = _title(title_words)
        domain = self.meta_rng.choice(self.domains)
        section = self.meta_rng.choice(("blog", "articles", "notes", "p"))
        url = f"https://www.{domain}/{section}/{self._slug(title_words, index)}"
        created = self._timestamp()
        entity = self._base(index, "web", created)
        entity.update(
            title=title,
            url=url,
            normalized_url=url,
            canonical_url=url,
            favicon_url=f"https://www.{domain}/favicon.ico",
            description=_sentence_case(" ".join(self.sampler.few(25, self.meta_rng))) + ".",
            author=self.meta_rng.choice(self.authors),
            published_at=created - self.meta_rng.randrange(0, _YEAR_MS),
        )
        entity["date"] = _iso_date(entity["published_at"])
        paragraphs = _paragraphs(self._body(), self.text_rng)
        if html_only:
            entity["html"] = _html_article(title, paragraphs)
        else:
            entity["full_text"] = _markdown_article(paragraphs, self.text_rng)
        return entity

    def _twitter(self, index: int) -> JsonObject:
        """A tweet; some with images, some with a video, some quoting an earlier tweet."""
        entity = self._base(index, "twitter", self._timestamp())
        author = self.meta_rng.choice(self.authors)
        handle = author.lower().replace(" ", "_")
        tweet_id = 1_500_000_000_000_000_000 + index * 7919 + self.meta_rng.randrange(7919)
        entity.update(
            author_name=author,
            author_handle=handle,
            url=f"https://x.com/{handle}/status/{tweet_id}",
            published_at=entity["created_at"] - self.meta_rng.randrange(0, 3 * 24 * 3600 * 1000),
            save_type=self.meta_rng.choice(("bookmark", "like", "retweet")),
        )
        roll = self.meta_rng.random()
        if roll < 0.25:
            images = [
                f"https://pbs.twimg.example/media/{tweet_id:x}-{n}.jpg"
                for n in range(self.meta_rng.randint(1, 4))
            ]
            entity["images"] = images
            entity["image_analysis"] = {
                image: {"description": " ".join(self.sampler.few(12, self.meta_rng))}
                for image in images
            }
        elif roll < 0.35:
            entity["videos"] = [
                {
                    "duration": self.meta_rng.randint(5, 600),
                    "preview_url": f"https://pbs.twimg.example/video/{tweet_id:x}.jpg",
                    "variants": [
                        {
                            "content_type": "video/mp4",
                            "bitrate": bitrate,
                            "url": f"https://video.twimg.example/{tweet_id:x}/{bitrate}.mp4",
                        }
                        for bitrate in (632_000, 2_176_000)
                    ],
                }
            ]
        if self.tweets and self.meta_rng.random() < 0.2:
            quoted = self._earlier(self.tweets).id
            entity["quote_tweet"] = quoted
            entity["reference_content_ids"] = [quoted]
        entity["text"] = " ".join(self._body())
        return entity

    def _youtube(self, index: int) -> JsonObject:
        """A video with a channel, an English transcript and a summary."""
        title_words = self.sampler.few(self.meta_rng.randint(4, 10), self.meta_rng)
        entity = self._base(index, "youtube", self._timestamp())
        video_id = _video_id(index, self.meta_rng)
        channel = self.meta_rng.choice(_CHANNELS)
        entity.update(
            title=_title(title_words),
            url=f"https://www.youtube.com/watch?v={video_id}",
            thumbnail_url=f"https://i.ytimg.example/vi/{video_id}/hqdefault.jpg",
            published_at=entity["created_at"] - self.meta_rng.randrange(0, _YEAR_MS),
            channel_title=channel,
            channel_id=f"UC{_video_id(_CHANNELS.index(channel), random.Random(channel))}",
            description=_sentence_case(" ".join(self.sampler.few(30, self.meta_rng))) + ".",
        )
        words = self._body()
        segments = []
        offset = 0.0
        start = 0
        while start < len(words):
            end = start + self.text_rng.randint(20, 45)
            duration = round((end - start) / 2.6, 1)
            segments.append(
                {
                    "offset": round(offset, 1),
                    "text": " ".join(words[start:end]),
                    "duration": duration,
                }
            )
            offset += duration
            start = end
        entity["transcript"] = {"en": segments}
        entity["summary"] = {
            "en": _sentence_case(" ".join(self.sampler.words(60, self.text_rng))) + "."
        }
        return entity

    def _reddit(self, index: int) -> JsonObject:
        """A Reddit post with its subreddit and permalink."""
        title_words = self.sampler.few(self.meta_rng.randint(4, 12), self.meta_rng)
        entity = self._base(index, "reddit", self._timestamp())
        subreddit = self.meta_rng.choice(_SUBREDDITS)
        post_id = _base36(index * 104_729 + self.meta_rng.randrange(104_729) + 36**5)
        author = self.meta_rng.choice(self.authors).lower().replace(" ", "")
        permalink = f"/r/{subreddit}/comments/{post_id}/{'_'.join(title_words[:6])}/"
        entity.update(
            title=_sentence_case(" ".join(title_words)),
            url=f"https://www.reddit.com{permalink}",
            permalink=permalink,
            author_name=author,
            author_handle=f"u/{author}",
            subreddit_name=subreddit,
            subreddit_id=f"t5_{_base36(36**4 + _SUBREDDITS.index(subreddit) * 7919)}",
            score=int(self.meta_rng.paretovariate(1.2) * 3),
            published_at=entity["created_at"] - self.meta_rng.randrange(0, 30 * 24 * 3600 * 1000),
        )
        if self.meta_rng.random() < 0.2:
            entity["media_urls"] = [f"https://i.redd.example/{post_id}.jpg"]
        entity["text"] = "\n\n".join(_paragraphs(self._body(), self.text_rng))
        return entity

    def _image(self, index: int) -> JsonObject:
        """A saved image with a long description and its source page."""
        entity = self._base(index, "image", self._timestamp())
        name = "-".join(self.sampler.few(3, self.meta_rng))
        domain = self.meta_rng.choice(self.domains)
        entity.update(
            url=f"https://img.{domain}/{name}-{index:x}.jpg",
            original_url=f"https://img.{domain}/{name}-{index:x}.jpg",
            source_url=f"https://www.{domain}/gallery/{name}-{index:x}",
            source_title=_title(self.sampler.few(4, self.meta_rng)),
            is_reference=False,
            mime_type="image/jpeg",
        )
        entity["description"] = " ".join(self._body())
        return entity

    def _pdf(self, index: int) -> JsonObject:
        """A paper: title, authors, abstract, page count and its full text."""
        title_words = self.sampler.few(self.meta_rng.randint(5, 12), self.meta_rng)
        entity = self._base(index, "pdf", self._timestamp())
        number = f"{2300 + index % 300}.{index:05d}"
        entity.update(
            title=_title(title_words),
            url=f"https://papers.example.org/pdf/{number}.pdf",
            authors=self.meta_rng.sample(self.authors, self.meta_rng.randint(1, 5)),
            page_count=self.meta_rng.randint(4, 60),
            published_at=entity["created_at"] - self.meta_rng.randrange(0, 2 * _YEAR_MS),
            source_urls=[f"https://papers.example.org/abs/{number}"],
            abstract=_sentence_case(" ".join(self.sampler.few(50, self.meta_rng))) + ".",
        )
        entity["full_text"] = "\n\n".join(_paragraphs(self._body(), self.text_rng))
        return entity

    def _unknown(self, index: int, type_: str) -> JsonObject:
        """A type this client has no model for (it must still be kept and shown)."""
        title_words = self.sampler.few(self.meta_rng.randint(3, 8), self.meta_rng)
        entity = self._base(index, type_, self._timestamp())
        slug = self._slug(title_words, index)
        entity["title"] = _title(title_words)
        if type_ == "book":
            entity.update(
                url=f"https://books.example.net/{slug}",
                author=self.meta_rng.choice(self.authors),
                isbn=f"978{self.meta_rng.randrange(10**10):010d}",
            )
        else:
            entity.update(
                url=f"https://recordings.example.net/{slug}",
                duration_s=self.meta_rng.randint(60, 5400),
            )
        entity["text"] = "\n\n".join(_paragraphs(self._body(), self.text_rng))
        return entity

    def _selector(self, index: int) -> JsonObject:
        """A highlight of a passage of an earlier item."""
        target = self._earlier(self.items)
        entity = self._base(index, "selector", self._after(target.created_at))
        entity.update(
            target_id=target.id,
            selector_type="time_selector" if target.type == "youtube" else "text_selector",
            reference_content_ids=[target.id],
        )
        if target.type == "youtube":
            entity["start_time"] = self.meta_rng.randint(0, 1800)
        entity["text"] = " ".join(self._body(self.text_rng.randint(10, 60)))
        self.references[entity["id"]] = {"contentEntityIds": [target.id], "tagIds": []}
        return entity

    def _annotation(self, index: int, reply: bool) -> JsonObject:
        """A note on an item, or a reply to a note, sometimes mentioning other items."""
        open_notes = [note for note in self.notes[-60:] if note.depth < MAX_REPLY_DEPTH]
        if reply and open_notes:
            parent = open_notes[-1] if self.meta_rng.random() < 0.5 else self._earlier(open_notes)
            depth = parent.depth + 1
        else:
            parent = self._earlier(self.items)
            depth = 0
        entity = self._base(index, "annotation", self._after(parent.created_at))
        mentions: list[str] = []
        if self.meta_rng.random() < 0.35:
            for _ in range(self.meta_rng.randint(1, 2)):
                mentioned = self._earlier(self.known).id
                if mentioned != parent.id and mentioned not in mentions:
                    mentions.append(mentioned)
        paragraphs = _paragraphs(self._body(), self.text_rng, 30, 120)
        entity["text"] = "\n\n".join(paragraphs)
        blocks: list[JsonObject] = [
            {"type": "paragraph", "content": [{"type": "text", "text": paragraph}]}
            for paragraph in paragraphs
        ]
        if mentions:
            nodes: list[JsonObject] = [{"type": "text", "text": "See also "}]
            for mentioned in mentions:
                nodes.append({"type": "memex-reference", "attrs": {"content_id": mentioned}})
                nodes.append({"type": "text", "text": " "})
            blocks.append({"type": "paragraph", "content": nodes})
        entity["content"] = {"type": "doc", "content": blocks}
        entity["private"] = False
        entity["reference_content_ids"] = [parent.id, *mentions]
        first: str | JsonObject = {"id": parent.id, "type": "reply"} if depth else parent.id
        self.references[entity["id"]] = {"contentEntityIds": [first, *mentions], "tagIds": []}
        self.notes.append(_Entity(entity["id"], "annotation", entity["created_at"], depth))
        return entity

    def _chat_thread(self, index: int) -> JsonObject:
        """A conversation with an assistant that cites saved items as ``{{content:ID}}``."""
        title_words = self.sampler.few(self.meta_rng.randint(3, 8), self.meta_rng)
        entity = self._base(index, "chatThread", self._timestamp())
        cited: list[str] = []
        messages: list[JsonObject] = []
        words = self._body()
        turns = self.meta_rng.randint(2, 3)
        share = max(1, len(words) // (2 * turns))
        for turn in range(2 * turns):
            part = words[turn * share : (turn + 1) * share]
            if turn == 2 * turns - 1:
                part = words[turn * share :]
            role = "user" if turn % 2 == 0 else "assistant"
            text = _sentence_case(" ".join(part)) + ("?" if role == "user" else ".")
            nodes: list[JsonObject] = [{"type": "text", "text": text}]
            llm_text = text
            if role == "assistant" and self.known:
                for _ in range(self.meta_rng.randint(1, 3)):
                    source = self._earlier(self.known).id
                    cited.append(source)
                    llm_text += f" {{{{content:{source}}}}}"
                    nodes.append({"type": "memex-reference", "attrs": {"content_id": source}})
            messages.append(
                {
                    "id": f"{entity['id']}-m{turn}",
                    "role": role,
                    "content": {
                        "type": "doc",
                        "content": [{"type": "paragraph", "content": nodes}],
                    },
                    "llmMessage": {"content": llm_text},
                }
            )
        cited = list(dict.fromkeys(cited))
        entity.update(
            title=_title(title_words),
            summary=_sentence_case(" ".join(self.sampler.few(30, self.meta_rng))) + ".",
            model_name=self.meta_rng.choice(_MODELS),
            messages=messages,
            reference_content_ids=cited,
        )
        if cited:
            self.references[entity["id"]] = {"contentEntityIds": list(cited), "tagIds": []}
        return entity

    # ----------------------------------------------------------------- assembly

    def _one(self, index: int, kind: str) -> JsonObject:
        """Build the entity of one kind (kinds are types plus opening variants)."""
        if kind.startswith(("selector", "annotation")) and not self.items:
            kind = "web"  # nothing to attach to yet
        if kind == "annotation":
            kind = "annotation-reply" if self.meta_rng.random() < 0.55 else "annotation-root"
        if kind in ("web", "web-html"):
            html_only = kind == "web-html" or self.meta_rng.random() < HTML_ONLY_SHARE
            return self._web(index, html_only=html_only)
        if kind.startswith("annotation"):
            return self._annotation(index, reply=kind == "annotation-reply")
        builders: dict[str, Callable[[int], JsonObject]] = {
            "twitter": self._twitter,
            "youtube": self._youtube,
            "reddit": self._reddit,
            "image": self._image,
            "pdf": self._pdf,
            "chatThread": self._chat_thread,
            "selector": self._selector,
        }
        builder = builders.get(kind)
        return builder(index) if builder else self._unknown(index, kind)

    def entities(self) -> Iterator[LibraryLine]:
        """Every entity in order, each with its ``referencesByResultId`` entry if it has one.

        Nothing generated is kept but the few facts later entities draw on (:class:`_Entity`),
        so a library of a million items streams in the memory of those facts alone.
        """
        kinds = list(_TYPE_WEIGHTS)
        cum = list(itertools.accumulate(_TYPE_WEIGHTS.values()))
        for index in range(self.count):
            if index < len(_OPENING):
                kind = _OPENING[index]
            else:
                kind = self.meta_rng.choices(kinds, cum_weights=cum)[0]
            entity = self._one(index, kind)
            refs = self.references.pop(entity["id"], None)
            tag_ids = self._tag_ids()
            if tag_ids:
                entity["tag_ids"] = tag_ids
                refs = refs or {"contentEntityIds": [], "tagIds": []}
                refs["tagIds"] = tag_ids
            record = _Entity(entity["id"], entity["type"], entity["created_at"])
            self.known.append(record)
            if entity["type"] not in ("annotation", "selector"):
                self.items.append(record)
            if entity["type"] == "twitter":
                self.tweets.append(record)
            yield entity, refs

    def extras(self) -> JsonObject:
        """The library's tags, views, feeds and plans: everything but its entities."""
        return {
            "referencedTags": self.tags,
            "views": self._views(),
            "feeds": self._feeds(),
            "plans": available_plans(),
        }

    def build(self) -> JsonObject:
        """Generate every entity, then the library's tags, views, feeds and plans."""
        return library_object(self.entities(), self.extras())

    def _views(self) -> list[JsonObject]:
        """Two saved views: videos in the last year, and a popular tag's items by a common word."""
        return [
            {
                "id": f"view-videos-{self.seed}",
                "name": "Videos this year",
                "definition": {
                    "contentTypes": ["youtube"],
                    "timeRange": {"start": LIBRARY_END_MS - _YEAR_MS, "end": LIBRARY_END_MS},
                    "sortBy": "date-desc",
                },
            },
            {
                "id": f"view-tagged-{self.seed}",
                "name": f"Tagged {self.tags[0]['name']}",
                "definition": {
                    "query": self.vocabulary[3],
                    "tag_ids": [self.tags[0]["id"]],
                    "sortBy": "relevance",
                },
            },
        ]

    def _feeds(self) -> list[JsonObject]:
        """A few subscribed feeds of different platforms."""
        feeds = []
        for index, platform in enumerate(("rss", "substack", "youtube", "rss")):
            domain = self.domains[index]
            feeds.append(
                {
                    "id": f"feed-{self.seed}-{index}",
                    "title": _title(self.vocabulary[index * 3 + 10 : index * 3 + 12]),
                    "feed_url": f"https://www.{domain}/feed.xml",
                    "site_url": f"https://www.{domain}/",
                    "source_platform": platform,
                }
            )
        return feeds


def library_object(pairs: Iterable[LibraryLine], extras: JsonObject) -> JsonObject:
    """One library object in the raw search shape of ``(entity, references)`` pairs and the
    library's tags, views, feeds and plans."""
    results: list[JsonObject] = []
    references: dict[str, JsonObject] = {}
    for entity, refs in pairs:
        results.append(entity)
        if refs is not None:
            references[entity["id"]] = refs
    rest = dict(extras)
    return {
        "results": results,
        "extraEntities": [],
        "referencesByResultId": references,
        "referencedEntities": [],
        "referencedTags": rest.pop("referencedTags", []),
        "meta": library_meta(len(results)),
        **rest,
    }


def library_meta(count: int) -> JsonObject:
    """A ``SearchMeta`` describing the whole library as one page."""
    return {
        "offset": 0,
        "limit": count,
        "returnedCount": count,
        "rerankApplied": False,
        "usageMicrosCharged": 0,
        "remainingUsageBalance": {
            "usageBalancePaygMicros": 10_000_000,
            "usageBalanceSubscriptionMicros": 0,
            "total": 10_000_000,
        },
    }


def available_plans() -> JsonObject:
    """The plans offered when the usage balance runs out (``AvailablePlansOutput``)."""
    return {
        "environment": "development",
        "isProduction": False,
        "defaultPlanId": "starter-payg",
        "plans": [
            {
                "id": "starter-payg",
                "tierId": "starter",
                "planName": "Starter top-up",
                "pricingMode": "payg",
                "billingPeriod": "one_time",
                "variantId": 100_001,
                "currency": "USD",
                "amount": 500,
                "usageBalanceMicrosIncluded": 5_000_000,
                "isSubscription": False,
            },
            {
                "id": "unlimited-monthly",
                "tierId": "unlimited",
                "planName": "Unlimited monthly",
                "pricingMode": "subscription",
                "billingPeriod": "monthly",
                "variantId": 100_002,
                "currency": "USD",
                "amount": 1200,
                "usageBalanceMicrosIncluded": 20_000_000,
                "isSubscription": True,
                "productId": 42,
            },
            {
                "id": "lifetime",
                "tierId": "lifetime",
                "planName": "Lifetime",
                "pricingMode": "payg",
                "billingPeriod": "one_time",
                "variantId": "lifetime-2026",
                "currency": "USD",
                "amount": 24_900,
                "usageBalanceMicrosIncluded": 250_000_000,
                "isSubscription": False,
            },
        ],
        "recoveryHint": "Buy usage balance or subscribe, then retry the request.",
    }


def _iso_date(epoch_ms: int) -> str:
    """``YYYY-MM-DD`` of an epoch-milliseconds time (UTC)."""
    days = epoch_ms // 86_400_000
    # Civil-from-days (Howard Hinnant), avoiding a datetime object per entity.
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (1 if month <= 2 else 0)
    return f"{year:04d}-{month:02d}-{day:02d}"


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _video_id(index: int, rng: random.Random) -> str:
    """An 11-character YouTube-style id, unique per index (index in the low bits)."""
    value = (rng.getrandbits(36) << 30) | (index & ((1 << 30) - 1))
    return "".join(_B64[(value >> (6 * n)) & 63] for n in range(11))


def _base36(value: int) -> str:
    """``value`` in base 36 (Reddit post ids)."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = []
    while True:
        value, rest = divmod(value, 36)
        out.append(digits[rest])
        if not value:
            return "".join(reversed(out))


def _markdown_article(paragraphs: list[str], rng: random.Random) -> str:
    """Markdown with section headings, an occasional list and quote.

    The title is not repeated as a heading: the reader shows it above the text.
    """
    parts: list[str] = []
    for number, paragraph in enumerate(paragraphs):
        if number % 3 == 2:
            parts.append("## " + _title(paragraph.split(" ", 4)[:4]).rstrip("."))
        roll = rng.random()
        if roll < 0.08:
            parts.append("> " + paragraph)
        elif roll < 0.14:
            words = paragraph.split(" ")
            step = max(1, len(words) // 3)
            parts.append(
                "\n".join("- " + " ".join(words[i : i + step]) for i in range(0, len(words), step))
            )
        else:
            parts.append(paragraph)
    return "\n\n".join(parts)


def _html_article(title: str, paragraphs: list[str]) -> str:
    """A saved page's HTML (no markdown conversion happened for these)."""
    body = "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    return f"<article><h1>{title}</h1>{body}</article>"


def generate_library(entities: int, seed: int = 0, words_per_entity: int = 1000) -> JsonObject:
    """A library file of ``entities`` entities of every type, deterministic for ``seed``.

    Args:
        entities: how many entities ``results`` holds (16 or more for every type to appear).
        seed: the same seed always gives the same library.
        words_per_entity: the average number of words in each item's long text field
            (``full_text``, ``html``, transcript, ``text``, ``description``, messages).

    Returns:
        The library as a JSON-ready dict in the raw search response shape, with ``views``,
        ``feeds`` and ``plans`` besides.
    """
    return _generator(entities, seed, words_per_entity).build()


def write_generated_library(
    path: Path | str, entities: int, seed: int = 0, words_per_entity: int = 1000
) -> Path:
    """The library of :func:`generate_library` written as it is generated, in JSON Lines
    (:func:`~memex_desktop.emulator.library.read_library_lines`), so that no more than one
    entity of it is ever in memory: a million items is about 7.5 GB of JSON."""
    generator = _generator(entities, seed, words_per_entity)
    return write_library_lines(Path(path), generator.extras(), generator.entities())


def _generator(entities: int, seed: int, words_per_entity: int) -> _Generator:
    """The generator of one library, its arguments checked."""
    if entities < 0:
        raise ValueError("entities must be >= 0")
    if words_per_entity < 1:
        raise ValueError("words_per_entity must be >= 1")
    return _Generator(entities, seed, words_per_entity)


def write_library(path: Path | str, library: JsonObject) -> Path:
    """Write a library file atomically (a temporary file renamed over ``path``)."""
    target = Path(path)
    with written_atomically(target) as handle:
        json.dump(library, handle, ensure_ascii=False, separators=(",", ":"))
    return target


# --------------------------------------------------------------------------- benchmark queries


def _long_text(entity: JsonObject) -> str:
    """The long text of an entity, whatever field the type keeps it in."""
    for key in ("full_text", "text", "description"):
        value = entity.get(key)
        if isinstance(value, str) and value:
            return value
    transcript = entity.get("transcript")
    if isinstance(transcript, dict):
        return " ".join(
            segment.get("text", "") for lines in transcript.values() for segment in lines
        )
    return ""


def benchmark_queries(library_or_seed: JsonObject | int, count: int = 200) -> list[str]:
    """``count`` search queries of mixed frequency for benchmarks, deterministic.

    A mix of common words, rare words, two-word queries, prefixes, exact titles and exact URLs.
    Given a seed, the titles and URLs come from the start of that seed's generated library, so
    every generated library with the seed holds them (generation is prefix-stable).
    """
    if isinstance(library_or_seed, int):
        seed = library_or_seed
        library = generate_library(400, seed=seed, words_per_entity=150)
    else:
        seed = 0
        library = library_or_seed
    results = [entity for entity in library.get("results", []) if isinstance(entity, dict)]
    rng = random.Random(f"queries:{seed}:{len(results)}")
    counts: Counter[str] = Counter()
    for entity in results[:400]:
        counts.update(_long_text(entity).lower().replace(".", " ").split())
    ranked = [word for word, _ in counts.most_common() if word.isalpha()]
    if not ranked:
        raise ValueError("the library holds no text to draw queries from")
    common = ranked[:50]
    rare = [word for word in ranked if counts[word] == 1] or ranked[-50:]
    middle = ranked[50:2000] or ranked
    titles = [e["title"] for e in results if isinstance(e.get("title"), str) and e["title"]]
    urls = [e["url"] for e in results if isinstance(e.get("url"), str) and e["url"]]
    makers: list[tuple[int, Callable[[], str]]] = [
        (25, lambda: rng.choice(common)),
        (25, lambda: rng.choice(rare)),
        (20, lambda: f"{rng.choice(common + middle)} {rng.choice(middle)}"),
        (10, lambda: rng.choice(middle)[: rng.randint(3, 4)]),
        (10, lambda: rng.choice(titles) if titles else rng.choice(middle)),
        (10, lambda: rng.choice(urls) if urls else rng.choice(rare)),
    ]
    queries: list[str] = []
    for share, make in makers:
        queries += [make() for _ in range(math.ceil(count * share / 100))]
    rng.shuffle(queries)
    return queries[:count]
