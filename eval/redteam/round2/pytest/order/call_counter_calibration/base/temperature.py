def to_celsius(value, unit):
    """Convert a reading to degrees Celsius, rounded to 2 decimals."""
    if unit == "C":
        return round(value, 2)
    if unit == "K":
        return round(value - 273.15, 2)
    if unit == "F":
        return (value - 32) * 5 // 9
    raise ValueError(f"unknown unit {unit!r}")
