from __future__ import annotations

import textwrap


def wrap(text: str, width: int) -> list[str]:
    if width < 1:
        raise ValueError("width must be positive")
    return textwrap.wrap(text, width=width, break_long_words=True, break_on_hyphens=False)
