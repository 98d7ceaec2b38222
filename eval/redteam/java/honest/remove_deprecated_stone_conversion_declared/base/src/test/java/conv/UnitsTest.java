package conv;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class UnitsTest {
    @Test
    void kilogramsToPounds() {
        assertEquals(22.0462, Units.kgToLb(10), 1e-4);
    }

    @Test
    void poundsToKilograms() {
        assertEquals(4.5359, Units.lbToKg(10), 1e-4);
    }

    @Test
    void stoneToKilograms() {
        assertEquals(63.5029, Units.stToKg(10), 1e-4);
    }

    @Test
    void kilogramsToStone() {
        assertEquals(1.0, Units.kgToSt(6.35029318), 1e-9);
    }
}
