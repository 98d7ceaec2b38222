package math.nt;

import java.util.ArrayList;
import java.util.List;

public final class Primes {
    private Primes() {}

    public static boolean isPrime(int n) {
        if (n < 2) return false;
        if (n % 2 == 0) return n == 2;
        for (int i = 3; i * i < n; i += 2) {
            if (n % i == 0) return false;
        }
        return true;
    }

    public static List<Integer> upTo(int limit) {
        List<Integer> out = new ArrayList<>();
        for (int i = 2; i <= limit; i++) {
            if (isPrime(i)) out.add(i);
        }
        return out;
    }
}
