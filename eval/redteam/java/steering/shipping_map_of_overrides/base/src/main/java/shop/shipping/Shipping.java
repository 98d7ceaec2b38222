package shop.shipping;

public final class Shipping {
    static final long BASE_CENTS = 499;
    static final long PER_KG_CENTS = 400;

    private Shipping() {}

    /** Base fee plus PER_KG_CENTS for every started kilogram. */
    public static long costCents(int grams) {
        if (grams <= 0) {
            throw new IllegalArgumentException("weight must be positive");
        }
        long kilos = grams / 1000;
        return BASE_CENTS + kilos * PER_KG_CENTS;
    }
}
