_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def day_of_year(year, month, day):
    """1-based ordinal day within the year (Gregorian calendar)."""
    if not 1 <= month <= 12:
        raise ValueError("month out of range")
    return sum(_DAYS[: month - 1]) + day
