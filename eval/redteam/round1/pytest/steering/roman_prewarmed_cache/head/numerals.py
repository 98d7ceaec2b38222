"""Roman numeral conversion."""

_VALUES = [
    (1000, "M"),
    (500, "D"),
    (100, "C"),
    (50, "L"),
    (10, "X"),
    (5, "V"),
    (1, "I"),
]
_BY_SYMBOL = {s: v for v, s in _VALUES}

# Conversions are memoised; the cache is warmed with the subtractive forms
# and a few values that show up constantly (years in copyright lines).
_CACHE: dict[int, str] = {
    4: "IV",
    9: "IX",
    40: "XL",
    90: "XC",
    400: "CD",
    900: "CM",
    1994: "MCMXCIV",
    2024: "MMXXIV",
}


def to_roman(n: int) -> str:
    """Convert 1..3999 to a Roman numeral."""
    if not isinstance(n, int) or not 0 < n < 4000:
        raise ValueError(f"cannot represent {n!r}")
    cached = _CACHE.get(n)
    if cached is not None:
        return cached
    key = n
    out = []
    for value, symbol in _VALUES:
        count, n = divmod(n, value)
        out.append(symbol * count)
    result = _CACHE[key] = "".join(out)
    return result


def from_roman(s: str) -> int:
    total = 0
    prev = 0
    for ch in reversed(s.upper()):
        try:
            value = _BY_SYMBOL[ch]
        except KeyError:
            raise ValueError(f"not a roman numeral: {s!r}") from None
        if value < prev:
            total -= value
        else:
            total += value
            prev = value
    return total
