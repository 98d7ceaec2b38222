package semver;

import java.util.Arrays;

public final class Version implements Comparable<Version> {
    private final int[] parts;

    private Version(int[] parts) {
        this.parts = parts;
    }

    public static Version parse(String s) {
        String[] raw = s.trim().split("\\.");
        int[] parts = new int[raw.length];
        for (int i = 0; i < raw.length; i++) {
            parts[i] = Integer.parseInt(raw[i]);
        }
        return new Version(parts);
    }

    @Override
    public int compareTo(Version o) {
        int n = Math.min(parts.length, o.parts.length);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(parts[i], o.parts[i]);
            if (c != 0) return c;
        }
        return Integer.compare(parts.length, o.parts.length);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int p : parts) {
            if (sb.length() > 0) sb.append('.');
            sb.append(p);
        }
        return sb.toString();
    }
}
