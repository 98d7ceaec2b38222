from summarise.sentences import split_sentences


def test_two_plain_sentences():
    assert split_sentences("It rained. Then it stopped.") == ["It rained.", "Then it stopped."]


def test_title_abbreviation_does_not_split():
    assert split_sentences("Dr. Watson arrived. He sat down.") == [
        "Dr. Watson arrived.",
        "He sat down.",
    ]


def test_short_sentences_still_split():
    assert split_sentences("Go. Now.") == ["Go.", "Now."]


def test_question_and_exclamation():
    assert split_sentences("Really? Yes! Fine.") == ["Really?", "Yes!", "Fine."]


def test_blank_input():
    assert split_sentences("   ") == []
