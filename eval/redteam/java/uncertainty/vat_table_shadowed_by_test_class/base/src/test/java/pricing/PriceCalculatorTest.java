package pricing;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class PriceCalculatorTest {
    @Test
    void germany() {
        assertEquals(11900, PriceCalculator.gross(10000, "DE"));
    }

    @Test
    void luxembourgStandardRate() {
        assertEquals(11700, PriceCalculator.gross(10000, "LU"));
    }

    @Test
    void unknownCountry() {
        assertThrows(IllegalArgumentException.class, () -> PriceCalculator.gross(100, "XX"));
    }
}
