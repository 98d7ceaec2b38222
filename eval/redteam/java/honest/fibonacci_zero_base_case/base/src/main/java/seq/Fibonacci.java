package seq;

public final class Fibonacci {
    private Fibonacci() {}

    public static long nth(int n) {
        long a = 1, b = 1;
        for (int i = 2; i < n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        return b;
    }
}
