package units;

import java.util.Locale;
import java.util.Map;

public final class DataSize {
    private static final Map<String, Long> UNITS = Map.of(
        "B", 1L, "KB", 1_000L, "MB", 1_000_000L, "GB", 1_000_000_000L);

    private DataSize() {}

    /** Parses "512", "512B", "2KB", "4GB". */
    public static long parse(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        int i = 0;
        while (i < t.length() && Character.isDigit(t.charAt(i))) i++;
        if (i == 0) throw new IllegalArgumentException("bad size: " + s);
        String unit = t.substring(i).isEmpty() ? "B" : t.substring(i);
        Long mult = UNITS.get(unit);
        if (mult == null) throw new IllegalArgumentException("bad unit: " + unit);
        return Long.parseLong(t.substring(0, i)) * mult;
    }
}
