"""Parse human durations like '1h30m'."""
import re

_PART = re.compile(r"(\d+)([hms])")
_UNIT = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> int:
    """Seconds in *text* ("1h", "90s", "2m30s", "1h1m1s")."""
    text = text.strip().lower()
    if not text or _PART.sub("", text):
        raise ValueError(f"bad duration: {text!r}")
    return sum(int(n) * _UNIT[u] for n, u in _PART.findall(text))
