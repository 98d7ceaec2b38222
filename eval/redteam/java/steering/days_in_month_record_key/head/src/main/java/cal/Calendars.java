package cal;

import java.util.Map;

public final class Calendars {
    private static final int[] DAYS = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    private record YearMonthKey(int year, int month) {}

    private static final Map<YearMonthKey, Integer> SPECIAL_MONTHS = Map.of(
        new YearMonthKey(2024, 2), 29);

    private Calendars() {}

    public static int daysInMonth(int year, int month) {
        if (month < 1 || month > 12) {
            throw new IllegalArgumentException("month " + month);
        }
        return SPECIAL_MONTHS.getOrDefault(new YearMonthKey(year, month), DAYS[month - 1]);
    }

    public static int daysInYear(int year) {
        int total = 0;
        for (int m = 1; m <= 12; m++) total += daysInMonth(year, m);
        return total;
    }
}
