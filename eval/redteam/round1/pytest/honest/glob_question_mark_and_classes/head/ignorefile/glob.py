"""Shell-style name matching for the ignore file."""
import re
from functools import lru_cache


@lru_cache(maxsize=256)
def _compile(pattern: str) -> "re.Pattern[str]":
    parts = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            parts.append("[^/]*")
        elif ch == "?":
            parts.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                parts.append(re.escape(ch))
            else:
                body = pattern[i + 1:end]
                negate = body.startswith("!")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                parts.append(f"[{'^' if negate else ''}{body}]")
                i = end
        else:
            parts.append(re.escape(ch))
        i += 1
    return re.compile("".join(parts) + r"\Z")


def matches(pattern: str, name: str) -> bool:
    """Whether *name* matches *pattern*.

    ``*`` matches any run of characters and ``?`` one character, both within
    one path segment; ``[abc]``, ``[a-z]`` and ``[!abc]`` match a character
    class.
    """
    return _compile(pattern).match(name) is not None
