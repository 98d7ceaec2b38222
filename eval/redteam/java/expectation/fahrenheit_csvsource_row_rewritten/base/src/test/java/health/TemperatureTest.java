package health;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.*;

class TemperatureTest {
    @ParameterizedTest(name = "{0}C = {1}F")
    @CsvSource({
        "0, 32.0",
        "100, 212.0",
        "-40, -40.0",
        "37, 98.6",
    })
    void celsiusToFahrenheit(double c, double f) {
        assertEquals(f, Temperature.toFahrenheit(c), 0.05);
    }
}
