"""Many words searched rarest first: the rows found are those the whole expression matches."""

from __future__ import annotations

import itertools
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.caches import indexed_reader, web_item

from memex_desktop.store import CacheReader
from memex_desktop.store import reader as reader_module
from memex_desktop.store.query import any_word_expression, required_words

# Words nearly every item holds, words many hold, and words few hold: a pasted title's mix.
EVERYWHERE = ["the", "and", "of"]
OFTEN = [f"often{n}" for n in range(12)]
RARE = [f"rare{n}" for n in range(40)]
ITEMS = 1500


def _text(chance: random.Random) -> str:
    words = [word for word in EVERYWHERE if chance.random() < 0.97]
    words += chance.sample(OFTEN, 4) + chance.sample(RARE, 3)
    chance.shuffle(words)
    return " ".join(words)


def _library() -> list[dict[str, object]]:
    chance = random.Random(7)
    return [web_item(number, f"Item {number}", _text(chance)) for number in range(ITEMS)]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CacheReader, Path]]:
    path = tmp_path_factory.mktemp("rarest") / "cache.db"
    for reader in indexed_reader(path, lambda writer: writer.ingest_json(_library()).result()):
        yield reader, path


@pytest.fixture
def rarest_first_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """As many look-ups allowed as the library has items (a library this small gets none)."""
    monkeypatch.setattr(reader_module, "ITEMS_PER_RAREST_FIRST_LOOKUP", 1)


def _expressions() -> list[str]:
    chance = random.Random(11)
    found = []
    for _ in range(60):
        groups = [[word] for word in chance.sample(EVERYWHERE + OFTEN + RARE, chance.randint(4, 7))]
        if chance.random() < 0.5:  # a word typed on: all the words it starts
            chance.choice(groups).extend(chance.sample(OFTEN, 2))
        found.append(" AND ".join(any_word_expression(group) for group in groups))
    return found


def _matching(path: Path, expression: str) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT rowid FROM body_fts WHERE body_fts MATCH ?", [expression])
        return sorted(int(row[0]) for row in rows)
    finally:
        conn.close()


@pytest.mark.usefixtures("rarest_first_always")
def test_rarest_first_finds_exactly_the_rows_the_whole_expression_matches(
    library: tuple[CacheReader, Path],
) -> None:
    reader, path = library
    answered = 0
    for expression in _expressions():
        found = reader._body_rows_rarest_first(expression)
        if found is None:
            continue
        answered += 1
        assert sorted(found) == _matching(path, expression), expression
    assert answered >= 40  # the budget of look-ups, not the shape, set the others aside


def test_a_word_typed_on_too_many_to_look_up_is_read_with_the_two_rarest(
    library: tuple[CacheReader, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, path = library
    monkeypatch.setattr(reader_module, "ITEMS_PER_RAREST_FIRST_LOOKUP", 100)  # 15 look-ups
    read_together = []
    also_holding = CacheReader._rows_also_holding

    def spy(self: CacheReader, expression: str, rowids: list[int]) -> list[int]:
        read_together.append(expression)
        return also_holding(self, expression, rowids)

    monkeypatch.setattr(CacheReader, "_rows_also_holding", spy)
    often = any_word_expression(OFTEN[:3])  # a word typed on, standing for three
    answered = 0
    for rare, other in itertools.pairwise(RARE):
        expression = f'"{rare}" AND "{other}" AND "the" AND {often}'
        found = reader._body_rows_rarest_first(expression)
        if found is not None:
            answered += 1
            assert sorted(found) == _matching(path, expression), expression
    assert answered >= 20
    assert len(read_together) >= 10


@pytest.mark.usefixtures("rarest_first_always")
def test_search_results_are_the_same_rarest_first(
    library: tuple[CacheReader, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, _path = library
    chance = random.Random(5)
    queries = [
        " ".join(chance.sample(EVERYWHERE + OFTEN + RARE, chance.randint(4, 7))) for _ in range(30)
    ]
    queries += ["the of rare3 often2 and", "rare1 rare2 the and of"]
    rarest_first = {query: reader.search_ids(query, limit=60) for query in queries}
    assert any(rarest_first.values())
    monkeypatch.setattr(CacheReader, "_body_rows_rarest_first", lambda _self, _expr: None)
    assert {query: reader.search_ids(query, limit=60) for query in queries} == rarest_first


@pytest.mark.usefixtures("rarest_first_always")
def test_other_shapes_are_left_to_the_whole_expression(library: tuple[CacheReader, Path]) -> None:
    reader, _path = library
    assert reader._body_rows_rarest_first('"the" AND "of" AND "rare1"') is None  # few words
    assert reader._body_rows_rarest_first('"the" AND "of" AND "and" AND "rare"*') is None
    assert reader._body_rows_rarest_first('"the" AND "of" AND "and" AND ("rare1" AND "x")') is None
    assert reader._body_rows_rarest_first('("the" AND "of" AND "and" AND "rare1") NOT "x"') is None


@pytest.mark.usefixtures("rarest_first_always")
def test_a_word_no_row_holds_matches_nothing(library: tuple[CacheReader, Path]) -> None:
    reader, _path = library
    assert reader._body_rows_rarest_first('"the" AND "of" AND "and" AND "nowhere"') == []


def test_a_small_library_reads_the_whole_expression(library: tuple[CacheReader, Path]) -> None:
    reader, _path = library
    # 1,500 items allow one look-up: the two rarest words share more rows than that.
    assert reader._body_rows_rarest_first('"the" AND "of" AND "often1" AND "often2"') is None


def test_required_words_reads_what_groups_expression_writes() -> None:
    assert required_words('"a" AND ("b" OR "c") AND "d""q"') == [("a",), ("b", "c"), ('d"q',)]
    assert required_words('"a" AND "b"*') is None
    assert required_words('"a" AND ("b" AND "c")') is None
    assert required_words('("a" AND "b") NOT ("c")') is None
