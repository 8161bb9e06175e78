"""Display rows made up for ids no cache holds: for results models tested without a store."""

from __future__ import annotations

from memex_desktop.store import EntityRow

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
