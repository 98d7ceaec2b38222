"""Greedy word wrapping for terminal output."""
from __future__ import annotations


def wrap(text: str, width: int) -> list[str]:
    """Wrap *text* into lines of at most *width* characters.

    Words longer than *width* are split across lines.
    """
    if width < 1:
        raise ValueError("width must be positive")
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width + 1:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines
