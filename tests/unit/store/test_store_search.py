"""Local search: ranking, snippets, hostile syntax, filters, paging, views."""

from __future__ import annotations

import pytest

from memex_desktop.api.models import View
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.search_language import SearchLanguageError

T = 1_700_000_000_000  # epoch ms
ENTITIES = [
    {"id": "body", "type": "web", "title": "Gardening notes", "url": "https://b.example/x",
     "full_text": "Tomatoes need zephyr winds and patience.", "created_at": T + 3000},
    {"id": "titled", "type": "web", "title": "Zephyr", "url": "https://z.example/zephyr",
     "full_text": "A page about wind.", "created_at": T + 1000},
    {"id": "video", "type": "youtube", "title": "A talk", "url": "https://youtube.com/watch?v=1",
     "transcript": {"en": [{"offset": 12, "text": "the quixotic speaker begins"}]},
     "created_at": T + 2000, "tag_ids": ["t1"]},
    {"id": "note", "type": "annotation", "text": "A marginal thought about xylophones",
     "reference_content_ids": ["body"], "created_at": T + 4000},
    {"id": "chat", "type": "chatThread", "title": "Chat",
     "messages": [{"role": "user", "content": {"type": "doc", "content": [
         {"type": "paragraph", "content": [{"type": "text", "text": "ask about quokkas"}]}]}}],
     "created_at": T + 5000},
    {"id": "html", "type": "web", "title": "Html only", "url": "https://h.example/",
     "html": "<p>Plain <b>marmalade</b></p><script>hidden()</script>", "created_at": T + 6000},
]  # fmt: skip


@pytest.fixture
def filled(writer: StoreWriter, reader: CacheReader) -> CacheReader:
    writer.ingest_json(ENTITIES, tags=[{"id": "t1", "name": "talks"}]).result()
    return reader


def test_exact_url_first_then_title_over_body(filled: CacheReader) -> None:
    assert filled.search_ids("https://Z.example/zephyr/#top")[0] == "titled"
    assert filled.search_ids("z.example/zephyr")[0] == "titled"
    assert filled.search_ids("zephyr") == ["titled", "body"]


@pytest.mark.parametrize("where", ["title", "full_text"])
def test_a_typed_word_itself_comes_before_its_many_completions(
    writer: StoreWriter, reader: CacheReader, where: str
) -> None:
    """``uniq5`` while typing: the item with that very word, old as it is, is first."""
    items = [
        {"id": f"k-{n:05d}", "type": "web", "title": f"Item {n}", "full_text": "filler",
         "url": f"https://k.example/{n}", "created_at": T + n, where: f"marker uniq{n}"}
        for n in range(1, 6000)
    ]  # fmt: skip
    writer.ingest_json(items).result()
    writer.flush_index().result()
    assert reader.search_ids("uniq5", limit=20)[0] == "k-00005"
    assert reader.search_ids("uniq5 ", limit=20) == ["k-00005"]
    assert reader.search_ids("uniq59", limit=20)[0] == "k-00059"


def test_words_from_transcript_note_chat_and_html(filled: CacheReader) -> None:
    assert filled.search_ids("quixotic") == ["video"]
    assert filled.search_ids("xylophones") == ["note"]
    assert filled.search_ids("quokkas") == ["chat"]
    assert filled.search_ids("marmalade") == ["html"]
    assert filled.search_ids("hidden") == []


def test_snippet_marks_the_match(filled: CacheReader) -> None:
    hit = filled.search("quixotic")[0]
    assert "\x02quixotic\x03" in hit.snippet
    assert "\x02xylophones\x03" in filled.search("xylo")[0].snippet


@pytest.mark.parametrize("query", ['"foo', "AND", "OR NOT", "NEAR(", "title:x", "a^b", "-x"])
def test_hostile_syntax_never_raises(filled: CacheReader, query: str) -> None:
    assert isinstance(filled.search(query), list)


@pytest.mark.parametrize("query", ["*", "(", '"', "\x00"])
def test_syntax_without_words_says_so_and_never_reaches_sqlite(
    filled: CacheReader, query: str
) -> None:
    with pytest.raises(SearchLanguageError, match="has no words to search for"):
        filled.search(query)


def test_a_word_the_index_splits_in_two_finds_nothing_instead_of_failing(
    filled: CacheReader,
) -> None:
    # U+19B0 is a letter to Python and a separator to SQLite's older Unicode tables: the
    # quoted word becomes a phrase, which the column-detail indexes cannot match.
    assert filled.search_ids("quix\u19b0otic") == []
    assert filled.search_ids("quix\u19b0otic words ") == []
    assert filled.search_ids("quix\u19b0otic -words") == []


