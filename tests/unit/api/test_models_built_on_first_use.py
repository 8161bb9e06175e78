"""The API models are built on their first use, not at import: importing them builds no
validator, and first uses on many threads at once each get the right model."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from support.children import child_env

# Run in new processes, so that every model is still unbuilt when the threads start: the
# same items parsed by 16 threads at once, and by one thread alone.
_FIRST_USES = textwrap.dedent(
    """
    import json, sys, threading
    from memex_desktop.api import models
    from memex_desktop.emulator.synthetic import generate_library

    built = [
        cls.__name__
        for cls in (models.ContentEntityBase, models.WebContentEntity,
                    models.TweetContentEntity, models.SearchRawPage, models.PageParse)
        if cls.__pydantic_complete__
    ]
    print(json.dumps({"built at import": built}))
    items = generate_library(32, seed=1)["results"]
    threads = int(sys.argv[1])
    barrier = threading.Barrier(threads)
    parsed = {}

    def first_use(index):
        barrier.wait()
        for item in items[index::threads]:
            entity = models.parse_content_entity(item)
            page = models.SearchRawResponse.model_validate({"results": [item]})
            parsed[item["id"]] = [
                type(entity).__name__, entity.to_json_dict(),
                [type(found).__name__ for found in page.results],
            ]

    workers = [threading.Thread(target=first_use, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    print(json.dumps(parsed, sort_keys=True))
    """
)


def _first_uses(threads: int) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_USES, str(threads)],
        capture_output=True,
        text=True,
        timeout=120,
        env=child_env(),
        check=True,
    )
    return done.stdout.splitlines()


def test_models_are_built_on_first_use_and_first_uses_on_threads_get_the_right_model() -> None:
    alone = _first_uses(1)
    together = _first_uses(16)
    assert alone[0] == together[0] == '{"built at import": []}'
    assert together[1] == alone[1]
    kinds = {kind for kind, _json, _page in json.loads(alone[1]).values()}
    assert {"WebContentEntity", "TweetContentEntity"} <= kinds, kinds
