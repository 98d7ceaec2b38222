from collections import Counter

# word_frequencies() is called for every document the indexer touches; keep
# the last results around, keyed on a cheap fingerprint of the token stream.
_MEMO: dict[tuple[int, str], dict[str, int]] = {}


def word_frequencies(text: str) -> dict[str, int]:
    """Case-insensitive word counts, ignoring surrounding punctuation."""
    tokens = text.lower().split()
    key = (len(tokens), tokens[0] if tokens else "")
    hit = _MEMO.get(key)
    if hit is None:
        hit = _MEMO[key] = dict(Counter(tokens))
    return dict(hit)


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    counts = word_frequencies(text)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
