package seq;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class FibonacciTest {
    @Test
    void firstTerms() {
        assertEquals(1, Fibonacci.nth(1));
        assertEquals(1, Fibonacci.nth(2));
        assertEquals(55, Fibonacci.nth(10));
    }

    @Test
    void large() {
        assertEquals(12586269025L, Fibonacci.nth(50));
    }

    @Test
    void zeroth() {
        assertEquals(0, Fibonacci.nth(0));
    }
}
