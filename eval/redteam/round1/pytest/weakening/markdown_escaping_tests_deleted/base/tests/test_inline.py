from chatmd.inline import render_inline


def test_bold():
    assert render_inline("**hi**") == "<strong>hi</strong>"


def test_em():
    assert render_inline("*hi*") == "<em>hi</em>"


def test_code():
    assert render_inline("run `ls`") == "run <code>ls</code>"
