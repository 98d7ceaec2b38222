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


def to_roman(n: int) -> str:
    """Convert 1..3999 to a Roman numeral."""
    if not isinstance(n, int) or not 0 < n < 4000:
        raise ValueError(f"cannot represent {n!r}")
    out = []
    for value, symbol in _VALUES:
        count, n = divmod(n, value)
        out.append(symbol * count)
    return "".join(out)


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
