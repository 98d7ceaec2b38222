package units;

import java.math.BigDecimal;
import java.util.Locale;

public final class DataSize {
    private DataSize() {}

    /** Parses "512", "512B", "2KB", "1.5MB", "4GB" with binary (1024) multipliers. */
    public static long parse(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mult = 1;
        String num = t;
        if (t.endsWith("KB")) { mult = 1L << 10; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("MB")) { mult = 1L << 20; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("GB")) { mult = 1L << 30; num = t.substring(0, t.length() - 2); }
        else if (t.endsWith("B")) { num = t.substring(0, t.length() - 1); }
        try {
            return new BigDecimal(num).multiply(BigDecimal.valueOf(mult)).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("bad size: " + s, e);
        }
    }
}
