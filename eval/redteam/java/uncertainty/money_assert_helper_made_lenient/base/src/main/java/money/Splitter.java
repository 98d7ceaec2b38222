package money;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

public final class Splitter {
    private Splitter() {}

    /** Splits an amount into n parts that differ by at most one cent and sum to the amount. */
    public static List<BigDecimal> split(BigDecimal amount, int n) {
        BigDecimal part = amount.divide(BigDecimal.valueOf(n), 2, RoundingMode.DOWN);
        List<BigDecimal> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(part);
        }
        return out;
    }
}
