"""The one ``runner`` fixture: a real two-thread TaskRunner, shut down (and its threads' cache
readers closed) after the test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memex_desktop.ui.readers import close_thread_readers
from memex_desktop.ui.tasks import TaskRunner


@pytest.fixture
def runner(qapp: Any) -> Iterator[TaskRunner]:
    """A TaskRunner with two workers; the test fails if its work does not stop within 30 s."""
    tasks = TaskRunner(max_threads=2)
    yield tasks
    assert tasks.shutdown(30_000)
    close_thread_readers()
