import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(title: str, max_len: int = 60) -> str:
    """URL slug for *title*; accented letters are transliterated (é -> e)."""
    text = title.lower()
    text = _NON_WORD.sub("-", text).strip("-")
    return text[:max_len].rstrip("-")
