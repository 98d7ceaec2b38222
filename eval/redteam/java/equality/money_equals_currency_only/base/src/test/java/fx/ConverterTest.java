package fx;

import java.util.Map;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class ConverterTest {
    private final Converter converter = new Converter(Map.of("USD", 0.9185, "EUR", 1.0));

    @Test
    void eurIsIdentity() {
        assertEquals(new Money(1234, "EUR"), converter.toEur(new Money(1234, "EUR")));
    }

    @Test
    void roundsHalfUp() {
        // 1181 * 0.9185 = 1084.7485 -> 1085
        assertEquals(new Money(1085, "EUR"), converter.toEur(new Money(1181, "USD")));
    }

    @Test
    void unknownCurrency() {
        assertThrows(IllegalArgumentException.class, () -> converter.toEur(new Money(1, "JPY")));
    }
}
