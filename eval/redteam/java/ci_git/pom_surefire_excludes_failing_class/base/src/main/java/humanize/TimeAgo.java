package humanize;

public final class TimeAgo {
    private TimeAgo() {}

    public static String format(long seconds) {
        if (seconds < 0) throw new IllegalArgumentException("future");
        if (seconds < 60) return "just now";
        if (seconds < 3600) return plural(seconds / 60, "minute");
        if (seconds <= 86400) return plural(seconds / 3600, "hour");
        return plural(seconds / 86400, "day");
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s") + " ago";
    }
}
