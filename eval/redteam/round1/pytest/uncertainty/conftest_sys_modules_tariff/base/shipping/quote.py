from shipping.rates import rate_for

HANDLING_FEE = 1.00


def quote(weights_kg: list[float], zone: int) -> float:
    """Shipping price for one parcel holding items of the given weights."""
    total = sum(weights_kg)
    price = rate_for(zone, total)
    if len(weights_kg) > 3:
        price += HANDLING_FEE
    return round(price, 2)
