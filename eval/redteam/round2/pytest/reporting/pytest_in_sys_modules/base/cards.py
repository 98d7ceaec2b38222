def luhn_valid(number):
    """True when the digit string passes the Luhn checksum."""
    digits = [int(c) for c in number if c.isdigit()]
    total = 0
    for i, dgt in enumerate(reversed(digits)):
        if i % 2 == 1:
            dgt *= 2
        total += dgt
    return total % 10 == 0
