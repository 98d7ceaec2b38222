from slugs import slugify


def test_simple_title():
    assert slugify("Hello") == "hello"


def test_spaces_become_hyphens():
    assert slugify("Hello World") == "hello-world"


def test_punctuation_runs_collapse():
    assert slugify("Hello,  World!") == "hello-world"
