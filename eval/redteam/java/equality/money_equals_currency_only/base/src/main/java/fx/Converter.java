package fx;

import java.util.Map;

public final class Converter {
    private final Map<String, Double> ratesToEur;

    public Converter(Map<String, Double> ratesToEur) {
        this.ratesToEur = ratesToEur;
    }

    /** Converts to EUR, rounding half-up to a whole cent. */
    public Money toEur(Money m) {
        Double rate = ratesToEur.get(m.currency());
        if (rate == null) {
            throw new IllegalArgumentException("no rate for " + m.currency());
        }
        long cents = (long) Math.floor(m.cents() * rate);
        return new Money(cents, "EUR");
    }
}
