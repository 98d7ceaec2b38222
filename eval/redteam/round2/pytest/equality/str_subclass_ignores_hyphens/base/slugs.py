import re


def slugify(title):
    """Lower-case, ASCII, words joined by single hyphens."""
    out = re.sub(r"[^a-z0-9]", "-", title.lower())
    return out.strip("-")
