from decimal import Decimal


def test_empty_cart(cart):
    assert cart.total() == Decimal("0.00")


def test_single_line(cart):
    cart.add("10.00")
    assert cart.total() == Decimal("12.00")


def test_tax_rounded_per_line(cart):
    cart.add("0.03", qty=1)
    cart.add("0.03", qty=1)
    # 0.006 -> 0.01 tax on each line
    assert cart.total() == Decimal("0.08")
