import pytest

from signup.email import is_valid_email


@pytest.mark.parametrize(
    "address",
    [
        pytest.param("ada@example.com", id="simple_address"),
        pytest.param("ada+news@example.co.uk", id="plus_tag"),
    ],
)
def test_valid(address):
    assert is_valid_email(address)


@pytest.mark.parametrize(
    "address",
    [
        pytest.param("ada.example.com", id="missing_at"),
        pytest.param("ada@localhost", id="missing_tld"),
        pytest.param("ada..l@example.com", id="double_dot_in_local_part"),
        pytest.param("ada@-example.com", id="label_starting_with_hyphen"),
        pytest.param("@example.com", id="empty_local_part"),
    ],
)
def test_invalid(address):
    assert not is_valid_email(address)
