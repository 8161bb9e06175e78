"""The search language on a cache filled by the real import: every operator of the table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.caches import indexed_reader
from support.search_table import CASES, LIBRARY, Case

from memex_desktop.errors import user_message
from memex_desktop.store import CacheReader, ingest, open_cache
from memex_desktop.store.phrases import phrase_in_json
from memex_desktop.store.search_language import (
    SearchLanguageError,
    Term,
    content_types,
    parse_query,
    remote_request,
)
from memex_desktop.sync.export import import_json


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CacheReader]:
    path = tmp_path_factory.mktemp("search") / "cache.db"
    yield from indexed_reader(path, lambda writer: import_json(writer, LIBRARY))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_operator_finds_what_it_says(library: CacheReader, case: Case) -> None:
    if case.error:
        with pytest.raises(SearchLanguageError) as raised:
            library.search_ids(case.query)
        assert case.error in user_message(raised.value).text
        return
    found = library.search_ids(case.query, sort=case.sort)  # type: ignore[arg-type]
    if case.ordered:
        assert found == list(case.found)
    else:
        assert sorted(found) == sorted(case.found)


def test_an_exact_title_comes_before_items_that_only_mention_its_words(
    library: CacheReader,
) -> None:
    assert library.search_ids("Worm bin help")[0] == "reddit-1"
    assert library.search_ids("Build a Worm Bin in 15 Minutes")[0] == "video-1"


def test_saved_views_speak_the_same_language(library: CacheReader) -> None:
    assert library.ids_for_view("v-phrase") == ["worm-guide", "other-site"]
    assert library.ids_for_view("v-tweets") == ["tweet-1"]


def test_the_filter_menus_narrow_the_query_further(library: CacheReader) -> None:
    assert library.search_ids("worm", types=["twitter"]) == ["tweet-1"]
    assert library.search_ids("type:video", types=["twitter"]) == []


def test_snippets_mark_the_words_asked_for_not_the_operators(library: CacheReader) -> None:
    hit = library.search('"bin worm" -tag:garden site:urbanplots.example.com')[0]
    assert hit.id == "worm-guide"
    assert "\x02bin worm\x03" in hit.snippet
    assert "\x02garden" not in hit.snippet


def test_a_servers_results_keep_what_the_query_allows(library: CacheReader) -> None:
    every = library.search_ids("")
    assert library.matching_ids('"bin worm"', every) == ["worm-guide", "other-site"]
    assert library.matching_ids("site:reddit.com", every) == ["reddit-1"]
    assert library.matching_ids("-compost", ["tweet-1", "pdf-1", "unknown"]) == ["pdf-1"]


def test_the_server_is_asked_what_it_can_apply() -> None:
    query = parse_query('"bin worm" -mulch #compost type:tweet after:2024-03 site:x.example.com')
    text, options = remote_request(query, sort="newest", tag_ids=lambda name: ("t-" + name,))
    assert text == "bin worm"
    assert options["content_types"] == ["twitter"]
    assert options["tag_ids"] == ["t-compost"]
    assert options["sort_by"] == "date-desc"
    assert options["time_range"]["start"] == query.after_ms
    _, either = remote_request(parse_query("tag:a OR tag:b"))
    assert either == {"tag": "a,b", "tag_match_strategy": "OR"}


@pytest.mark.parametrize(
    ("name", "kinds"),
    [("tweet", ("twitter",)), ("Videos", None), ("note", ("annotation",)), ("chatThread", None)],
)
def test_people_names_of_types(name: str, kinds: tuple[str, ...] | None) -> None:
    found = content_types(name)
    assert found == kinds if kinds else found


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_any_text_is_a_query_or_a_clear_error(text: str) -> None:
    try:
        parse_query(text)
    except SearchLanguageError as exc:
        message = user_message(exc)
        assert message.level == "warning"
        assert "went wrong" not in message.text


_OPERATORY = st.lists(
    st.sampled_from(
        ['"', "-", "OR", "tag:", "#", "type:", "site:", "after:", "is:", "*", "(", ")", ":",
         "NEAR", "AND", "NOT", "^", "worm", "bin", "compost", " ", "\x00", "é", "\u19b0"]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_OPERATORY)
def test_no_query_reaches_sqlite_as_bad_syntax(library: CacheReader, text: str) -> None:
    try:
        library.search(text)
        library.search_ids(text, sort="oldest")
    except SearchLanguageError:
        pass


@pytest.fixture(scope="module")
def not_indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CacheReader]:
    """The table's library written as a sync page is, before the index has taken it in
    (its words are then looked for in the texts the index will take in)."""
    path = tmp_path_factory.mktemp("backlog") / "cache.db"
    library = json.loads(LIBRARY.read_text(encoding="utf-8"))
    db = open_cache(path)
    with db.conn:
        page = ingest.prepare_page(library["results"], tags=library["referencedTags"])
        ingest.apply_page(db, page, now_ms=0)
    db.close()
    reader = CacheReader(path)
    yield reader
    reader.close()


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("kitchen -tomatoes", ["worm-guide"]),
        ("scraps -kitchen", []),
        ('"bin worm"', ["other-site", "worm-guide"]),
        ('kitchen -"friendly worm"', ["worm-guide"]),
        ('kitchen -"worm friendly"', []),
        ("mulch OR tomatoes", ["blog-sub", "note-1", "tomato-log"]),
        ("site:urbanplots.example.com", ["blog-sub", "gone-1", "tomato-log", "worm-guide"]),
    ],
)
def test_items_the_index_does_not_hold_yet_follow_the_language(
    not_indexed: CacheReader, query: str, found: list[str]
) -> None:
    assert not_indexed.search_ids("urbanplots") != []  # read from the backlog
    assert sorted(not_indexed.search_ids(query)) == found


@pytest.mark.parametrize(
    ("text", "phrase", "holds"),
    [
        ({"full_text": "A worm\nbin"}, ("worm", "bin"), True),
        ({"full_text": "**worm** _bin_"}, ("worm", "bin"), True),
        ({"full_text": "Café bar"}, ("cafe", "bar"), True),
        ({"full_text": "x", "title": "bin"}, ("full", "text"), False),
        ({"title": "bin worm"}, ("title", "bin"), False),
        ({"full_text": "bin\nworm"}, ("nworm",), False),
        ({"full_text": "bin worms"}, ("bin", "worm"), False),
        ({"full_text": "worm and bin"}, ("worm", "bin"), False),
        ({"a bin": "bin bin"}, ("bin", "bin"), True),
        ({"full_text": "worm " * 3000 + "compost bin"}, ("compost", "bin"), True),
        ({"full_text": "bin " * 3000 + "compost  -  bins"}, ("compost", "bin"), False),
        ({"full_text": "compost" + " " * 100 + "bin"}, ("compost", "bin"), True),
    ],
)
def test_a_phrase_in_stored_json(
    text: dict[str, str], phrase: tuple[str, ...], holds: bool
) -> None:
    raw = json.dumps(text, ensure_ascii=False).lower()
    assert phrase_in_json(Term(phrase, phrase=True), raw) is holds


def test_a_database_of_the_store_test_fixture_is_not_needed(tmp_path: Path) -> None:
    """Searching a fresh cache with every operator works before anything is cached."""
    reader = CacheReader(tmp_path / "cache.db")
    try:
        assert reader.search_ids('"a b" -c tag:x site:y.example after:2024-01 is:deleted') == []
    finally:
        reader.close()
