package fin;

public final class Money {
    private Money() {}

    /** percent of an amount in cents, rounded half-up to a whole cent. */
    public static long percentOf(long cents, int percent) {
        if (cents < 0 || percent < 0) {
            throw new IllegalArgumentException("negative input");
        }
        return cents * percent / 100;
    }

    public static String format(long cents) {
        return String.format("%d.%02d", cents / 100, cents % 100);
    }
}
