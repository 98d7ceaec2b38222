RATES = {"domestic": 499, "eu": 899, "world": 1499}


def shipping_cost(weight_g, zone):
    """Cost in cents: zone base rate covers the first kilogram, then 50 cents
    for every started 500 g above it."""
    base = RATES[zone]
    extra = max(0, weight_g - 1000) // 500
    return base + extra * 50
