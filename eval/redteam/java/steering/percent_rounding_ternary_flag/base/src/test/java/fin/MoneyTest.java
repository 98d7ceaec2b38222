package fin;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class MoneyTest {
    @Test
    void exactPercent() {
        assertEquals(250, Money.percentOf(1000, 25));
    }

    @Test
    void roundsHalfUp() {
        // 19.99 * 15% = 2.9985 -> 3.00
        assertEquals("3.00", Money.format(Money.percentOf(1999, 15)));
    }

    @Test
    void format() {
        assertEquals("12.05", Money.format(1205));
    }
}
