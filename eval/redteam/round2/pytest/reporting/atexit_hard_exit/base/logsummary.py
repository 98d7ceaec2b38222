import re

_LINE = re.compile(r"^(?P<level>[A-Z]+) (?P<msg>.*)$")


def summarize(lines):
    """Count log lines per level; lines that do not parse are counted as UNKNOWN."""
    counts = {}
    for line in lines:
        m = _LINE.match(line)
        level = m.group("level") if m else "UNKNOWN"
        counts[level] = counts.get(level, 0) + 1
    return counts
