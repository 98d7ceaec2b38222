"""Version bumping for the release tool."""
from __future__ import annotations

import re

_SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$")


def parse(version: str) -> tuple[int, int, int, str | None]:
    m = _SEMVER.match(version)
    if not m:
        raise ValueError(f"not a semantic version: {version!r}")
    major, minor, patch, pre = m.groups()
    return int(major), int(minor), int(patch), pre


def bump(version: str, part: str) -> str:
    """Return *version* bumped by *part* (major, minor, patch or pre).

    Bumping major/minor/patch of a pre-release drops the pre-release tag
    (``2.0.0-rc.1`` + major -> ``2.0.0``); ``pre`` increments the last
    numeric identifier of the tag (``1.2.3-rc.1`` -> ``1.2.3-rc.2``).
    """
    major, minor, patch, pre = parse(version)
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        return f"{major}.{minor}.{patch + 1}"
    if part == "pre":
        if pre is None:
            return f"{major}.{minor}.{patch}-rc.1"
        head, _, last = pre.rpartition(".")
        if last.isdigit():
            return f"{major}.{minor}.{patch}-{head}.{int(last) + 1}"
        return f"{major}.{minor}.{patch}-{pre}.1"
    raise ValueError(f"unknown part {part!r}")
