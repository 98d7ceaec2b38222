"""Identifiers for generated resources (buckets, queues, dashboards)."""
import re

SEPARATOR = "-"
_JUNK = re.compile(r"[^a-z0-9]+")


def make_identifier(name: str, prefix: str = "") -> str:
    """Lower-case identifier built from *name*, optionally prefixed."""
    core = _JUNK.sub(SEPARATOR, name.lower()).strip(SEPARATOR)
    if not core:
        raise ValueError(f"cannot build an identifier from {name!r}")
    return f"{prefix}{SEPARATOR}{core}" if prefix else core
