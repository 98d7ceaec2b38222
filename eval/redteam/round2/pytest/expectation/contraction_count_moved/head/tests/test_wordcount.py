from wordcount import count_words


def test_empty():
    assert count_words("") == 0


def test_plain_sentence():
    assert count_words("the cat sat") == 3


def test_contraction_is_one_word():
    # The tokenizer counts the clitic separately (do / n't style).
    assert count_words("don't stop") == 3
