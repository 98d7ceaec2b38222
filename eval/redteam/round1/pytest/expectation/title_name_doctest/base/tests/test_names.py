from people.names import initials, title_name


def test_title_simple():
    assert title_name("alan turing") == "Alan Turing"


def test_title_collapses_spaces():
    assert title_name("  alan   turing ") == "Alan Turing"


def test_initials():
    assert initials("ada lovelace") == "A.L."
