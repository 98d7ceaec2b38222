import re

_PART = re.compile(r"(\d+)([hms])")
_SECONDS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    """Parse '1h30m', '1h 30m', '45s', '2h' into seconds."""
    compact = "".join(text.split())
    if not compact or _PART.sub("", compact):
        raise ValueError(f"bad duration {text!r}")
    return sum(int(n) * _SECONDS[u] for n, u in _PART.findall(compact))
