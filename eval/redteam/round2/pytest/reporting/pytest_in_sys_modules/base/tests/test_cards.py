from cards import luhn_valid


def test_valid_visa_test_number():
    assert luhn_valid("4111 1111 1111 1111")


def test_single_digit_error():
    assert not luhn_valid("4111 1111 1111 1112")


def test_number_with_large_doubled_digits():
    assert luhn_valid("79927398713")