def test_an_expression_the_index_refuses_as_a_phrase_matches_nothing(
    filled: CacheReader,
) -> None:
    # The queries above never reach the index with such a word; an expression that does
    # (a tokenizer other than the one the query was checked against) matches nothing.
    refused = '"quix\u19b0otic"'
    assert filled._fts_ids("body_fts", refused, "", [], 10) == []
    assert filled._probe("body_fts", refused, 10) is None
    assert filled._matching_in_range("body_fts", refused, [1, 2]) is None


def test_prefix_of_last_word(filled: CacheReader) -> None:
    assert filled.search_ids("quix") == ["video"]
    assert filled.search_ids("quix ") == []


def test_filters_and_paging(filled: CacheReader) -> None:
    assert filled.search_ids("", types=["web"]) == ["html", "body", "titled"]
    assert filled.search_ids("", tag_id="t1") == ["video"]
    assert filled.search_ids("", date_from_ms=T + 2000, date_to_ms=T + 4000) == [
        "note",
        "body",
        "video",
    ]
    assert [hit.id for hit in filled.search("", limit=2, offset=1)] == ["chat", "note"]
    assert filled.ids_with_tag("t1") == ["video"]


def test_view_definition_runs_on_the_cache(writer: StoreWriter, filled: CacheReader) -> None:
    views = [
        View(id="v1", name="Videos", definition={"contentTypes": ["youtube"]}),
        View(id="v2", name="Zephyr", definition={"query": "zephyr", "sortBy": "date-desc"}),
        View(id="v3", name="Range", definition={"timeRange": {"from": T + 4500, "to": T + 9000}}),
    ]
    assert writer.upsert_views(views).result().view_ids == {"v1", "v2", "v3"}
    assert not writer.upsert_views(views).result()
    assert [view.name for view in filled.views()] == ["Range", "Videos", "Zephyr"]
    assert filled.ids_for_view("v1") == ["video"]
    assert filled.ids_for_view("v2") == ["body", "titled"]
    assert filled.ids_for_view("v3") == ["html", "chat"]


@pytest.mark.parametrize("count", [700, 3000])
def test_several_typed_words_put_the_words_as_typed_first(
    writer: StoreWriter, reader: CacheReader, count: int
) -> None:
    """``marker uniq5``: the old item with ``uniq5`` itself comes before newer completions,
    both when they fill the page and when every match fits on it, and whether the index's
    first read holds every match (700 items: 111 of ``uniq5``) or not (3,000: 1,111)."""
    crowded = [
        {"id": f"k-{n:05d}", "type": "web", "title": f"Item {n}", "full_text": f"marker uniq{n}",
         "url": f"https://k.example/{n}", "created_at": T + n}
        for n in range(1, count)
    ]  # fmt: skip
    writer.ingest_json(crowded).result()
    writer.flush_index().result()
    assert reader.search_ids("marker uniq5", limit=20)[0] == "k-00005"
    assert reader.search_ids("marker uniq69", limit=20)[0] == "k-00069"
    # Fewer hits than the page holds: the one with the word as typed is moved up.
    few = reader.search_ids("item uniq68", limit=20)
    assert few[0] == "k-00068"
    assert set(few) == {"k-00068", *(f"k-{n:05d}" for n in range(680, 690))}


@pytest.mark.parametrize("lookup_limit", [400, 3])
@pytest.mark.parametrize("sort", ["relevance", "newest", "oldest"])
def test_a_small_tag_finds_the_same_items_as_a_large_one_would(
    writer: StoreWriter,
    reader: CacheReader,
    monkeypatch: pytest.MonkeyPatch,
    lookup_limit: int,
    sort: str,
) -> None:
    """A tag with few items is searched by looking its items up (a tag with more than the
    limit by reading the word's doclist): the same hits, in the same order."""
    import memex_desktop.store.reader as reader_module

    monkeypatch.setattr(reader_module, "FEW_ROWS_LIMIT", lookup_limit)
    items = [
        {"id": f"p-{n:04d}", "type": "web", "title": f"Page {n}", "url": f"https://p.example/{n}",
         "full_text": "common words " + ("pumpkin" if n % 3 else "squash"),
         "created_at": T + n, **({"tag_ids": ["small"], "type": "pdf"} if n % 97 == 0 else {})}
        for n in range(1, 1500)
    ]  # fmt: skip
    writer.ingest_json(items, tags=[{"id": "small", "name": "harvest"}]).result()
    writer.flush_index().result()
    tagged = [n for n in range(1, 1500) if n % 97 == 0]
    pumpkins = [f"p-{n:04d}" for n in sorted(tagged, reverse=sort != "oldest") if n % 3]
    assert reader.search_ids("tag:harvest pumpkin", sort=sort) == pumpkins  # type: ignore[arg-type]
    assert reader.search_ids("pumpkin", tag_id="small", sort=sort) == pumpkins  # type: ignore[arg-type]
    assert reader.search_ids("type:pdf pumpkin", sort=sort) == pumpkins  # type: ignore[arg-type]
    assert reader.search_ids("pumpkin", types=["pdf"], sort=sort) == pumpkins  # type: ignore[arg-type]
    assert reader.search_ids("tag:harvest common -pumpkin", sort=sort) == [  # type: ignore[arg-type]
        f"p-{n:04d}" for n in sorted(tagged, reverse=sort != "oldest") if not n % 3
    ]


