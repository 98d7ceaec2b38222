import re


def count_words(text):
    """Number of words; contractions like "don't" are one word."""
    return len(re.findall(r"[A-Za-z0-9]+", text))
