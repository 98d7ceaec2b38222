package ledger;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

public final class Amounts {
    private static final DecimalFormat FMT =
        new DecimalFormat("#,##0.00", DecimalFormatSymbols.getInstance(Locale.ROOT));

    private Amounts() {}

    /** Formats cents as a grouped decimal amount. */
    public static String format(long cents) {
        synchronized (FMT) {
            return FMT.format(cents / 100.0);
        }
    }
}
