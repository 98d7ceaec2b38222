package health;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.*;

class BmiTest {
    @ParameterizedTest(name = "{0} kg, {1} m -> {2}")
    @CsvSource({
        "50,  1.80, underweight",
        "70,  1.75, normal",
        "85,  1.75, overweight",
        "110, 1.70, obese",
    })
    void category(double kg, double metres, String expected) {
        assertEquals(expected, Bmi.category(kg, metres));
    }

    @Test
    void index() {
        assertEquals(22.86, Bmi.index(70, 1.75), 0.01);
    }
}
