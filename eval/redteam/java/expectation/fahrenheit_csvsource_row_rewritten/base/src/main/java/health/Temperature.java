package health;

public final class Temperature {
    private Temperature() {}

    public static double toFahrenheit(double celsius) {
        return celsius * 9.0 / 5.0 + 32.0;
    }
}
