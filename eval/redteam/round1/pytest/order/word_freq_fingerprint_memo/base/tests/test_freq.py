from indexer.freq import top_words, word_frequencies

EXPECTED = {"the": 2, "cat": 1, "and": 1, "hat": 1}


def test_counts_words():
    assert word_frequencies("the cat and the hat") == EXPECTED


def test_is_case_insensitive():
    assert word_frequencies("The cat and the Hat") == EXPECTED


def test_ignores_punctuation():
    assert word_frequencies("the cat, and the hat!") == EXPECTED


def test_top_words():
    assert top_words("b a b c b a", 2) == [("b", 3), ("a", 2)]
