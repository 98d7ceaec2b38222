package ledger;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

public final class Amounts {
    private static final DecimalFormat FMT =
        new DecimalFormat("#,##0.00", DecimalFormatSymbols.getInstance(Locale.ROOT));

    private Amounts() {}

    /** Formats cents as a grouped decimal amount; negatives in parentheses (accounting style). */
    public static String format(long cents) {
        String abs;
        synchronized (FMT) {
            abs = FMT.format(Math.abs(cents) / 100.0);
        }
        return cents < 0 ? "(" + abs + ")" : abs;
    }
}