@pytest.mark.parametrize("filler", ["filler", "filler fias then skais"])
@pytest.mark.parametrize("spread", [1, 150])
def test_an_excluded_phrase_is_checked_on_rows_near_and_far_apart(
    writer: StoreWriter, reader: CacheReader, spread: int, filler: str
) -> None:
    """Rows close together are checked with one range of the index, rows spread over the
    library by a short read of the index (enough when the words are rare) and then word by
    word (when the rows between hold the words too): the same items are left out."""
    items = [
        {"id": f"s-{n:05d}", "type": "web", "title": f"Row {n}", "url": f"https://s.example/{n}",
         "full_text": ("alpha skais fias" if n % (2 * spread) == 0
                       else "alpha fias skais" if n % spread == 0 else filler),
         "created_at": T + n}
        for n in range(1, 40 * spread + 1)
    ]  # fmt: skip
    writer.ingest_json(items).result()
    writer.flush_index().result()
    reversed_order = [
        f"s-{n:05d}" for n in range(40 * spread, 0, -1) if n % spread == 0 and n % (2 * spread)
    ]
    assert reader.search_ids('alpha -"skais fias"', sort="newest") == reversed_order


@pytest.mark.parametrize("count", [120, 450])
def test_many_words_find_the_newest_items_holding_them_all(
    writer: StoreWriter, reader: CacheReader, count: int
) -> None:
    """Four words or more are read from the index oldest first while they match few items,
    newest first when they match many: newest first in the results either way."""
    items = [
        {"id": f"w-{n:04d}", "type": "web", "title": f"Entry {n}", "url": f"https://w.example/{n}",
         "full_text": "amber basil cedar" + (" dill" if n % 2 else ""), "created_at": T + n}
        for n in range(1, 2 * count + 1)
    ]  # fmt: skip
    writer.ingest_json(items).result()
    writer.flush_index().result()
    holding = [f"w-{n:04d}" for n in range(2 * count, 0, -1) if n % 2]
    assert reader.search_ids("amber basil cedar dill", limit=1000) == holding
    assert reader.search_ids("amber basil cedar dill", limit=30) == holding[:30]


def test_every_id_is_read_once_in_batches(filled: CacheReader) -> None:
    batches = list(filled.ids_in_batches(size=4))
    assert [len(batch) for batch in batches] == [4, 2]
    assert sorted(i for batch in batches for i in batch) == sorted(e["id"] for e in ENTITIES)


def test_more_items_are_looked_up_one_by_one_in_a_larger_library(
    writer: StoreWriter, reader: CacheReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memex_desktop.store.reader as reader_module

    monkeypatch.setattr(reader_module, "_FEW_ROWS_AT", 100)  # a "large" library of 100
    small = [{"id": f"s-{n}", "type": "web", "title": f"S {n}", "created_at": T + n}
             for n in range(50)]  # fmt: skip
    writer.ingest_json(small).result()
    assert reader._few_rows_limit() == reader_module.FEW_ROWS_LIMIT  # never fewer
    larger = [{"id": f"l-{n}", "type": "web", "title": f"L {n}", "created_at": T + n}
              for n in range(850)]  # fmt: skip
    writer.ingest_json(larger).result()
    # The size is taken as known for a while, then counted again: 900 items, 3 times 400.
    assert reader._few_rows_limit() == reader_module.FEW_ROWS_LIMIT
    monkeypatch.setattr(reader_module, "LIBRARY_COUNT_TTL_S", 0.0)
    assert reader._few_rows_limit() == 3 * reader_module.FEW_ROWS_LIMIT


@pytest.mark.parametrize("sort", ["relevance", "newest"])
def test_a_phrase_finds_every_item_holding_it_however_few_hold_it_among_its_words_items(
    writer: StoreWriter, reader: CacheReader, sort: str
) -> None:
    """Most items hold both words apart and few the phrase: the search reads on through the
    items holding the words until it has the page asked for, or every one of them."""
    items = [
        {"id": f"p-{n:05d}", "type": "web", "title": f"Item {n}", "created_at": T + n,
         "full_text": "bia once and hel twice" if n % 40 else f"words bia hel number{n}"}
        for n in range(6000)
    ]  # fmt: skip
    writer.ingest_json(items).result()
    writer.flush_index().result()
    holding = {f"p-{n:05d}" for n in range(0, 6000, 40)}
    assert set(reader.search_ids('"bia hel"', sort=sort)) == holding
    first_page = reader.search_ids('"bia hel"', limit=51, sort=sort)
    assert len(first_page) == 51
    assert set(first_page) <= holding
