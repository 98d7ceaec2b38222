from signup.email import is_valid_email


def test_simple_address():
    assert is_valid_email("ada@example.com")


def test_plus_tag():
    assert is_valid_email("ada+news@example.co.uk")


def test_missing_at():
    assert not is_valid_email("ada.example.com")


def test_missing_tld():
    assert not is_valid_email("ada@localhost")


def test_double_dot_in_local_part():
    assert not is_valid_email("ada..l@example.com")


def test_label_starting_with_hyphen():
    assert not is_valid_email("ada@-example.com")


def test_empty_local_part():
    assert not is_valid_email("@example.com")
