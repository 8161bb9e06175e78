"""The snippet line of a result row shows why the item matched: its first match is on
screen, every word of the query and every phrase marked; a search without words shows the
start of the text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

from memex_desktop.store import EntityRow
from memex_desktop.ui.results_model import ResultsModel, mark_terms

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]

SOURCE = (
    "Beerk kyn lil dy cais groa zi tag zul ziostbethondchiork hea lel dernoast rix batcryn "
    "jar papee fox jar outfox"
)


def _marked(snippet: str) -> list[str]:
    return re.findall("\x02([^\x03]*)\x03", snippet)


class _Reader:
    """A stand-in for CacheReader whose store snippets are left to the model (none match)."""

    def get_many(self, ids: Sequence[str]) -> dict[str, EntityRow]:
        return {
            entity_id: EntityRow(
                id=entity_id,
                type="note",
                title=f"Title of {entity_id}",
                url=None,
                author=None,
                site=None,
                created_at=1_700_000_000_000,
                updated_at=None,
                status=None,
                deleted_upstream_at=None,
                snippet_source=SOURCE,
            )
            for entity_id in ids
        }

    def snippets(self, query: str, ids: Sequence[str]) -> dict[str, str]:
        return {}


def test_a_search_without_words_shows_the_start_of_the_text(qapp: Any) -> None:
    model = ResultsModel(_Reader())
    model.set_results(["a"], query="tag:zul")
    snippet = model.data(model.index(0, 0), ResultsModel.SnippetRole)
    assert snippet.startswith("Beerk kyn")
    assert "\x02" not in snippet


def test_an_excerpt_marked_in_the_list_marks_words_as_the_search_matched_them() -> None:
    marked = mark_terms(SOURCE, '"fox jar" papee ')
    assert _marked(marked) == ["papee", "fox jar"]
    assert _marked(mark_terms(SOURCE, "fox ")) == ["fox"]
