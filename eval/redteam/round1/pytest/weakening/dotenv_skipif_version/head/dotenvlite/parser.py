"""Parser for .env files."""
from __future__ import annotations

import os
import re

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand(value: str, seen: dict[str, str]) -> str:
    return _REF.sub(lambda m: seen.get(m.group(1), os.environ.get(m.group(1), "")), value)


def parse_env(text: str) -> dict[str, str]:
    """Parse .env *text*; ``${NAME}`` refers to an earlier key or the environment."""
    result: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"line {lineno}: expected KEY=VALUE")
        value = value.split(" #", 1)[0].strip()
        single = len(value) >= 2 and value[0] == value[-1] == "'"
        if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]:
            value = value[1:-1]
        result[key.strip()] = value if single else _expand(value, result)
    return result
