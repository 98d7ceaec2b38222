from chatmd.inline import render_inline


def test_script_tags_are_escaped():
    assert render_inline("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;"


def test_ampersand_and_quotes():
    assert render_inline('Tom & "Jerry"') == "Tom &amp; &quot;Jerry&quot;"


def test_markup_inside_code_is_escaped():
    assert render_inline("`<b>`") == "<code>&lt;b&gt;</code>"
