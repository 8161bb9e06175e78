"""The generated libraries: shape, every content type, threads, references, speed, determinism."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from memex_desktop.api.models import (
    AvailablePlansOutput,
    Feed,
    SearchRawResponse,
    View,
    parse_content_entity,
)
from memex_desktop.emulator.synthetic import (
    ALL_TYPES,
    LIBRARY_END_MS,
    LIBRARY_START_MS,
    MAX_REPLY_DEPTH,
    benchmark_queries,
    build_vocabulary,
    generate_library,
    write_library,
)

Library = dict[str, Any]


@pytest.fixture(scope="module")
def library() -> Library:
    return generate_library(1500, seed=7, words_per_entity=120)


def _by_id(library: Library) -> dict[str, dict[str, Any]]:
    return {entity["id"]: entity for entity in library["results"]}


def _reply_depth(entity_id: str, by_id: dict[str, dict[str, Any]]) -> int:
    """How many annotation parents lie above a note (0 = a note on an item)."""
    depth = 0
    parent = by_id[entity_id]["reference_content_ids"][0]
    while by_id[parent]["type"] == "annotation":
        depth += 1
        parent = by_id[parent]["reference_content_ids"][0]
    return depth


def test_library_validates_as_a_raw_search_response(library: Library) -> None:
    response = SearchRawResponse.model_validate(library)
    assert len(response.results) == 1500
    assert response.meta.returned_count == 1500
    assert response.extra_entities == []
    assert response.referenced_entities == []
    assert {entity.type for entity in response.results} == set(ALL_TYPES)
    typed = Counter(type(parse_content_entity(e)).__name__ for e in library["results"])
    # Every type with a model of its own parses into it, not into the fallback.
    for name in ("Web", "Tweet", "Youtube", "Image", "Reddit", "Annotation"):
        assert typed[f"{name}ContentEntity"] > 0, name


def test_every_content_type_and_variant_is_present(library: Library) -> None:
    entities = library["results"]
    by_type = Counter(entity["type"] for entity in entities)
    assert set(by_type) == set(ALL_TYPES)
    webs = [e for e in entities if e["type"] == "web"]
    assert any("full_text" in e and "\n## " in e["full_text"] for e in webs)
    assert any("html" in e and "full_text" not in e for e in webs)
    tweets = [e for e in entities if e["type"] == "twitter"]
    assert any(e.get("images") and e.get("image_analysis") for e in tweets)
    assert any(e.get("videos") for e in tweets)
    assert any(e.get("quote_tweet") for e in tweets)
    video = next(e for e in entities if e["type"] == "youtube")
    assert video["channel_title"]
    assert video["summary"]["en"]
    segments = video["transcript"]["en"]
    assert len(segments) > 1
    assert all(set(segment) == {"offset", "text", "duration"} for segment in segments)
    assert [s["offset"] for s in segments] == sorted(s["offset"] for s in segments)
    chat = next(e for e in entities if e["type"] == "chatThread")
    assert {m["role"] for m in chat["messages"]} == {"user", "assistant"}
    assert any("{{content:" in m["llmMessage"]["content"] for m in chat["messages"])


def test_the_smallest_complete_library_has_every_type() -> None:
    library = generate_library(16, seed=3, words_per_entity=20)
    assert {entity["type"] for entity in library["results"]} == set(ALL_TYPES)


def test_reply_threads_reach_three_levels_and_never_more(library: Library) -> None:
    by_id = _by_id(library)
    notes = [e for e in library["results"] if e["type"] == "annotation"]
    depths = Counter(_reply_depth(note["id"], by_id) for note in notes)
    assert max(depths) == MAX_REPLY_DEPTH
    assert depths[0]
    assert depths[1]
    assert depths[2]
    assert depths[3] >= 3
    for note in notes:
        parent_id = note["reference_content_ids"][0]
        parent = by_id[parent_id]
        assert note["created_at"] > parent["created_at"]
        first = library["referencesByResultId"][note["id"]]["contentEntityIds"][0]
        if parent["type"] == "annotation":
            assert first == {"id": parent_id, "type": "reply"}
        else:
            assert first == parent_id


def test_annotations_mention_other_items_consistently(library: Library) -> None:
    by_id = _by_id(library)
    mentioning = 0
    for note in (e for e in library["results"] if e["type"] == "annotation"):
        nodes = [
            node["attrs"]["content_id"]
            for block in note["content"]["content"]
            for node in block["content"]
            if node["type"] == "memex-reference"
        ]
        assert nodes == note["reference_content_ids"][1:]
        refs = library["referencesByResultId"][note["id"]]["contentEntityIds"]
        assert refs[1:] == nodes
        assert all(target in by_id for target in nodes)
        mentioning += bool(nodes)
        assert note["text"]
        assert note["text"].split("\n\n")[0] in json.dumps(note["content"])
    assert mentioning > 20


def test_every_reference_and_tag_resolves(library: Library) -> None:
    by_id = _by_id(library)
    tag_ids = {tag["id"] for tag in library["referencedTags"]}
    for source, refs in library["referencesByResultId"].items():
        assert source in by_id
        for target in refs["contentEntityIds"]:
            assert (target if isinstance(target, str) else target["id"]) in by_id
        assert set(refs["tagIds"]) <= tag_ids
        assert refs["tagIds"] == by_id[source].get("tag_ids", [])
    for entity in library["results"]:
        assert set(entity.get("reference_content_ids", [])) <= set(by_id)
        if entity.get("tag_ids"):
            assert library["referencesByResultId"][entity["id"]]["tagIds"] == entity["tag_ids"]
        if entity["type"] == "selector":
            assert entity["target_id"] in by_id
        if entity["type"] == "chatThread":
            for message in entity["messages"]:
                for cited in message["llmMessage"]["content"].split("{{content:")[1:]:
                    assert cited.split("}}")[0] in entity["reference_content_ids"]
    used = Counter(tag for e in library["results"] for tag in e.get("tag_ids", []))
    assert len(used) > 3
    assert used.most_common(1)[0][1] > 5 * min(used.values())


def test_ids_urls_timestamps_and_status(library: Library) -> None:
    entities = library["results"]
    assert len({e["id"] for e in entities}) == len(entities)
    urls = [e["url"] for e in entities if "url" in e]
    assert len(urls) == len(set(urls)) > 1000
    assert all(url.startswith("https://") for url in urls)
    for entity in entities:
        assert LIBRARY_START_MS <= entity["created_at"] <= entity["updated_at"]
        assert entity["created_at"] < LIBRARY_END_MS
        assert entity["metadata"] == {"status": "indexing-done"}
    years = (max(e["created_at"] for e in entities) - min(e["created_at"] for e in entities)) / (
        365 * 24 * 3600 * 1000
    )
    assert 2.5 < years <= 3.2


def test_views_feeds_and_plans(library: Library) -> None:
    views = [View.model_validate(view) for view in library["views"]]
    assert len(views) == 2
    assert len({v.id for v in views}) == 2
    tag_ids = {tag["id"] for tag in library["referencedTags"]}
    for view in views:
        assert view.definition
        assert set(view.definition.get("tag_ids", [])) <= tag_ids
    feeds = [Feed.model_validate(feed) for feed in library["feeds"]]
    assert len(feeds) >= 3
    assert all(f.feed_url and f.site_url for f in feeds)
    plans = AvailablePlansOutput.model_validate(library["plans"])
    assert plans.plans
    assert plans.default_plan_id in {p.id for p in plans.plans}


def test_words_follow_a_zipf_distribution() -> None:
    library = generate_library(400, seed=1, words_per_entity=400)
    counts: Counter[str] = Counter()
    for entity in library["results"]:
        if entity["type"] == "reddit":
            counts.update(entity["text"].lower().replace(".", " ").split())
    ranked = [count for _, count in counts.most_common()]
    assert len(ranked) > 3000  # a large vocabulary is in use
    # Zipf: frequency ~ 1/rank, so rank 1 is about ten times rank 10.
    assert 5 < ranked[0] / ranked[9] < 20
    assert sum(1 for count in ranked if count == 1) > 1000  # many rare words


def test_vocabulary_is_distinct_and_seeded() -> None:
    words = build_vocabulary(5)
    assert len(words) == len(set(words)) == 20_000
    assert words == build_vocabulary(5)
    assert words != build_vocabulary(6)
    assert sum(map(len, words[:100])) < sum(map(len, words[-100:]))  # common words are short


def test_words_per_entity_sets_the_length_of_long_texts() -> None:
    library = generate_library(300, seed=2, words_per_entity=500)
    lengths = [len(e["text"].split()) for e in library["results"] if e["type"] == "reddit"]
    average = sum(lengths) / len(lengths)
    assert 400 < average < 600
    assert max(lengths) > 1.5 * min(lengths)  # lengths vary


def test_same_seed_same_library_other_seed_other_library() -> None:
    first = json.dumps(generate_library(200, seed=11, words_per_entity=50))
    assert first == json.dumps(generate_library(200, seed=11, words_per_entity=50))
    assert first != json.dumps(generate_library(200, seed=12, words_per_entity=50))


def test_generation_is_prefix_stable() -> None:
    small = generate_library(300, seed=4, words_per_entity=30)["results"]
    large = generate_library(900, seed=4, words_per_entity=200)["results"][:300]
    keys = ("id", "type", "title", "url", "created_at", "reference_content_ids")
    assert [[e.get(k) for k in keys] for e in small] == [[e.get(k) for k in keys] for e in large]


def test_five_thousand_entities_build_in_a_few_seconds() -> None:
    # CPU time of this process: other work on a busy machine does not count against it.
    start = time.process_time()
    library = generate_library(5000, seed=0)
    elapsed = time.process_time() - start
    assert len(library["results"]) == 5000
    assert elapsed < 8.0, f"{elapsed:.1f} s"
    assert len(library["referencedTags"]) == 50


def test_write_library_round_trips(tmp_path: Path) -> None:
    library = generate_library(50, seed=9, words_per_entity=40)
    path = write_library(tmp_path / "deep" / "library.json", library)
    assert json.loads(path.read_text(encoding="utf-8")) == library
    assert not list(path.parent.glob("*.tmp"))


def test_benchmark_queries_mix_frequencies_titles_and_urls() -> None:
    queries = benchmark_queries(5, count=200)
    assert len(queries) == 200
    assert queries == benchmark_queries(5, count=200)
    library = generate_library(2000, seed=5, words_per_entity=100)
    titles = {e["title"] for e in library["results"] if "title" in e}
    urls = {e["url"] for e in library["results"] if "url" in e}
    assert sum(query in titles for query in queries) >= 15
    assert sum(query in urls for query in queries) >= 15
    assert sum(" " in q and q not in titles for q in queries) >= 30  # two-word queries
    singles = [q for q in queries if q.isalpha()]
    text = " ".join(e.get("text", "") for e in library["results"]).lower()
    frequencies = sorted(text.count(f" {q} ") for q in set(singles))
    assert frequencies[0] < 50 < frequencies[-1]


def test_benchmark_queries_from_a_library_dict(library: Library) -> None:
    queries = benchmark_queries(library, count=40)
    assert len(queries) == 40
    assert any(q.startswith("https://") for q in queries)
