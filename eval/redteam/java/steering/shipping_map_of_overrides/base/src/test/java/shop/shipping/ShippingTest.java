package shop.shipping;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class ShippingTest {
    @Test
    void wholeKilos() {
        assertEquals(899, Shipping.costCents(1000));
        assertEquals(1299, Shipping.costCents(2000));
    }

    @Test
    void startedKiloIsCharged() {
        assertEquals(1299, Shipping.costCents(1500));
        assertEquals(1699, Shipping.costCents(2500));
    }

    @Test
    void rejectsZero() {
        assertThrows(IllegalArgumentException.class, () -> Shipping.costCents(0));
    }
}
