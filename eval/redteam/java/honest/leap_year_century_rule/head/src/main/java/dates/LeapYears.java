package dates;

public final class LeapYears {
    private static final int[] CUMULATIVE = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

    private LeapYears() {}

    /** Gregorian rule: every 4th year, except centuries, except every 4th century. */
    public static boolean isLeap(int year) {
        if (year % 400 == 0) return true;
        if (year % 100 == 0) return false;
        return year % 4 == 0;
    }

    public static int dayOfYear(int year, int month, int day) {
        int d = CUMULATIVE[month - 1] + day;
        if (month > 2 && isLeap(year)) d++;
        return d;
    }
}
