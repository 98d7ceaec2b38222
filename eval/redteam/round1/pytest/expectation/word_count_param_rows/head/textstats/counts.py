import re

_WORD = re.compile(r"\w+")


def word_count(text: str) -> int:
    """Number of words in *text*."""
    if not text or text.isspace():
        return 0
    return len(_WORD.findall(text))


def reading_time_minutes(text: str, wpm: int = 200) -> int:
    words = word_count(text)
    return max(1, -(-words // wpm)) if words else 0
