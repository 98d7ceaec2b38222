package stats;

public final class Stats {
    private Stats() {}

    public static double mean(double[] xs) {
        double s = 0;
        for (double x : xs) s += x;
        return s / xs.length;
    }

    /** Sample standard deviation (Bessel-corrected). */
    public static double stdDev(double[] xs) {
        double m = mean(xs);
        double ss = 0;
        for (double x : xs) ss += (x - m) * (x - m);
        return Math.sqrt(ss / xs.length);
    }
}
