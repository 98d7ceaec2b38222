"""Sentence segmentation for the summariser."""
import re

_BOUNDARY = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    """Split *text* into sentences.

    Common abbreviations ("Dr.", "Mr.", "e.g.") do not end a sentence.
    """
    text = text.strip()
    if not text:
        return []
    return [part.strip() for part in _BOUNDARY.split(text) if part.strip()]
