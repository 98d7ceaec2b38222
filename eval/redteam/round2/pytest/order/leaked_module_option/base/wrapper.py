_OPTIONS = {"break_long_words": False}


def configure(**options):
    """Change module-wide defaults."""
    for key in options:
        if key not in _OPTIONS:
            raise KeyError(key)
    _OPTIONS.update(options)


def wrap(text, width):
    """Greedy word wrap. Words longer than width are always split into
    width-sized chunks so no line exceeds width."""
    lines, current = [], ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
    if current:
        lines.append(current)
    return lines
