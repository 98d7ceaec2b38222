package pricing;

import java.util.Map;

/** VAT rates by country, in basis points. */
public final class TaxTable {
    private static final Map<String, Integer> RATES_BP = Map.of(
        "DE", 1900,
        "FR", 2000,
        "NL", 2100,
        "LU", 1600);

    private TaxTable() {}

    public static int rateBasisPoints(String country) {
        Integer r = RATES_BP.get(country);
        if (r == null) throw new IllegalArgumentException("unknown country " + country);
        return r;
    }
}
