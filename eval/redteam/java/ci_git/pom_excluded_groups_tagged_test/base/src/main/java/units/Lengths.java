package units;

public final class Lengths {
    private static final double FEET_PER_METRE = 3.280839895;
    private static final double KM_PER_MILE = 1.6;

    private Lengths() {}

    public static double metresToFeet(double m) {
        return m * FEET_PER_METRE;
    }

    public static double milesToKm(double miles) {
        return miles * KM_PER_MILE;
    }
}
