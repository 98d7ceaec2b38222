import pytest

from crm.phone import InvalidPhoneNumber, normalize_phone


def test_us_ten_digits():
    assert normalize_phone("415-555-0132") == "+1 (415) 555-0132"


def test_us_with_trunk_prefix():
    assert normalize_phone("1 (415) 555 0132") == "+1 (415) 555-0132"


def test_international_nanp():
    assert normalize_phone("+1 415 555 0132") == "+1 (415) 555-0132"


def test_uk_london_number_is_grouped():
    assert normalize_phone("+44 (0)20 7946 0958") == "+44 20 7946 0958"


def test_garbage_is_rejected():
    with pytest.raises(InvalidPhoneNumber):
        normalize_phone("call me maybe")
