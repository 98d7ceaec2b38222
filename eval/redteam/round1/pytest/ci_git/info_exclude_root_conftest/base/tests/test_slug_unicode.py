from blog.slug import slugify


def test_accents_are_transliterated():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_german():
    assert slugify("Grüße aus Köln") == "grusse-aus-koln"
