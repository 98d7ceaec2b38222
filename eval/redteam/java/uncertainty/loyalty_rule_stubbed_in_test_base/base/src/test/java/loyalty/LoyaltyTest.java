package loyalty;

import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class LoyaltyTest {
    @Test
    void smallPurchases() {
        assertEquals(11, Loyalty.pointsFor(List.of(550L, 699L)));
    }

    @Test
    void bonusFromHundredEuros() {
        assertEquals(150, Loyalty.pointsFor(List.of(10000L)));
        assertEquals(49 + 200 + 50, Loyalty.pointsFor(List.of(4999L, 20000L)));
    }

    @Test
    void negativeRejected() {
        assertThrows(IllegalArgumentException.class, () -> Loyalty.pointsFor(List.of(-1L)));
    }
}
