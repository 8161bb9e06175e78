"""A plan's price in the unit the server means.

``amount`` is not documented as cents or whole units. The plans seen so far send cents
(``amount: 500`` for a top-up that includes 5,000,000 micros, $5, of usage), so the unit is
inferred: when the plan says how much usage it includes, the reading of ``amount`` closer to
that value wins; without it, a whole number is cents (the shape seen) and a fraction is money.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memex_desktop.api.models import AvailablePlan

MICROS_PER_UNIT = 1_000_000
CENTS_PER_UNIT = 100
CURRENCY_SIGNS = {"USD": "$", "EUR": "€", "GBP": "£"}


def price_in_units(amount: float, included_micros: float | None) -> float:
    """``amount`` in whole currency units (dollars), inferring whether it was given in cents."""
    as_cents = amount / CENTS_PER_UNIT
    if included_micros is not None and included_micros > 0 and amount > 0:
        included = included_micros / MICROS_PER_UNIT
        # The reading whose ratio to the included usage is nearer 1 (bonus usage is common).
        if abs(math.log(amount / included)) <= abs(math.log(as_cents / included)):
            return float(amount)
        return as_cents
    return as_cents if float(amount).is_integer() else float(amount)


def money(units: float, currency: str) -> str:
    """An amount of money as people write it: ``$5.00``, ``€12.50``, ``12.50 CHF``."""
    code = currency.upper()
    sign = CURRENCY_SIGNS.get(code)
    return f"{sign}{units:,.2f}" if sign else f"{units:,.2f} {code}"


def plan_price(plan: AvailablePlan) -> str | None:
    """The plan's price (``$5.00``), or None when it does not say one."""
    amount = plan.amount
    if amount is None or not plan.currency or not math.isfinite(amount) or amount < 0:
        return None
    included = plan.usage_balance_micros_included
    return money(price_in_units(float(amount), included), plan.currency)


def plan_label(plan: AvailablePlan) -> str:
    """The plan's name with its price: ``Starter top-up ($5.00)``."""
    name = plan.plan_name or plan.id
    price = plan_price(plan)
    return f"{name} ({price})" if price else name
