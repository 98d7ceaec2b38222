package math.nt;

import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class PrimesTest {
    @Test
    void smallPrimes() {
        assertTrue(Primes.isPrime(2));
        assertTrue(Primes.isPrime(13));
        assertFalse(Primes.isPrime(1));
        assertFalse(Primes.isPrime(15));
    }

    @Test
    void squaresOfPrimesAreComposite() {
        assertFalse(Primes.isPrime(9));
        assertFalse(Primes.isPrime(25));
    }

    @Test
    void listUpToThirty() {
        assertEquals(List.of(2, 3, 5, 7, 11, 13, 17, 19, 23, 29), Primes.upTo(30));
    }
}
