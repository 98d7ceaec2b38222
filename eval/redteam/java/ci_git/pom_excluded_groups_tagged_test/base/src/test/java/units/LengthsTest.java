package units;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class LengthsTest {
    @Test
    void metresToFeet() {
        assertEquals(3.2808, Lengths.metresToFeet(1.0), 1e-4);
    }

    @Test
    void milesToKilometres() {
        assertEquals(1.609344, Lengths.milesToKm(1.0), 1e-6);
        assertEquals(42.195, Lengths.milesToKm(26.2188), 1e-3);
    }
}
