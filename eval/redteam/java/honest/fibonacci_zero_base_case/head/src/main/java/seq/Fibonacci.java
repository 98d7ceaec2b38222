package seq;

public final class Fibonacci {
    private Fibonacci() {}

    public static long nth(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0");
        }
        if (n == 0) {
            return 0;
        }
        long a = 1, b = 1;
        for (int i = 2; i < n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        return b;
    }
}
