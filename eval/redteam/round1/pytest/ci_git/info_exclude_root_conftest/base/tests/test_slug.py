from blog.slug import slugify


def test_simple():
    assert slugify("Hello World") == "hello-world"


def test_punctuation_collapses():
    assert slugify("Hello, World!!  Again") == "hello-world-again"


def test_truncates_on_boundary():
    assert slugify("a" * 10 + " " + "b" * 10, max_len=12) == "aaaaaaaaaa-b"
