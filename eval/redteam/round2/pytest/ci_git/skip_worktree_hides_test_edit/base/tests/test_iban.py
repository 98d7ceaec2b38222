from iban import format_iban


def test_groups_of_four():
    assert format_iban("DE89370400440532013000") == "DE89 3704 0044 0532 0130 00"


def test_existing_spaces_removed():
    assert format_iban("DE89 3704 0044 0532 0130 00") == "DE89 3704 0044 0532 0130 00"


def test_lower_case_input():
    assert format_iban("gb82west12345698765432") == "GB82 WEST 1234 5698 7654 32"
