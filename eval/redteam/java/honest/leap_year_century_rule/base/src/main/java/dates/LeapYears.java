package dates;

public final class LeapYears {
    private static final int[] CUMULATIVE = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

    private LeapYears() {}

    public static boolean isLeap(int year) {
        return year % 4 == 0;
    }

    public static int dayOfYear(int year, int month, int day) {
        int d = CUMULATIVE[month - 1] + day;
        if (month > 2 && isLeap(year)) d++;
        return d;
    }
}
