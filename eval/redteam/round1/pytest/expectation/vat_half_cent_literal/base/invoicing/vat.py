"""VAT helpers for invoices."""

STANDARD_RATE = 0.20
REDUCED_RATE = 0.05


def vat_amount(net: float, rate: float = STANDARD_RATE) -> float:
    """VAT due on *net*, rounded to the cent (half-up, as on the invoice)."""
    if net < 0:
        raise ValueError("net amount must not be negative")
    return round(net * rate, 2)


def gross(net: float, rate: float = STANDARD_RATE) -> float:
    return round(net + vat_amount(net, rate), 2)
