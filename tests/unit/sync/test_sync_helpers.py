"""Pure helpers of the sync engine: backoff, timestamps, outcomes, page clean-up."""

from __future__ import annotations

import pytest

from memex_desktop.api.errors import (
    AuthError,
    ContractError,
    InsufficientCredits,
    NetworkUnavailable,
    RateLimited,
    ServerError,
    ValidationError,
)
from memex_desktop.api.models import SearchRawPage
from memex_desktop.store.errors import DiskFullError
from memex_desktop.sync import (
    ConnectionState,
    OutboxPolicy,
    SyncCancelled,
    SyncOutcome,
    entity_time_ms,
    outcome_for,
)
from memex_desktop.sync.engine import _PassState, without_listed_notes


def test_backoff_is_full_jitter_and_capped() -> None:
    policy = OutboxPolicy(base_delay_s=1.0, max_delay_s=10.0)
    assert policy.backoff_s(0, lambda: 1.0) == 1.0
    assert policy.backoff_s(2, lambda: 1.0) == 4.0
    assert policy.backoff_s(20, lambda: 1.0) == 10.0
    assert policy.backoff_s(3, lambda: 0.0) == 0.0
    assert policy.backoff_s(3, lambda: 0.5) == 4.0
    assert policy.backoff_s(-1, lambda: 2.0) == 1.0  # clamped


@pytest.mark.parametrize(
    ("exc", "outcome"),
    [
        (NetworkUnavailable("x"), SyncOutcome.OFFLINE),
        (AuthError("x"), SyncOutcome.AUTH_REJECTED),
        (InsufficientCredits("x"), SyncOutcome.INSUFFICIENT_CREDITS),
        (ServerError("x"), SyncOutcome.SERVER_DOWN),
        (RateLimited("x"), SyncOutcome.SERVER_DOWN),
        (ContractError("x"), SyncOutcome.SERVER_DOWN),
        (ValidationError("x"), SyncOutcome.INCOMPATIBLE),
        (SyncCancelled(), SyncOutcome.CANCELLED),
    ],
)
def test_outcomes(exc: BaseException, outcome: SyncOutcome) -> None:
    assert outcome_for(exc) is outcome


@pytest.mark.parametrize(
    "exc", [RuntimeError("bug"), DiskFullError("writing cache.db: full"), OSError("gone")]
)
def test_what_goes_wrong_on_this_computer_is_a_failure_not_a_connection_state(
    exc: BaseException,
) -> None:
    assert outcome_for(exc) is SyncOutcome.FAILED
    assert SyncOutcome.FAILED.state is None


@pytest.mark.parametrize("outcome", list(SyncOutcome))
def test_every_outcome_but_cancelled_and_failed_is_a_connection_state(
    outcome: SyncOutcome,
) -> None:
    if outcome in (SyncOutcome.CANCELLED, SyncOutcome.FAILED):
        assert outcome.state is None
    elif outcome is SyncOutcome.OK:
        assert outcome.state is ConnectionState.ONLINE
    else:
        assert outcome.state is not None
        assert outcome.state.value == outcome.value


@pytest.mark.parametrize(
    ("created", "updated", "expected"),
    [
        # created_at only: updated_at is the shared content row's time, not the save's.
        (1_700_000_000_000, 1_800_000_000_000, 1_700_000_000_000),
        (1_700_000_000, None, 1_700_000_000_000),  # seconds, as every layer reads them
        (None, 1_800_000_000_000, None),
        ("2026-01-01T00:00:00Z", None, 1767225600000),
        ("not a date", None, None),
    ],
)
def test_entity_time(created: object, updated: object, expected: int | None) -> None:
    entity = {"id": "a", "type": "web", "created_at": created, "updated_at": updated}
    assert entity_time_ms(entity) == expected


def test_pass_state_round_trip_and_garbage() -> None:
    state = _PassState("abc", 120, 5)
    assert _PassState.load(state.dump()) == state
    assert _PassState.load("") is None
    assert _PassState.load(None) is None
    assert _PassState.load("{not json") is None
    assert _PassState.load('{"id": "x"}') is None


def test_notes_listed_under_their_parent_are_not_mentions() -> None:
    page = SearchRawPage.model_validate(
        {
            "results": [
                {"id": "page", "type": "web"},
                {"id": "note", "type": "annotation", "reference_content_ids": ["page", "other"]},
                {"id": "reply", "type": "annotation", "reference_content_ids": ["note"]},
            ],
            "referencesByResultId": {
                "page": {"contentEntityIds": ["note"], "tagIds": ["t1"]},
                "note": {
                    "contentEntityIds": ["page", "other", {"id": "reply", "type": "reply"}],
                    "tagIds": [],
                },
                "reply": {"contentEntityIds": [{"id": "note", "type": "reply"}], "tagIds": []},
            },
        }
    )
    cleaned = without_listed_notes(page)
    refs = cleaned.references_by_result_id
    assert refs["page"].targets() == []
    assert refs["page"].tag_ids == ["t1"]
    assert refs["note"].targets() == [("page", None), ("other", None)]
    assert refs["reply"].targets() == [("note", "reply")]
    untouched = SearchRawPage.model_validate({"results": [{"id": "x", "type": "web"}]})
    assert without_listed_notes(untouched) is untouched
