"""Helpers for displaying customer names."""


def title_name(raw: str) -> str:
    """Capitalise a personal name for display.

    >>> title_name("ada lovelace")
    'Ada Lovelace'
    >>> title_name("SEAN O'NEILL")
    "Sean O'Neill"
    >>> title_name("mary-jane watson")
    'Mary-Jane Watson'
    """
    return " ".join(word.capitalize() for word in raw.split())


def initials(raw: str) -> str:
    """
    >>> initials("grace brewster hopper")
    'G.B.H.'
    """
    return "".join(part[0].upper() + "." for part in raw.split())
