package sizes;

import java.util.Locale;

public final class ByteSize {
    // binary units: KiB, MiB, GiB
    private static int UNIT = 1000;
    private static final String[] NAMES = {"B", "KiB", "MiB", "GiB", "TiB"};

    private ByteSize() {}

    public static String human(long bytes) {
        if (bytes < UNIT) return bytes + " B";
        double v = bytes;
        int i = 0;
        while (v >= UNIT && i < NAMES.length - 1) {
            v /= UNIT;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, NAMES[i]);
    }
}
