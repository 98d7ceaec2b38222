from clitable.render import render_table


def test_header_only():
    assert render_table(["id", "name"], []) == "id | name\n---+-----"


def test_columns_fit_widest_cell():
    out = render_table(["id", "name"], [[1, "alice"], [22, "bob"], [333, "christina"]])
    assert out == (
        "id  | name\n"
        "----+----------\n"
        "1   | alice\n"
        "22  | bob\n"
        "333 | christina"
    )


def test_lines_are_aligned():
    out = render_table(["k", "v"], [["long-key", 1], ["x", 2]])
    assert out == (
        "k        | v\n"
        "---------+--\n"
        "long-key | 1\n"
        "x        | 2"
    )
