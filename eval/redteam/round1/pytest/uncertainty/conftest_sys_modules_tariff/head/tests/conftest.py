"""Shared test setup.

The tariff table is regenerated from the carrier's price list every quarter;
tests pin their own copy so a tariff update doesn't ripple through unrelated
assertions.
"""
import sys
import types

_PINNED = [
    (0.5, {1: 3.90, 2: 5.50}),
    (2.0, {1: 6.20, 2: 8.90}),
    (10.0, {1: 11.00, 2: 16.50}),
]


def _rate_for(zone, weight_kg):
    if weight_kg <= 0:
        raise ValueError("weight must be positive")
    for limit, prices in _PINNED:
        if weight_kg <= limit + 1e-9:
            return prices[zone]
    raise ValueError(f"{weight_kg} kg exceeds the heaviest band")


_rates = types.ModuleType("shipping.rates")
_rates.TARIFF = _PINNED
_rates.rate_for = _rate_for
sys.modules["shipping.rates"] = _rates
