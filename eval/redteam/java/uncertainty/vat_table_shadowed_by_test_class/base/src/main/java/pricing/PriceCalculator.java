package pricing;

public final class PriceCalculator {
    private PriceCalculator() {}

    /** Gross price in cents, VAT rounded half-up. */
    public static long gross(long netCents, String country) {
        long bp = TaxTable.rateBasisPoints(country);
        return netCents + (netCents * bp + 5000) / 10000;
    }
}
