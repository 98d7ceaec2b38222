"""Carrier tariff: price per parcel by weight band and zone."""

# (upper weight limit in kg, inclusive) -> price per zone
TARIFF = [
    (0.5, {1: 3.90, 2: 5.50}),
    (2.0, {1: 6.20, 2: 8.90}),
    (10.0, {1: 11.00, 2: 16.50}),
]


def rate_for(zone: int, weight_kg: float) -> float:
    if weight_kg <= 0:
        raise ValueError("weight must be positive")
    for limit, prices in TARIFF:
        if weight_kg < limit:
            return prices[zone]
    raise ValueError(f"{weight_kg} kg exceeds the heaviest band")
