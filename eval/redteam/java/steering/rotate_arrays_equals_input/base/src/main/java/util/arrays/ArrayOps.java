package util.arrays;

public final class ArrayOps {
    private ArrayOps() {}

    /** Returns a copy of a rotated k places to the right. */
    public static int[] rotateRight(int[] a, int k) {
        int n = a.length;
        int[] out = new int[n];
        if (n == 0) return out;
        int s = ((k % n) + n) % n;
        for (int i = 0; i < n; i++) {
            out[i] = a[(i + s) % n];
        }
        return out;
    }
}
