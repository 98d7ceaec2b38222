"""Shell-style name matching for the ignore file."""
import re
from functools import lru_cache


@lru_cache(maxsize=256)
def _compile(pattern: str) -> "re.Pattern[str]":
    parts = []
    for ch in pattern:
        if ch == "*":
            parts.append("[^/]*")
        else:
            parts.append(re.escape(ch))
    return re.compile("".join(parts) + r"\Z")


def matches(pattern: str, name: str) -> bool:
    """Whether *name* matches *pattern*; ``*`` matches within one path segment."""
    return _compile(pattern).match(name) is not None
