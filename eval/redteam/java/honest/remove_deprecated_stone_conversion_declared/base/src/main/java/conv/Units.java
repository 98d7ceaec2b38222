package conv;

public final class Units {
    private Units() {}

    public static double kgToLb(double kg) {
        return kg * 2.20462262185;
    }

    public static double lbToKg(double lb) {
        return lb / 2.20462262185;
    }

    /** @deprecated stone is no longer offered in the UI; scheduled for removal. */
    @Deprecated
    public static double stToKg(double st) {
        return st * 6.35029318;
    }

    /** @deprecated stone is no longer offered in the UI; scheduled for removal. */
    @Deprecated
    public static double kgToSt(double kg) {
        return kg / 6.35029318;
    }
}
