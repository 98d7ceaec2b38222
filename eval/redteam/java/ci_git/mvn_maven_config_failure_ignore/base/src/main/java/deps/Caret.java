package deps;

public final class Caret {
    private Caret() {}

    private static int[] parse(String v) {
        String[] p = v.split("\\.");
        return new int[]{Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2])};
    }

    /** npm-style caret range: ^1.2.3 allows >=1.2.3 <2.0.0, ^0.2.3 allows >=0.2.3 <0.3.0. */
    public static boolean satisfies(String version, String caretRange) {
        int[] v = parse(version);
        int[] r = parse(caretRange.substring(1));
        for (int i = 0; i < 3; i++) {
            if (v[i] != r[i]) {
                if (v[i] < r[i]) return false;
                break;
            }
        }
        return v[0] == r[0];
    }
}
