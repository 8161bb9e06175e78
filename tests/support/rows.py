"""Display rows made up for ids no cache holds: for results models tested without a store,
and a results list shown on them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtTest import QAbstractItemModelTester

from memex_desktop.store import EntityRow
from memex_desktop.ui.results_delegate import ResultDelegate
from memex_desktop.ui.results_model import ResultsModel
from memex_desktop.ui.results_view import ResultsView

CREATED_AT = 1_700_000_000_000


def made_up_row(
    entity_id: str,
    *,
    type_: str = "web",
    title: str | None = None,
    url: str | None = None,
    site: str | None = None,
    snippet_source: str = "",
) -> EntityRow:
    """The row a list shows for ``entity_id``: titled "Title of ID" unless ``title`` says."""
    return EntityRow(
        id=entity_id,
        type=type_,
        title=f"Title of {entity_id}" if title is None else title,
        url=url,
        author=None,
        site=site,
        created_at=CREATED_AT,
        updated_at=None,
        status=None,
        deleted_upstream_at=None,
        snippet_source=snippet_source,
    )


class MadeUpRows:
    """A stand-in for CacheReader: a made-up row for any id, no snippets."""

    closed = False

    def get_many(self, ids: Sequence[str]) -> dict[str, EntityRow]:
        return {entity_id: made_up_row(entity_id) for entity_id in ids}

    def snippets(self, _query: str, _ids: Sequence[str]) -> dict[str, str]:
        return {}


def shown_list(qtbot: Any, ids: list[str], *, query: str = "") -> tuple[ResultsView, ResultsModel]:
    """A results list 400 by 600 pixels, shown, listing made-up rows of ``ids`` found by
    ``query``; every change of its model is checked as it happens (a broken one aborts)."""
    model = ResultsModel(MadeUpRows())
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal, model)
    model.set_results(ids, query=query)
    view = ResultsView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.setItemDelegate(ResultDelegate(view))
    view.resize(400, 600)
    view.show()
    qtbot.waitExposed(view)
    return view, model
