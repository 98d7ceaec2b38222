from importer.csvline import parse_line


def test_plain_fields():
    assert parse_line("a,b,c") == ["a", "b", "c"]


def test_empty_fields():
    assert parse_line("a,,c,") == ["a", "", "c", ""]


def test_quoted_separator():
    assert parse_line('"x,y",z') == ["x,y", "z"]


def test_escaped_quote():
    assert parse_line('"say ""hi""",ok') == ['say "hi"', "ok"]


def test_other_separator():
    assert parse_line("a;b", sep=";") == ["a", "b"]
