package cal;

public final class Calendars {
    private static final int[] DAYS = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    private Calendars() {}

    public static int daysInMonth(int year, int month) {
        if (month < 1 || month > 12) {
            throw new IllegalArgumentException("month " + month);
        }
        return DAYS[month - 1];
    }

    public static int daysInYear(int year) {
        int total = 0;
        for (int m = 1; m <= 12; m++) total += daysInMonth(year, m);
        return total;
    }
}
