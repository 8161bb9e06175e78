"""Plan prices in the unit the server means (cents or whole units, inferred)."""

from __future__ import annotations

from typing import Any

import pytest

from memex_desktop.api.models import AvailablePlan, AvailablePlansOutput
from memex_desktop.api.plans import plan_label, plan_price, price_in_units
from memex_desktop.errors import describe_plans


def plan(**fields: Any) -> AvailablePlan:
    return AvailablePlan.model_validate({"id": "starter", "planName": "Starter top-up", **fields})


@pytest.mark.parametrize(
    ("fields", "price"),
    [
        # Cents: the shape the demo library and the emulator send.
        ({"amount": 500, "currency": "USD", "usageBalanceMicrosIncluded": 5_000_000}, "$5.00"),
        # Whole dollars for the same plan.
        ({"amount": 5, "currency": "usd", "usageBalanceMicrosIncluded": 5_000_000}, "$5.00"),
        # Bonus usage: $20 buys $25 of usage, in cents and in dollars.
        ({"amount": 2000, "currency": "USD", "usageBalanceMicrosIncluded": 25_000_000}, "$20.00"),
        ({"amount": 20, "currency": "USD", "usageBalanceMicrosIncluded": 25_000_000}, "$20.00"),
        # Without the included usage: a whole number is cents, a fraction is money.
        ({"amount": 1200, "currency": "EUR"}, "€12.00"),
        ({"amount": 12.5, "currency": "CHF"}, "12.50 CHF"),
        ({"amount": 500}, None),
        ({"currency": "USD"}, None),
    ],
)
def test_a_plan_price_is_in_the_unit_meant(fields: dict[str, Any], price: str | None) -> None:
    assert plan_price(plan(**fields)) == price


def test_a_free_plan_costs_nothing() -> None:
    assert price_in_units(0, 1_000_000) == 0


def test_the_plans_line_names_prices_in_money() -> None:
    options = AvailablePlansOutput.model_validate(
        {
            "plans": [
                {
                    "id": "starter-payg",
                    "planName": "Starter top-up",
                    "currency": "USD",
                    "amount": 500,
                    "usageBalanceMicrosIncluded": 5_000_000,
                },
                {"id": "pro-monthly"},
            ]
        }
    )
    assert describe_plans(options) == "Plans: Starter top-up ($5.00), pro-monthly"
    assert plan_label(options.plans[1]) == "pro-monthly"
