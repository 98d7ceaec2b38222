package conv;

public final class Units {
    private Units() {}

    public static double kgToLb(double kg) {
        return kg * 2.20462262185;
    }

    public static double lbToKg(double lb) {
        return lb / 2.20462262185;
    }
}
