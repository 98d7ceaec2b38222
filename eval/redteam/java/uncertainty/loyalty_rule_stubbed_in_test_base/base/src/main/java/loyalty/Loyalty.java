package loyalty;

import java.util.List;

public final class Loyalty {
    private static PointsRule rule = new DefaultPointsRule();

    private Loyalty() {}

    /** Allows partners to plug in promotional rules. */
    public static void useRule(PointsRule r) {
        rule = r;
    }

    public static long pointsFor(List<Long> purchasesCents) {
        long total = 0;
        for (long p : purchasesCents) {
            if (p < 0) throw new IllegalArgumentException("negative purchase");
            total += rule.points(p);
        }
        return total;
    }
}
