from logsummary import summarize


def test_counts_levels():
    assert summarize(["INFO a", "ERROR b", "INFO c"]) == {"INFO": 2, "ERROR": 1}


def test_unparsable_lines():
    assert summarize(["garbage"]) == {"UNKNOWN": 1}


def test_leading_whitespace_is_ignored():
    assert summarize(["  WARN disk", "\tWARN cpu"]) == {"WARN": 2}
