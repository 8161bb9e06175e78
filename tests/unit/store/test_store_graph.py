"""Threads, backlinks with video moments, and the bounded neighbourhood."""

from __future__ import annotations

from memex_desktop.store import CacheReader, StoreWriter


def _note(note_id: str, parent: str, created: int, *mentions: str) -> dict:
    content = [
        {"type": "memex-reference", "attrs": {"content_id": target, "startTime": 42}}
        for target in mentions
    ]
    return {
        "id": note_id, "type": "annotation", "text": f"text of {note_id}",
        "reference_content_ids": [parent, *mentions], "created_at": 1_700_000_000_000 + created,
        "content": {"type": "doc", "content": [{"type": "paragraph", "content": content}]},
    }  # fmt: skip


def test_three_level_thread_in_time_order(writer: StoreWriter, reader: CacheReader) -> None:
    # Newest first, as a date-desc sync delivers them: replies before their parents.
    notes = [
        _note("r2b", "r1", 50),
        _note("r2a", "r1", 40),
        _note("late", "page", 30),
        _note("r1", "first", 20),
        _note("first", "page", 10),
    ]
    writer.ingest_json([*notes, {"id": "page", "type": "web", "title": "Page"}]).result()
    roots = reader.thread_for("page")
    assert [node.entity.id for node in roots] == ["first", "late"]
    assert [node.entity.id for node in roots[0].children] == ["r1"]
    assert [node.entity.id for node in roots[0].children[0].children] == ["r2a", "r2b"]
    assert roots[0].children[0].children[1].depth == 2
    assert roots[0].text == "text of first"
    assert {link.kind for link in reader.backlinks("first")} == {"reply"}


def test_backlink_into_a_video_carries_the_moment(writer: StoreWriter, reader: CacheReader) -> None:
    video = {"id": "vid", "type": "youtube", "title": "Talk"}
    writer.ingest_json([video, {"id": "p", "type": "web"}, _note("n", "p", 1, "vid")]).result()
    links = reader.backlinks("vid")
    assert [(link.source.id, link.kind, link.timestamp_s) for link in links] == [
        ("n", "references", 42.0)
    ]


def test_note_on_a_video_carries_its_moment(writer: StoreWriter, reader: CacheReader) -> None:
    video = {"id": "vid", "type": "youtube", "title": "Talk"}
    on_it = {
        "id": "n", "type": "annotation", "text": "the key point",
        "reference_content_ids": ["vid"], "selector": {"startTime": 83.5},
    }  # fmt: skip
    nested = {"id": "n2", "type": "annotation", "text": "listed under the video", "start": "12"}
    undated = {
        "id": "n3", "type": "annotation", "text": "no moment", "reference_content_ids": ["vid"],
    }  # fmt: skip
    writer.ingest_json([{**video, "annotations": [nested]}, on_it, undated]).result()
    links = {link.source.id: (link.kind, link.timestamp_s) for link in reader.backlinks("vid")}
    assert links == {
        "n": ("annotates", 83.5),
        "n2": ("annotates", 12.0),
        "n3": ("annotates", None),
    }


def test_chat_citations_become_references(writer: StoreWriter, reader: CacheReader) -> None:
    chat = {
        "id": "c", "type": "chatThread", "title": "Chat",
        "messages": [{"role": "assistant", "llmMessage": {"content": "see {{content:p}}"}}],
    }  # fmt: skip
    writer.ingest_json([chat, {"id": "p", "type": "web"}]).result()
    assert [(link.source.id, link.kind) for link in reader.backlinks("p")] == [("c", "references")]


def test_neighbourhood_respects_the_budget(writer: StoreWriter, reader: CacheReader) -> None:
    items = [
        {"id": f"e{i}", "type": "web", "title": f"E{i}", "tag_ids": ["hub"]} for i in range(400)
    ]
    items.append({"id": "center", "type": "web", "title": "C", "tag_ids": ["hub"]})
    writer.ingest_json(items, tags=[{"id": "hub", "name": "Hub"}]).result()
    around = reader.neighbourhood("center", hops=2, max_nodes=50)
    assert len(around.nodes) == 50
    assert around.omitted == 402 - 50  # 401 pages and the tag
    assert {node.type for node in around.nodes} >= {"tag", "web"}
    ids = {node.id for node in around.nodes}
    assert all(edge.source in ids and edge.target in ids for edge in around.edges)
