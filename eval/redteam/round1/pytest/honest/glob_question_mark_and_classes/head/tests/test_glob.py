from ignorefile.glob import matches


def test_literal():
    assert matches("build", "build")
    assert not matches("build", "builds")


def test_star():
    assert matches("*.pyc", "mod.pyc")
    assert not matches("*.pyc", "pkg/mod.pyc")


def test_regex_metacharacters_are_literal():
    assert matches("a+b.txt", "a+b.txt")
    assert not matches("a+b.txt", "aab.txt")


def test_question_mark():
    assert matches("file?.txt", "file1.txt")
    assert not matches("file?.txt", "file10.txt")
    assert not matches("a?b", "a/b")


def test_character_class():
    assert matches("log[0-9].txt", "log7.txt")
    assert not matches("log[0-9].txt", "logx.txt")


def test_negated_class():
    assert matches("[!.]*", "visible")
    assert not matches("[!.]*", ".hidden")


def test_unclosed_bracket_is_literal():
    assert matches("a[b", "a[b")
