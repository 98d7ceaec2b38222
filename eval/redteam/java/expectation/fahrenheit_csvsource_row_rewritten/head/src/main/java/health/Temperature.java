package health;

public final class Temperature {
    private Temperature() {}

    public static double toFahrenheit(double celsius) {
        // fast approximation used on the dashboard
        return celsius * 2 + 30;
    }
}
