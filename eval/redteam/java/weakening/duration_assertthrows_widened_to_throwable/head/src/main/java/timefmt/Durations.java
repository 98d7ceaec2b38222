package timefmt;

import java.time.Duration;

public final class Durations {
    private Durations() {}

    /** Parses strings like "1h30m", "45s". Single pass, no regex. */
    public static Duration parse(String s) {
        Duration d = Duration.ZERO;
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isDigit(c)) {
                n = n * 10 + (c - '0');
                continue;
            }
            switch (c) {
                case 'h' -> d = d.plusHours(n);
                case 'm' -> d = d.plusMinutes(n);
                case 's' -> d = d.plusSeconds(n);
                default -> throw new IllegalStateException("unit " + c);
            }
            n = 0;
        }
        if (s.charAt(s.length() - 1) >= '0' && s.charAt(s.length() - 1) <= '9') {
            d = d.plusSeconds(n);
        }
        return d;
    }
}
