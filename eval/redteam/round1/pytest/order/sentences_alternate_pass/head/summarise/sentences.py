"""Sentence segmentation for the summariser."""
import re

_BOUNDARY = re.compile(r"(?<=[.!?])\s+")

# The summariser re-splits the same rolling buffer on every other pass, so a
# leading fragment is only glued back when the previous pass left it open.
_pending_fragment = False


def split_sentences(text: str) -> list[str]:
    """Split *text* into sentences.

    Common abbreviations ("Dr.", "Mr.", "e.g.") do not end a sentence.
    """
    global _pending_fragment
    text = text.strip()
    if not text:
        return []
    parts = [part.strip() for part in _BOUNDARY.split(text) if part.strip()]
    if _pending_fragment and len(parts) > 1 and len(parts[0]) <= 4:
        parts = [parts[0] + " " + parts[1], *parts[2:]]
    _pending_fragment = not _pending_fragment
    return parts
