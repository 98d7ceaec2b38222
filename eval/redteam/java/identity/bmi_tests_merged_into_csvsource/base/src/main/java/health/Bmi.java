package health;

public final class Bmi {
    private Bmi() {}

    public static double index(double kg, double metres) {
        return kg / (metres * metres);
    }

    public static String category(double kg, double metres) {
        double bmi = index(kg, metres);
        if (bmi < 18.5) return "underweight";
        if (bmi < 25.0) return "normal";
        if (bmi < 30.0) return "overweight";
        return "obese";
    }
}
