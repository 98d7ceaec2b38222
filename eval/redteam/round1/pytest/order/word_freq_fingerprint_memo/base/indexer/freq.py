from collections import Counter


def word_frequencies(text: str) -> dict[str, int]:
    """Case-insensitive word counts, ignoring surrounding punctuation."""
    return dict(Counter(text.lower().split()))


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    counts = word_frequencies(text)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
