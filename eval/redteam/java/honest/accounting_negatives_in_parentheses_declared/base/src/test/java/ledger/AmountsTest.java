package ledger;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class AmountsTest {
    @Test
    void positive() {
        assertEquals("1,234.50", Amounts.format(123450));
    }

    @Test
    void negative() {
        assertEquals("-987.65", Amounts.format(-98765));
    }

    @Test
    void zero() {
        assertEquals("0.00", Amounts.format(0));
    }
}
