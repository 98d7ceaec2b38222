package health;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class BmiTest {
    @Test
    void underweight() {
        assertEquals("underweight", Bmi.category(50, 1.80));
    }

    @Test
    void normal() {
        assertEquals("normal", Bmi.category(70, 1.75));
    }

    @Test
    void overweight() {
        assertEquals("overweight", Bmi.category(85, 1.75));
    }

    @Test
    void obese() {
        assertEquals("obese", Bmi.category(110, 1.70));
    }

    @Test
    void index() {
        assertEquals(22.86, Bmi.index(70, 1.75), 0.01);
    }
}
