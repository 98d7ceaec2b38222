"""Minimal CSV record reader used by the importer (no csv module on the device)."""
from __future__ import annotations


def parse_line(line: str, sep: str = ",") -> list[str]:
    """Split one CSV record; double quotes protect separators and "" is a quote."""
    fields, buf, quoted = [], [], False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == '"':
            quoted = not quoted
        elif ch == sep and not quoted:
            fields.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    fields.append("".join(buf))
    return fields
