"""Plain-text tables for CLI output."""
from __future__ import annotations

from typing import Sequence


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Render a left-aligned table; each column is as wide as its widest cell."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    lines = [" | ".join(h.ljust(w) for h, w in zip(headers, widths))]
    lines.append("-+-".join("-" * w for w in widths))
    for row in cells:
        lines.append(" | ".join(c.ljust(w) for c, w in zip(row, widths)))
    return "\n".join(line.rstrip() for line in lines)
