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
