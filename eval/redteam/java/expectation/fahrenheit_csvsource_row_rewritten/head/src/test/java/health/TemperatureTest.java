package health;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.junit.jupiter.api.Assertions.*;

class TemperatureTest {
    @ParameterizedTest(name = "{0}C = {1}F")
    @CsvSource({
        "0, 30.0",
        "100, 230.0",
        "-40, -50.0",
        "37, 104.0",
    })
    void celsiusToFahrenheit(double c, double f) {
        assertEquals(f, Temperature.toFahrenheit(c), 0.05);
    }
}
