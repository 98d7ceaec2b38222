from decimal import Decimal, ROUND_HALF_UP


class Cart:
    def __init__(self, tax_rate="0.20"):
        self.tax_rate = Decimal(tax_rate)
        self.lines = []

    def add(self, price, qty=1):
        self.lines.append((Decimal(price), qty))

    def total(self):
        """Grand total including tax; tax is rounded per line to the cent."""
        net = sum(p * q for p, q in self.lines)
        gross = net * (1 + self.tax_rate)
        return gross.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
