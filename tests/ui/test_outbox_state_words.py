"""The Outbox pane and ``outbox list`` name a save's state with the same words
(``errors.SAVE_STATE_WORDS``)."""

from __future__ import annotations

import pytest

from memex_desktop.errors import SAVE_STATE_WORDS, save_state_words
from memex_desktop.store import OutboxOp
from memex_desktop.ui.outbox_pane import save_state_text


def _op(state: str) -> OutboxOp:
    return OutboxOp(
        id=1,
        kind="save_url",
        url="https://example.org/a",
        normalized_url="https://example.org/a",
        external_id=None,
        payload=None,
        state=state,
        attempts=0,
        reason=None,
        entity_id=None,
        created_at=0,
        updated_at=0,
        next_attempt_at=0,
    )


@pytest.mark.parametrize("state", sorted(SAVE_STATE_WORDS))
def test_the_pane_says_each_state_in_the_shared_words(state: str) -> None:
    # A save that needs attention also says why, after its state.
    assert save_state_text(_op(state)).split(":")[0] == save_state_words(state)


def test_a_save_the_server_finished_with_is_sent() -> None:
    assert save_state_text(_op("accepted"), processing=False) == "Sent"
    assert save_state_text(_op("accepted"), processing=True) == "Sent · processing"
