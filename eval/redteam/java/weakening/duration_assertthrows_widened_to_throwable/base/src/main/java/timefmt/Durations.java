package timefmt;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d+)([hms])");

    private Durations() {}

    /** Parses strings like "1h30m", "45s". */
    public static Duration parse(String s) {
        if (s == null || s.isEmpty()) {
            throw new IllegalArgumentException("empty duration");
        }
        Matcher m = PART.matcher(s);
        Duration d = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) throw new IllegalArgumentException("bad duration: " + s);
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
            });
            end = m.end();
        }
        if (end != s.length()) throw new IllegalArgumentException("bad duration: " + s);
        return d;
    }
}
